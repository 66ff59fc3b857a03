"""The balancer evens out load, not only region counts (docs/cluster.md): two busy regions
put on one server of two end up on different servers, the counts stay even, and the
writes to them never fail."""

import os
import time

import pytest

from harness import Cluster
from test_failover import create_split_table
from test_moves import encoded_regions, shell
from writers import Writers


@pytest.fixture
def cluster():
    c = Cluster(name="bl%d" % os.getpid())
    try:
        yield c
    finally:
        c.stop()


def owners(cluster):
    """Region start key -> owner, for table t."""
    return {r["start"]: r.get("owner") for r in cluster.status()["regions"]
            if r["table"] == "t" and r["state"] == "open"}


def test_two_busy_regions_on_one_server_are_spread_by_load(cluster):
    master = cluster.start_server(wait_for="acting as master")
    other = cluster.start_server()
    create_split_table(master.thrift, "t")  # regions at "", g, n, t
    shell(master.thrift, "balance_switch false")
    names = encoded_regions(master.thrift, "t")
    # The busy regions ("c..." rows in "", "j..." rows in "g") both on `other`, the idle
    # ones on the master: counts even (2 and 2), load all on one side.
    for start, target in (("", other), ("g", other), ("n", master), ("t", master)):
        shell(master.thrift, "move '%s', '%s'" % (names[start], target.sid))
    placed = owners(cluster)
    assert placed[""] == placed["g"] == other.sid, placed
    writers = Writers(other.thrift, "t", count=6, prefixes=b"cj")
    writers.start()
    shell(master.thrift, "balance_switch true")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = owners(cluster)
        settled = len(now) == 4 and None not in now.values()
        even = sorted(list(now.values()).count(sid) for sid in set(now.values())) == [2, 2]
        if settled and even and now[""] != now["g"]:
            break
        time.sleep(0.5)
    writers.stop()
    final = owners(cluster)
    log = master.log()
    print("\n".join(line for line in log.splitlines() if "region moved" in line or "for load" in line))
    assert final[""] != final["g"], "the busy regions stay together: %r" % final
    counts = {}
    for owner in final.values():
        counts[owner] = counts.get(owner, 0) + 1
    assert sorted(counts.values()) == [2, 2], final
    assert writers.errors == 0
    assert len(writers.acked) > 0
