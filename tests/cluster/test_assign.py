"""HBase's `unassign` and `assign` with real processes, and a move whose master dies
half way (docs/cluster.md): a closed region stays closed until assigned, its writes wait
and then complete; a region its owner released for a move when the master died is
assigned again by the next master, and nothing is lost."""

import os
import threading
import time

import happybase
import pytest

from harness import Cluster
from test_failover import create_split_table
from test_moves import encoded_regions, shell
from writers import Writers, missing_rows, region_of


@pytest.fixture
def cluster():
    c = Cluster(name="as%d" % os.getpid())
    try:
        yield c
    finally:
        c.stop()


def region_record(cluster, table, start):
    for region in cluster.status()["regions"]:
        if region["table"] == table and region["start"] == start:
            return region
    raise AssertionError("no region of %s starting at %r" % (table, start))


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("%s: not within %d s" % (what, timeout))


def test_an_unassigned_region_stays_closed_until_assigned_and_its_writes_wait(cluster):
    master = cluster.start_server(wait_for="acting as master")
    other = cluster.start_server()
    create_split_table(master.thrift, "t")
    shell(master.thrift, "balance_switch false")
    conn = happybase.Connection("127.0.0.1", port=other.thrift, timeout=20_000)
    table = conn.table("t")
    rows = {b"a%d" % i: b"v%d" % i for i in range(20)}
    rows.update({b"p%d" % i: b"v%d" % i for i in range(20)})
    for row, value in rows.items():
        table.put(row, {b"cf:q": value})
    # getTableRegions names each region's owner and its Thrift port, through any server.
    thrift_port = {s.sid: s.thrift for s in (master, other)}
    owner_of = {r["start"]: r["owner"] for r in cluster.status()["regions"] if r["table"] == "t"}
    for located in table.regions():
        start = located["start_key"].decode()
        assert located["port"] == thrift_port[owner_of[start]], (located, owner_of)
        host = located["server_name"]
        host = host.decode() if isinstance(host, bytes) else host
        assert host == "127.0.0.1", located  # every server advertises its listen address
    # The region of "p..." rows (start "n"), closed through the server that is not master.
    name = encoded_regions(other.thrift, "t")["n"]
    shell(other.thrift, "unassign '%s'" % name)
    closed = region_record(cluster, "t", "n")
    assert closed["state"] == "closed" and not closed.get("owner"), closed
    time.sleep(1.5)  # the master leaves it closed
    assert region_record(cluster, "t", "n")["state"] == "closed"
    assert region_record(cluster, "t", "")["state"] == "open"
    assert table.row(b"a3") == {b"cf:q": b"v3"}  # other regions serve on
    done = {}

    def late_put():
        late = happybase.Connection("127.0.0.1", port=other.thrift, timeout=20_000)
        late.table("t").put(b"p-late", {b"cf:q": b"late"})
        done["at"] = time.monotonic()

    writer = threading.Thread(target=late_put, daemon=True)
    writer.start()
    time.sleep(1.0)
    assert "at" not in done, "a write to a closed region must wait"
    out = shell(master.thrift, "assign '%s'" % name)
    assert "assigned to" in out, out
    writer.join(timeout=20)
    assert "at" in done, "the waiting write completes once the region is assigned"
    opened = region_record(cluster, "t", "n")
    assert opened["state"] == "open" and opened.get("owner"), opened
    assert table.row(b"p-late") == {b"cf:q": b"late"}
    for row, value in rows.items():
        assert table.row(row) == {b"cf:q": value}, row
    # Assigning a served region leaves it where it is.
    again = shell(master.thrift, "assign '%s'" % name)
    assert opened["owner"] in again, again


def test_a_move_whose_master_died_after_the_release_is_finished_by_the_next_master(cluster):
    master = cluster.start_server(
        wait_for="acting as master",
        env_extra={"STRATA_FAILPOINTS": "master-exit-after-release"})
    entry = cluster.start_server()
    cluster.start_server()
    create_split_table(master.thrift, "t")
    shell(master.thrift, "balance_switch false")
    names = encoded_regions(master.thrift, "t")
    # A region the dying master does not serve itself: only the move leaves it unserved.
    moved = next(r for r in cluster.status()["regions"]
                 if r["table"] == "t" and r.get("owner") not in (None, master.sid))
    writers = Writers(entry.thrift, "t")
    writers.start()
    time.sleep(1.0)
    try:
        shell(master.thrift, "move '%s'" % names[moved["start"]])
    except Exception:
        pass  # the master exits in the middle of the command
    assert master.proc.wait(timeout=10) == 9, "the failpoint ends the master after the release"
    started = time.monotonic()
    region = region_of(moved["start"].encode())

    def served_again():
        record = region_record(cluster, "t", moved["start"])
        return record["state"] == "open" and record.get("owner") not in (None, master.sid)

    wait_until(served_again, 30, "the released region is assigned again")
    wait_until(lambda: any(r == region and sent > started for sent, _, r in writers.ack_times),
               30, "writes to the released region are acknowledged again")
    waited = time.monotonic() - started
    time.sleep(0.5)
    writers.stop()
    assert writers.errors == 0, "writes to the released region wait, they do not fail"
    lost = missing_rows(entry.thrift, "t", writers.acked)
    assert not lost, "%d acknowledged rows lost, e.g. %r" % (len(lost), lost[:5])
    print("\nreleased region served again %.1f s after its master died" % waited)
    assert waited < 10, waited
