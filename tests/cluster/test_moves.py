"""Moves and the balancer with real processes (docs/cluster.md): a region moved by the
shell's `move` under 8 writers pauses its writes for milliseconds and loses nothing, and a
server added to a running cluster gets regions from the balancer."""

import os
import subprocess
import time

import pytest

from harness import Cluster, binary
from test_failover import create_split_table, owners_of
from writers import SPLITS, Writers, missing_rows, region_of


@pytest.fixture
def cluster():
    c = Cluster(name="mv%d" % os.getpid())
    try:
        yield c
    finally:
        c.stop()


def shell(port, command):
    out = subprocess.run([binary(), "shell", "--port", str(port), "-e", command],
                         check=True, capture_output=True, text=True, timeout=60)
    return out.stdout


def encoded_regions(port, table):
    """Region start key -> encoded name, from `list_regions`."""
    names = {}
    for line in shell(port, "list_regions '%s'" % table).splitlines()[1:]:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) >= 3 and len(cells[1]) == 32:
            names[cells[2]] = cells[1]
    return names


def largest_gap(ack_times, region, start, end):
    """The longest time between two acknowledged writes of `region` within [start, end]."""
    times = sorted(when for sent, when, r in ack_times if r == region and start <= when <= end)
    return max((b - a for a, b in zip(times, times[1:])), default=None)


