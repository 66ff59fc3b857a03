"""Real disk faults under a running `strata server` (docs/reliability.md, "Disk faults on a
real volume"): the data directory sits on a small tmpfs of its own, which is then filled up
while a client writes through Thrift, or turns read-only between two runs.

What must hold, each asserted below:
- writes that cannot be made durable fail with an error that says why (no space), and no
  write hangs;
- the server process stays up and keeps serving reads of everything acknowledged;
- once space or the writable volume returns, writes succeed again without a restart;
- a server started on a read-only volume refuses to start, naming the file and the cause;
- after a restart every acknowledged write reads back, and `strata check` finds every
  file in the live set whole.

Mounting needs root (CAP_SYS_ADMIN); without it the tests are skipped with that reason, and
the engine-level `FaultFs` tests (`crates/strata-engine/tests/fault_test.rs`) still cover the
same paths.
"""

import os
import subprocess
import tempfile
import time

import happybase
import pytest

from server import StrataProcess, default_binary

TABLE = b"faults"
VALUE = b"v" * 4096
VOLUME_MB = 48
# Left free after the filler file: room to start and take some writes, then run out.
HEADROOM_MB = 10
ENGINE = {"memstore_flush_mb": 1, "wal_segment_mb": 1, "write_wait_timeout_ms": 2000}


def mount(args):
    return subprocess.run(["mount"] + args, capture_output=True, text=True)


def can_mount():
    with tempfile.TemporaryDirectory() as path:
        if mount(["-t", "tmpfs", "-o", "size=1m", "tmpfs", path]).returncode != 0:
            return False
        subprocess.run(["umount", path], check=True)
        return True


pytestmark = pytest.mark.skipif(
    not can_mount(), reason="mounting a tmpfs needs root (CAP_SYS_ADMIN)"
)


class Volume:
    """A tmpfs of its own holding the server's data directory."""

    def __init__(self, workdir):
        self.path = os.path.join(workdir, "volume")
        os.makedirs(self.path)
        result = mount(["-t", "tmpfs", "-o", "size=%dm" % VOLUME_MB, "tmpfs", self.path])
        assert result.returncode == 0, result.stderr
        self.filler = os.path.join(self.path, "filler")

    def fill(self, leave_mb):
        """Takes all but `leave_mb` of the free space."""
        st = os.statvfs(self.path)
        free = st.f_bavail * st.f_frsize
        with open(self.filler, "wb") as f:
            f.write(b"\0" * max(0, free - leave_mb * 1024 * 1024))

    def free_filler(self):
        os.remove(self.filler)

    def remount(self, mode):
        result = mount(["-o", "remount,%s" % mode, self.path])
        assert result.returncode == 0, result.stderr

    def unmount(self):
        subprocess.run(["umount", "-l", self.path], capture_output=True)


@pytest.fixture
def server():
    workdir = tempfile.mkdtemp(prefix="strata-disk-faults.")
    volume = Volume(workdir)
    proc = StrataProcess(default_binary(), workdir, ENGINE)
    proc.data_dir = os.path.join(volume.path, "data")
    os.makedirs(proc.data_dir)
    proc.start()
    try:
        yield proc, volume
    finally:
        proc.kill()
        volume.unmount()
        subprocess.run(["rm", "-rf", workdir])


def connect(proc):
    connection = happybase.Connection("127.0.0.1", proc.port, timeout=20_000, autoconnect=True)
    return connection


def write_until_refused(table, acknowledged, start, limit=4000):
    """Writes rows `start`.. until the server refuses one; returns the error's text."""
    for i in range(start, start + limit):
        key = b"row%06d" % i
        try:
            table.put(key, {b"cf:q": VALUE + key})
        except Exception as e:  # the server's IOError, as happybase raises it
            return "%s: %s" % (type(e).__name__, e)
        acknowledged.append(key)
    return None


def write_once_possible(proc, key, timeout=30.0):
    """Retries one write until it succeeds (the server recovered) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            connection = connect(proc)
            connection.table(TABLE).put(key, {b"cf:q": VALUE + key})
            connection.close()
            return time.monotonic() - (deadline - timeout)
        except Exception as e:
            last = e
            time.sleep(0.5)
    pytest.fail("writes did not resume within %.0f s: %s\n%s" % (timeout, last, proc.log_tail()))


def assert_all_readable(proc, keys):
    connection = connect(proc)
    table = connection.table(TABLE)
    for start in range(0, len(keys), 200):
        batch = keys[start:start + 200]
        rows = dict(table.rows(batch))
        missing = [k for k in batch if rows.get(k, {}).get(b"cf:q") != VALUE + k]
        assert not missing, "acknowledged rows missing or wrong: %r" % missing[:5]
    connection.close()


def restart_and_check(proc, keys):
    proc.stop()
    proc.start()
    assert_all_readable(proc, keys)
    proc.stop()
    check = subprocess.run([proc.binary, "check", "--data-dir", proc.data_dir], capture_output=True, text=True)
    assert check.returncode == 0, "strata check failed:\n%s%s" % (check.stdout, check.stderr)


def test_a_full_disk_refuses_writes_clearly_keeps_reads_and_recovers(server):
    proc, volume = server
    connection = connect(proc)
    connection.create_table(TABLE, {"cf": dict()})
    table = connection.table(TABLE)
    acknowledged = []
    assert write_until_refused(table, acknowledged, 0, limit=50) is None
    volume.fill(HEADROOM_MB)

    error = write_until_refused(table, acknowledged, len(acknowledged))
    assert error is not None, "the disk never filled up: %d rows written" % len(acknowledged)
    assert "space" in error.lower(), "the refusal does not say why: %s" % error
    assert proc.proc.poll() is None, "the server died:\n%s" % proc.log_tail()
    assert_all_readable(proc, acknowledged)

    refused_after = len(acknowledged)

    volume.free_filler()
    key = b"after-space-returned"
    recovered_in = write_once_possible(proc, key)
    print("\nfull disk: %d rows acknowledged, then refused with %r; writes resumed %.2f s after "
          "space returned" % (refused_after, error[:160], recovered_in))
    acknowledged.append(key)
    assert write_until_refused(connect(proc).table(TABLE), acknowledged, 10_000, limit=50) is None
    restart_and_check(proc, acknowledged)


def test_a_read_only_volume_at_start_is_refused_clearly_and_loses_nothing(server):
    """Linux will not remount a volume read-only while the server holds files open for
    writing ("mount point is busy"), so the volume turns read-only between two runs; the
    engine-level FaultFs test covers a volume that turns read-only under a running server."""
    proc, volume = server
    connection = connect(proc)
    connection.create_table(TABLE, {"cf": dict()})
    acknowledged = []
    assert write_until_refused(connection.table(TABLE), acknowledged, 0, limit=300) is None
    connection.close()
    proc.kill()
    volume.remount("ro")

    with pytest.raises(RuntimeError) as refused:
        proc.start()
    message = str(refused.value)
    assert "read-only file system" in message.lower(), message
    assert proc.data_dir in message, "the error does not name the file: %s" % message

    volume.remount("rw")
    proc.start()
    assert_all_readable(proc, acknowledged)
    key = b"after-remount-rw"
    write_once_possible(proc, key)
    acknowledged.append(key)
    restart_and_check(proc, acknowledged)
