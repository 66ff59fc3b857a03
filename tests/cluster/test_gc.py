"""The master's garbage collector with real processes (docs/cluster.md, RFC 0009): after
flushes and a major compaction the objects the compaction replaced leave the store once
they are old enough, every row stays readable, and a restart of every server reads
everything back from what is left."""

import json
import os
import time
import urllib.request

import happybase
import pytest

from harness import Cluster
from test_failover import create_split_table
from test_moves import shell

MIN_AGE_S = 5

# The test counts objects in S3Proxy's data directory; MinIO's on-disk layout is its own.
pytestmark = pytest.mark.skipif(
    os.environ.get("STRATA_CLUSTER_S3", "s3proxy") != "s3proxy",
    reason="counts objects in S3Proxy's filesystem backend")


@pytest.fixture
def cluster():
    c = Cluster(name="gc%d" % os.getpid(),
                extra_config="gc_interval_s = 1\ngc_min_age_s = %d\n" % MIN_AGE_S)
    try:
        yield c
    finally:
        c.stop()


def store_objects(cluster, suffix):
    """Keys under the store's data/ (S3Proxy's filesystem backend is a directory)."""
    root = os.path.join(cluster.s3["S3PROXY_DIR"], "data", "strata-test", "strata", "data")
    found = []
    for dirpath, _, names in os.walk(root):
        found.extend(os.path.join(dirpath, n) for n in names if n.endswith(suffix))
    return found


def manifests(cluster):
    return [p for p in store_objects(cluster, "") if "/MANIFEST-" in p]


def gc_figures(server):
    url = "http://127.0.0.1:%d/api/v1/cluster" % server.http
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)["gc"]


def read_all(port, rows):
    conn = happybase.Connection("127.0.0.1", port=port, timeout=20_000)
    table = conn.table("t")
    got = {row: data[b"cf:q"] for row, data in table.scan()}
    conn.close()
    assert got == rows, "rows missing or wrong: %d of %d" % (len(got), len(rows))


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise AssertionError("%s: not within %d s" % (what, timeout))


def test_compacted_away_objects_are_collected_and_everything_reads_back(cluster):
    master = cluster.start_server(wait_for="acting as master")
    other = cluster.start_server()
    create_split_table(master.thrift, "t")
    conn = happybase.Connection("127.0.0.1", port=other.thrift, timeout=20_000)
    table = conn.table("t")
    rows = {}
    for round_ in range(3):
        for i in range(40):
            row = b"%c%03d" % (b"bhov"[i % 4], i)
            value = b"v%d-%d" % (round_, i)
            table.put(row, {b"cf:q": value})
            rows[row] = value
        shell(master.thrift, "flush 't'")
    conn.close()
    before_ssts = len(store_objects(cluster, ".sst"))
    before_manifests = len(manifests(cluster))
    assert before_ssts >= 12, before_ssts  # 3 flushes of 4 regions
    shell(master.thrift, "major_compact 't'")
    # One SSTable per region is live after the compaction; the rest goes once older than
    # the minimum age and seen as garbage that long.
    wait_until(lambda: len(store_objects(cluster, ".sst")) <= 4, 60,
               "the compacted-away SSTables collected")
    assert len(manifests(cluster)) < before_manifests
    figures = gc_figures(master)
    assert figures["strata_gc_deleted_objects_total"] >= before_ssts - 4, figures
    assert figures["strata_gc_deleted_bytes_total"] > 0, figures
    assert gc_figures(other)["strata_gc_passes_total"] == 0, "only the master collects"
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % master.http, timeout=10) as m:
        exposition = m.read().decode()
    deleted = "strata_gc_deleted_objects_total %d" % figures["strata_gc_deleted_objects_total"]
    assert deleted in exposition or "strata_gc_deleted_objects_total " in exposition, exposition[-2000:]
    read_all(other.thrift, rows)
    read_all(master.thrift, rows)
    assert "garbage collected" in master.log()

    # Every server stops and starts again: everything reads back from what is left.
    for server in list(cluster.servers):
        server.proc.terminate()
        server.proc.wait(timeout=30)
        cluster.servers.remove(server)
    first = cluster.start_server(wait_for="acting as master")
    cluster.start_server()
    read_all(first.thrift, rows)
    # And the next master's passes keep it so (its own first-seen clock starts over).
    time.sleep(MIN_AGE_S * 2 + 2)
    read_all(first.thrift, rows)
