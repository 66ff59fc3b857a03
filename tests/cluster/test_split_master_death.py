"""A split whose master dies half way, with real processes (docs/cluster.md): the master
ends (a failpoint) just before the catalog names the daughters, or just after. Either way
the next master leaves the table whole: every row range served by exactly one open region
on a live server, no region owned twice, writes to the split range acknowledged again, no
client error and nothing acknowledged lost."""

import os
import time

import pytest

from harness import Cluster
from test_assign import wait_until
from test_failover import create_split_table
from test_moves import shell
from writers import Writers, missing_rows, region_of


@pytest.fixture
def cluster():
    c = Cluster(name="sp%d" % os.getpid())
    try:
        yield c
    finally:
        c.stop()


def table_regions(cluster, table):
    """The table's regions in row order, as the region directory lists them."""
    regions = [r for r in cluster.status()["regions"] if r["table"] == table]
    return sorted(regions, key=lambda r: r["start"])


def whole_and_served(regions, live_sids):
    """Whether the regions tile the row space (no gap, no overlap) and each is open on a
    live server."""
    if not regions or regions[0]["start"] != "" or regions[-1]["end"] != "":
        return False
    for left, right in zip(regions, regions[1:]):
        if left["end"] != right["start"]:
            return False
    return all(r["state"] == "open" and r.get("owner") in live_sids for r in regions)


@pytest.mark.parametrize("failpoint,daughters", [
    ("exit-before-regions-replaced", False),
    ("exit-after-regions-replaced", True),
])
def test_a_split_whose_master_died_leaves_the_table_whole(cluster, failpoint, daughters):
    master = cluster.start_server(wait_for="acting as master",
                                  env_extra={"STRATA_FAILPOINTS": failpoint})
    entry = cluster.start_server()
    third = cluster.start_server()
    create_split_table(master.thrift, "t")
    shell(master.thrift, "balance_switch false")
    writers = Writers(entry.thrift, "t")
    writers.start()
    time.sleep(1.5)
    try:
        # The region [n, t) holds the "p" writers' rows; it splits inside them.
        shell(master.thrift, "split 't', 'p-w4'")
    except Exception:
        pass  # the master exits in the middle of the command
    assert master.proc.wait(timeout=30) == 9, "the failpoint ends the master mid-split"
    died = time.monotonic()
    live = {entry.sid, third.sid}
    split_region = region_of(b"p")

    def settled():
        regions = table_regions(cluster, "t")
        return whole_and_served(regions, live) and len(regions) == (5 if daughters else 4)

    try:
        wait_until(settled, 40, "the table is whole again, served by live servers")
    except AssertionError as e:
        raise AssertionError("%s: %r" % (e, table_regions(cluster, "t")))
    wait_until(lambda: any(r == split_region and sent > died
                           for sent, _, r in writers.ack_times),
               30, "writes to the split range are acknowledged again")
    waited = time.monotonic() - died
    time.sleep(1.0)
    writers.stop()
    regions = table_regions(cluster, "t")
    assert whole_and_served(regions, live), regions
    starts = [r["start"] for r in regions]
    if daughters:
        assert "p-w4" in starts, starts
    else:
        assert "p-w4" not in starts, "the split did not commit: the parent is served"
    ids = [r["id"] for r in cluster.status()["regions"]]
    assert len(ids) == len(set(ids)), "a region listed twice: %r" % ids
    assert writers.errors == 0, "writes wait through the split and the failover"
    lost = missing_rows(entry.thrift, "t", writers.acked)
    assert not lost, "%d acknowledged rows lost, e.g. %r" % (len(lost), lost[:5])
    print("\n%s: the split range took writes again %.1f s after its master died"
          % (failpoint, waited))
