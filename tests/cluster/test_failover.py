"""Cluster mode with real processes (docs/cluster.md): kill -9 of the master under 8
writers, a paused (SIGSTOP) master that wakes up after being replaced, and the killing of a
master in the middle of its takeover. Every acknowledged write must survive, and a
replaced master must acknowledge nothing and serve no read."""

import os
import signal
import subprocess
import time

import happybase
import pytest

from harness import Cluster, binary
from writers import SPLITS, Writers, missing_rows

KILLS = int(os.environ.get("STRATA_CLUSTER_KILLS", "3"))
FAILOVER_TARGET_S = 5.0


@pytest.fixture
def cluster():
    c = Cluster(name="t%d" % os.getpid())
    try:
        yield c
    finally:
        c.stop()


def create_split_table(port, name):
    """A table of four regions (split at SPLITS), through the shell over Thrift."""
    splits = ", ".join("'%s'" % k.decode() for k in SPLITS)
    subprocess.run([binary(), "shell", "--port", str(port), "-e",
                    "create '%s', 'cf', SPLITS => [%s]" % (name, splits)],
                   check=True, capture_output=True, timeout=60)


def owners_of(cluster, table):
    """sid -> number of `table`'s regions it serves now."""
    counts = {}
    for region in cluster.status()["regions"]:
        if region["table"] == table and region.get("owner"):
            counts[region["owner"]] = counts.get(region["owner"], 0) + 1
    return counts


def test_kill9_of_the_server_owning_most_regions_under_8_writers_loses_nothing(cluster):
    """A region server that is not master dies: its regions are reassigned and replay
    their sections of its WAL stream; the master (the clients' router) holds their
    writes meanwhile, so the writers see no error and lose nothing."""
    first = cluster.start_server(wait_for="acting as master")
    for _ in range(2):
        cluster.start_server()
    create_split_table(first.thrift, "t")
    durations, acked = [], {}
    for round_ in range(KILLS):
        master = cluster.wait_for_master()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and sum(owners_of(cluster, "t").values()) < 4:
            time.sleep(0.05)
        counts = owners_of(cluster, "t")
        others = [s for s in cluster.standbys() if s.sid in counts] or cluster.standbys()
        victim = max(others, key=lambda s: counts.get(s.sid, 0))
        print("\nround %d: killing %s, serving %d of the 4 regions" % (
            round_, victim.sid, counts.get(victim.sid, 0)))
        writers = Writers(master.thrift, "t")
        writers.start()
        time.sleep(1.0)
        errors_before = writers.errors
        t0 = time.monotonic()
        cluster.kill9(victim)
        dead = time.monotonic()
        deadline = time.monotonic() + 15
        while (time.monotonic() < deadline
               and len(writers.first_ack_per_region_after(t0, dead)) < 4):
            time.sleep(0.05)
        time.sleep(0.5)
        writers.stop()
        first_acks = writers.first_ack_per_region_after(t0, dead)
        assert len(first_acks) == 4, "regions without a write after the kill: %r" % first_acks
        assert writers.errors == errors_before, (
            "the router must hold writes, not fail them: %r" % writers.error_messages)
        durations.append(max(first_acks.values()))
        acked.update(writers.acked)
        lost = missing_rows(master.thrift, "t", acked)
        assert not lost, "round %d: %d acknowledged rows lost, e.g. %r" % (
            round_, len(lost), lost[:5])
        cluster.start_server()
    print("\nregion server failover (kill -9 to the first acknowledged write on every region), "
          "s: %s" % ", ".join("%.2f" % d for d in durations))
    assert max(durations) < FAILOVER_TARGET_S, durations


def test_kill9_of_the_master_under_8_writers_loses_no_acknowledged_write(cluster):
    first = cluster.start_server(wait_for="acting as master")
    for _ in range(2):
        cluster.start_server()
    create_split_table(first.thrift, "t")
    durations = []
    acked = {}
    for round_ in range(KILLS):
        master = cluster.wait_for_master()
        # Write through a standby that stays up: one address for the client.
        endpoint = cluster.standbys()[0]
        writers = Writers(endpoint.thrift, "t")
        writers.start()
        time.sleep(1.0)
        t0 = time.monotonic()
        cluster.kill9(master)
        new_master = cluster.wait_for_master(other_than=master)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and len(writers.first_ack_per_region_after(t0)) < 4:
            time.sleep(0.05)
        time.sleep(0.5)
        writers.stop()
        first_acks = writers.first_ack_per_region_after(t0)
        assert len(first_acks) == 4, "regions without a write after the kill: %r" % first_acks
        durations.append(max(first_acks.values()))
        acked.update(writers.acked)
        lost = missing_rows(new_master.thrift, "t", acked)
        assert not lost, "round %d: %d acknowledged rows lost, e.g. %r" % (
            round_, len(lost), lost[:5])
        cluster.start_server()  # the killed one comes back as a standby
    print("\nfailover (kill -9 to the first acknowledged write on every region), s: %s" %
          ", ".join("%.2f" % d for d in durations))
    assert max(durations) < FAILOVER_TARGET_S, durations