def test_moves_under_8_writers_pause_writes_briefly_and_lose_nothing(cluster):
    master = cluster.start_server(wait_for="acting as master")
    cluster.start_server()
    cluster.start_server()
    create_split_table(master.thrift, "t")
    shell(master.thrift, "balance_switch false")  # only the moves below
    names = encoded_regions(master.thrift, "t")
    assert len(names) == 4, names
    writers = Writers(master.thrift, "t")
    writers.start()
    time.sleep(1.5)
    # Without moves: the longest gap between acknowledgements of any region in 1 s.
    now = time.monotonic()
    baseline = max(largest_gap(writers.ack_times, r, now - 1.0, now) or 0 for r in range(4))
    pauses = []
    for round_ in range(3):
        for start_key, name in sorted(names.items()):
            region = region_of(start_key.encode())
            before = time.monotonic()
            out = shell(master.thrift, "move '%s'" % name)
            after = time.monotonic()
            assert "moved to" in out, out
            # Until the region acknowledged a write after the move (a loaded machine can
            # stall the writers for a moment; 5 s without one is a failure).
            deadline = time.monotonic() + 5
            acked_after = None
            while acked_after is None and time.monotonic() < deadline:
                time.sleep(0.1)
                acked_after = min((when for _, when, r in list(writers.ack_times)
                                   if r == region and when > after), default=None)
            assert acked_after is not None, "no write to region %d after its move" % region
            gap = largest_gap(writers.ack_times, region, before - 0.2, acked_after)
            assert gap is not None, "no write to region %d around its move" % region
            pauses.append(gap)
    time.sleep(0.5)
    writers.stop()
    assert writers.errors == 0, "a move must hold writes, not fail them"
    lost = missing_rows(master.thrift, "t", writers.acked)
    assert not lost, "%d acknowledged rows lost, e.g. %r" % (len(lost), lost[:5])
    pauses.sort()
    print("\nwrite pause of a moved region (longest gap between acknowledgements), ms: "
          "median %.0f, max %.0f over %d moves; without moves %.0f" % (
              1000 * pauses[len(pauses) // 2], 1000 * pauses[-1], len(pauses),
              1000 * baseline))
    assert pauses[-1] < 1.0, pauses


def test_a_server_added_to_a_running_cluster_gets_regions(cluster):
    master = cluster.start_server(wait_for="acting as master")
    cluster.start_server()
    create_split_table(master.thrift, "t")
    extra_splits = ", ".join("'%s%s'" % (k.decode(), s) for k in SPLITS for s in ("a", "m"))
    shell(master.thrift, "create 'u', 'cf', SPLITS => [%s]" % extra_splits)
    writers = Writers(master.thrift, "t")
    writers.start()
    time.sleep(0.5)
    added = cluster.start_server()

    def counts():
        both = owners_of(cluster, "t")
        for sid, n in owners_of(cluster, "u").items():
            both[sid] = both.get(sid, 0) + n
        return both

    # 11 regions over 3 servers: balanced is 4, 4, 3 in some order.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and counts().get(added.sid, 0) < 3:
        time.sleep(0.2)
    writers.stop()
    final = counts()
    assert final.get(added.sid, 0) >= 3, final
    assert max(final.values()) - min(final.values()) <= 1, final
    assert writers.errors == 0
    lost = missing_rows(master.thrift, "t", writers.acked)
    assert not lost, lost[:5]


def test_a_rolling_restart_through_decommission_shows_clients_no_error(cluster):
    """Every server but the master (the clients' entry, docs/cluster.md) is decommissioned,
    stopped and replaced in turn under 8 writers: its regions move off first, so no write
    fails and none is lost."""
    master = cluster.start_server(wait_for="acting as master")
    others = [cluster.start_server(), cluster.start_server()]
    create_split_table(master.thrift, "t")
    writers = Writers(master.thrift, "t")
    writers.start()
    time.sleep(1.0)
    for server in others:
        out = shell(master.thrift, "decommission_regionservers '%s'" % server.sid)
        assert "moved off" in out, out
        assert server.sid not in owners_of(cluster, "t")
        assert server.sid in shell(master.thrift, "list_decommissioned_regionservers")
        server.proc.terminate()
        server.proc.wait(timeout=30)
        replacement = cluster.start_server()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and replacement.sid not in owners_of(cluster, "t"):
            time.sleep(0.2)
        assert replacement.sid in owners_of(cluster, "t"), owners_of(cluster, "t")
    time.sleep(0.5)
    writers.stop()
    assert writers.errors == 0, "a rolling restart must not fail client writes"
    lost = missing_rows(master.thrift, "t", writers.acked)
    assert not lost, lost[:5]


def test_a_region_another_server_serves_splits_under_8_writers(cluster):
    """Regions split where the catalog is written: `split` of a region a server other
    than the master serves brings it to the master first; nothing is lost meanwhile."""
    master = cluster.start_server(wait_for="acting as master")
    other = cluster.start_server()
    shell(master.thrift, "balance_switch false")
    shell(master.thrift, "create 's', 'cf'")
    (name,) = encoded_regions(master.thrift, "s").values()
    shell(master.thrift, "move '%s', '%s'" % (name, other.sid))
    assert owners_of(cluster, "s") == {other.sid: 1}
    writers = Writers(master.thrift, "s")
    writers.start()
    time.sleep(1.0)
    shell(master.thrift, "split 's', 'n'")
    time.sleep(1.0)
    writers.stop()
    assert len(encoded_regions(master.thrift, "s")) == 2
    assert writers.errors == 0
    lost = missing_rows(master.thrift, "s", writers.acked)
    assert not lost, lost[:5]


def test_a_region_that_outgrows_its_size_on_another_server_is_split_by_the_master():
    cluster = Cluster(name="sp%d" % os.getpid(), extra_config="[engine]\nsplit_initial_mb = 1\n")
    try:
        master = cluster.start_server(wait_for="acting as master")
        other = cluster.start_server()
        shell(master.thrift, "balance_switch false")
        shell(master.thrift, "create 'a', 'cf'")
        (name,) = encoded_regions(master.thrift, "a").values()
        shell(master.thrift, "move '%s', '%s'" % (name, other.sid))
        writers = Writers(master.thrift, "a", value_bytes=4096)
        writers.start()
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and len(encoded_regions(master.thrift, "a")) < 2:
            time.sleep(0.5)
        writers.stop()
        assert len(encoded_regions(master.thrift, "a")) >= 2, "the region never split"
        assert writers.errors == 0
        lost = missing_rows(master.thrift, "a", writers.acked)
        assert not lost, lost[:5]
    finally:
        cluster.stop()
