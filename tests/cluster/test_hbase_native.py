"""HBase's Java client against a 3-server cluster (docs/java.md): hbase:meta names each
region's owner, so the client talks to owners directly, through any member's ZooKeeper
endpoint or RPC registry; a region moved away from a server is answered there with
NotServingRegionException, and the client looks again and carries on: through a region
move and a kill -9 of an owner it loses no acknowledged write."""

import os
import subprocess
import threading
import time

import pytest

from harness import Cluster, REPO_ROOT
from test_failover import owners_of
from test_moves import encoded_regions, shell

# What differs in cluster mode: finding owners, admin carried to the master, regions moving.
# The namespace and mutator groups run standalone in scripts/test (the mutator's 10,000 rows
# cost half a minute here on a loaded machine); the churn test below writes under a move and
# a failover.
GROUPS = "connect,admin,data,scan,atomic,filter,regions"


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(name="hn%d" % os.getpid())
    try:
        for _ in range(3):
            c.start_server()
        yield c
    finally:
        c.stop()


SCRIPT = os.path.join(REPO_ROOT, "scripts", "hbase-native-test")


def native(*args):
    out = subprocess.run([SCRIPT, *args], capture_output=True, text=True, timeout=600)
    failures = [line for line in out.stdout.splitlines() if line.startswith("FAIL")]
    assert out.returncode == 0, "\n".join(failures) or out.stdout[-4000:] + out.stderr[-2000:]
    return out.stdout


def test_java_checks_pass_through_one_members_zookeeper(cluster):
    out = native("--zk", "127.0.0.1:%d" % cluster.servers[0].zookeeper, "--only", GROUPS)
    assert " 0 failed" in out


# The discovery is what differs from the run above: the groups that find the servers and
# read and write through them are enough.
def test_java_checks_pass_through_another_members_rpc_registry(cluster):
    out = native("--bootstrap", "127.0.0.1:%d" % cluster.servers[1].hbase,
                 "--only", "connect,data,scan")
    assert " 0 failed" in out


class ChurnRun:
    """scripts/hbase-native-test --churn: Java writers on one Connection (tests/java/
    hbase-native Churn.java), their `churn:` lines followed as they come."""

    def __init__(self, zookeeper_port, stop_file):
        self.stop_file = stop_file
        self.proc = subprocess.Popen(
            [SCRIPT, "--zk", "127.0.0.1:%d" % zookeeper_port, "--churn", stop_file],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def table(self, timeout=90):
        line = self._wait(lambda l: l.startswith("churn: table "), timeout, "the table")
        return line.split()[-1]

    def acked(self):
        """Acknowledged writes per region, from the latest report."""
        reports = [l for l in self.lines if l.startswith("churn: acked ")]
        if not reports:
            return None
        words = reports[-1].split()
        return [int(n) for n in words[4:8]]

    def wait_for_writes_to_every_region(self, beyond, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            acked = self.acked()
            if acked and all(n >= b + 20 for n, b in zip(acked, beyond)):
                return acked
            assert self.proc.poll() is None, "churn ended early:\n" + self.tail()
            time.sleep(0.2)
        raise AssertionError("every region took no writes %s within %d s (acked %s, before %s)"
                             ":\n%s" % (what, timeout, self.acked(), beyond, self.tail()))

    def finish(self, timeout=240):
        open(self.stop_file, "w").close()
        self.proc.wait(timeout=timeout)
        time.sleep(0.2)
        return self.proc.returncode

    def tail(self):
        return "\n".join(self.lines[-30:])

    def _wait(self, match, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [l for l in self.lines if match(l)]
            if found:
                return found[0]
            assert self.proc.poll() is None, "churn ended before %s:\n%s" % (what, self.tail())
            time.sleep(0.1)
        raise AssertionError("no %s within %d s:\n%s" % (what, timeout, self.tail()))


# Last in this module: it kills a server of the module's cluster.
def test_java_writes_ride_out_a_move_and_a_kill9_of_an_owner(cluster, tmp_path):
    entry = cluster.servers[0]
    churn = ChurnRun(entry.zookeeper, str(tmp_path / "stop"))
    try:
        table = churn.table()
        start = churn.wait_for_writes_to_every_region([0] * 4, 60, "at first")
        master = cluster.wait_for_master()
        names = encoded_regions(master.thrift, table)
        assert len(names) == 4, names
        out = shell(master.thrift, "move '%s'" % sorted(names.values())[1])
        assert "moved to" in out, out
        moved = churn.wait_for_writes_to_every_region(start, 30, "after the move")
        counts = owners_of(cluster, table)
        owners = [s for s in cluster.servers[1:] if s.proc.poll() is None and s.sid in counts]
        assert owners, "no server but the client's entry point owns a region: %s" % counts
        victim = max(owners, key=lambda s: (s is not master, counts[s.sid]))
        cluster.kill9(victim)
        churn.wait_for_writes_to_every_region(moved, 60, "after the kill -9")
    finally:
        status = churn.finish()
    report = churn.tail()
    assert status == 0, report
    assert ", 0 missing" in report, report
