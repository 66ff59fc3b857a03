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


def wait_until(predicate, timeout, what, state=None):
    """Polls `predicate` until it holds; else fails naming `what` and, if given, the last
    `state()` seen."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        if time.monotonic() >= deadline:
            detail = "; last seen: %r" % (state(),) if state else ""
            raise AssertionError("%s: not within %d s%s" % (what, timeout, detail))
        time.sleep(0.5)


def wait_for_figures(server, predicate, timeout, what):
    """The server's gc figures once `predicate` holds of them. Polled: the counters and
    the store are read at different moments, and the pass goes on meanwhile."""
    seen = {}

    def check():
        seen.update(gc_figures(server))
        return predicate(seen)

    wait_until(check, timeout, what, lambda: seen)
    return dict(seen)


def exposed(server, name):
    """The value of metric `name` in the server's /metrics exposition, or None."""
    url = "http://127.0.0.1:%d/metrics" % server.http
    with urllib.request.urlopen(url, timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith(name + " "):
                return int(float(line.split()[1]))
    return None


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
               "the compacted-away SSTables collected",
               lambda: sorted(store_objects(cluster, ".sst")))
    wait_until(lambda: len(manifests(cluster)) < before_manifests, 30,
               "replaced manifests collected (%d before)" % before_manifests,
               lambda: sorted(manifests(cluster)))
    # Deletions are counted as they happen, but the figures are read a moment after the
    # store, over HTTP: poll them too.
    figures = wait_for_figures(
        master,
        lambda f: f["strata_gc_deleted_objects_total"] >= before_ssts - 4
        and f["strata_gc_deleted_bytes_total"] > 0,
        30, "at least %d deletions counted" % (before_ssts - 4))
    assert gc_figures(other)["strata_gc_passes_total"] == 0, "only the master collects"
    # /metrics shows the same counter (read later, so at least as far along).
    metric = exposed(master, "strata_gc_deleted_objects_total")
    assert metric is not None and metric >= figures["strata_gc_deleted_objects_total"], (
        metric, figures)
    read_all(other.thrift, rows)
    read_all(master.thrift, rows)
    # Logged when the pass that deleted ends, which may be after the objects are gone.
    wait_until(lambda: "garbage collected" in master.log(), 30,
               "the master's log says it collected")

    # Every server stops and starts again: everything reads back from what is left.
    for server in list(cluster.servers):
        server.proc.terminate()
        server.proc.wait(timeout=30)
        cluster.servers.remove(server)
    first = cluster.start_server(wait_for="acting as master")
    cluster.start_server()
    read_all(first.thrift, rows)
    # And the next master's passes keep it so (its own first-seen clock starts over):
    # passes (a second apart at least) until well past the minimum age.
    passes = 2 * MIN_AGE_S + 2
    wait_for_figures(first, lambda f: f["strata_gc_passes_total"] >= passes, 90,
                     "%d passes of the new master" % passes)
    read_all(first.thrift, rows)