def test_a_paused_master_acknowledges_nothing_and_serves_no_read_after_it_was_replaced(cluster):
    first = cluster.start_server(wait_for="acting as master")
    cluster.start_server()
    create_split_table(first.thrift, "z")
    conn = happybase.Connection("127.0.0.1", port=first.thrift, timeout=10_000)
    table = conn.table("z")
    table.put(b"before", {b"cf:q": b"1"})
    first.proc.send_signal(signal.SIGSTOP)
    try:
        new_master = cluster.wait_for_master(other_than=first)
        # The new master serves, and its data includes the acknowledged write.
        c2 = happybase.Connection("127.0.0.1", port=new_master.thrift)
        c2.table("z").put(b"after", {b"cf:q": b"2"})
        c2.close()
    finally:
        first.proc.send_signal(signal.SIGCONT)
    # The zombie's own connection: nothing is acknowledged, nothing is read.
    with pytest.raises(Exception):
        table.put(b"zombie", {b"cf:q": b"3"})
    with pytest.raises(Exception):
        table.row(b"before")
    first.proc.wait(timeout=15)
    assert first.proc.returncode != 0, "the replaced master must exit"
    c3 = happybase.Connection("127.0.0.1", port=new_master.thrift)
    rows = dict(c3.table("z").scan())
    c3.close()
    assert rows.get(b"before") == {b"cf:q": b"1"}
    assert rows.get(b"after") == {b"cf:q": b"2"}
    assert b"zombie" not in rows


def test_a_master_killed_during_its_takeover_is_replaced_and_nothing_is_lost(cluster):
    first = cluster.start_server(wait_for="acting as master")
    second = cluster.start_server()
    cluster.start_server()
    create_split_table(first.thrift, "m")
    conn = happybase.Connection("127.0.0.1", port=first.thrift)
    rows = {b"r%04d" % i: {b"cf:q": b"%d" % i} for i in range(300)}
    batch = conn.table("m").batch()
    for row, data in rows.items():
        batch.put(row, data)
    batch.send()
    conn.close()
    cluster.kill9(first)
    # Whoever is elected next is killed as soon as it says it is taking over.
    deadline = time.monotonic() + 20
    victim = None
    while victim is None and time.monotonic() < deadline:
        for s in cluster.servers[1:]:
            if s.proc.poll() is None and "elected master" in s.log():
                victim = s
        time.sleep(0.01)
    assert victim is not None, "no server was elected"
    cluster.kill9(victim)
    survivor = cluster.wait_for_master(other_than=victim)
    assert survivor is not victim and survivor is not first
    c = happybase.Connection("127.0.0.1", port=survivor.thrift)
    found = dict(c.table("m").scan())
    c.close()
    assert found == rows
    status = cluster.status()
    owners = {r["owner"] for r in status["regions"]}
    assert owners == {survivor.sid}, status


def test_with_etcd_unreachable_the_master_stops_acknowledging_then_service_resumes(cluster):
    first = cluster.start_server(wait_for="acting as master")
    cluster.start_server()
    create_split_table(first.thrift, "e")
    conn = happybase.Connection("127.0.0.1", port=first.thrift, timeout=10_000)
    conn.table("e").put(b"before", {b"cf:q": b"1"})
    conn.close()
    etcd_pid = int(cluster.etcd["ETCD_PID"])
    os.kill(etcd_pid, signal.SIGSTOP)
    try:
        time.sleep(2.5)  # past the master's own-clock lease deadline (TTL 2 s - 200 ms)
        conn = happybase.Connection("127.0.0.1", port=first.thrift, timeout=10_000)
        started = time.monotonic()
        with pytest.raises(Exception) as refused:
            conn.table("e").put(b"during", {b"cf:q": b"2"})
        assert time.monotonic() - started < 5, "a refused write must not hang"
        assert "lease" in str(refused.value) or "not serving" in str(refused.value), refused.value
        conn.close()
    finally:
        os.kill(etcd_pid, signal.SIGCONT)
    # Service resumes: the same servers (a keepalive got through before etcd expired their
    # leases), or new ones: a server whose lease etcd expired exits with status 3 (its
    # regions may be someone else's already), and its supervisor (here, this test) starts
    # it again.
    deadline = time.monotonic() + 20
    while True:
        cluster.restart_exited()
        try:
            master = cluster.wait_for_master(timeout=10)
            c = happybase.Connection("127.0.0.1", port=master.thrift, timeout=10_000)
            c.table("e").put(b"after", {b"cf:q": b"3"})
            rows = dict(c.table("e").scan())
            c.close()
            break
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    assert rows.get(b"before") == {b"cf:q": b"1"}
    assert rows.get(b"after") == {b"cf:q": b"3"}
    assert b"during" not in rows
