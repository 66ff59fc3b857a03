"""happybase's and the Bigtable client's compatibility suites against a 3-server cluster,
through the endpoint of a server that is not master (it routes data requests to the
regions' owners and sends administration to the master)."""

import json
import os
import urllib.request
import subprocess
import sys

from harness import REPO_ROOT, Cluster
from test_assign import wait_until
from test_failover import create_split_table
from test_gc import exposed


def run_suite(path, env):
    result = subprocess.run([sys.executable, "-m", "pytest", path, "-q", "-p", "no:cacheprovider"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    tail = "\n".join(result.stdout.splitlines()[-15:])
    assert result.returncode == 0, "%s failed through the cluster:\n%s\n%s" % (
        path, tail, result.stderr[-2000:])
    return tail


def only_live_tables_listed(cluster):
    """Whether the region directory lists only the table "spread": the suites' dropped
    tables' regions are removed by the master."""
    regions = cluster.status()["regions"]
    return bool(regions) and all(r["table"] == "default:spread" or r["table"] == "spread"
                                 for r in regions)


def check_status_pages(cluster, endpoint):
    """The master's status pages, reached through a standby's HTTP port, show the cluster
    as `strata cluster status` does."""
    create_split_table(endpoint.thrift, "spread")
    wait_until(lambda: only_live_tables_listed(cluster), 20,
               "the dropped tables' regions leave the directory")
    base = "http://127.0.0.1:%d" % endpoint.http
    with urllib.request.urlopen(base + "/api/v1/cluster", timeout=10) as r:
        status = json.load(r)
    expected = cluster.status()
    assert status["master"] == expected["master"]
    assert {s["sid"] for s in status["servers"]} == {s["sid"] for s in expected["servers"]}
    assert len(status["servers"]) == 3
    # The table's four regions are spread over more than one server.
    live = {s["sid"] for s in expected["servers"]}
    owners = {r.get("owner") for r in status["regions"] if r.get("owner") in live}
    assert len(owners) >= 2, status["regions"][:5]
    with urllib.request.urlopen(base + "/ui/cluster", timeout=10) as r:
        page = r.read().decode()
    assert expected["master"] in page and "Regions" in page


def test_compatibility_suites_pass_through_one_endpoint_of_a_3_server_cluster():
    cluster = Cluster(name="compat%d" % os.getpid())
    try:
        cluster.start_server(wait_for="acting as master")
        endpoint = cluster.start_server()
        cluster.start_server()
        env = dict(os.environ)
        env.update({
            "STRATA_COMPAT_SERVER": "127.0.0.1:%d" % endpoint.thrift,
            "STRATA_COMPAT_FLAVOR": "strata",
            "STRATA_BIGTABLE_SERVER": "127.0.0.1:%d" % endpoint.grpc,
            "STRATA_BIGTABLE_THRIFT_PORT": str(endpoint.thrift),
        })
        print(run_suite("tests/compat", env))
        print(run_suite("tests/bigtable", env))
        check_status_pages(cluster, endpoint)
        # The endpoint forwarded the suites' reads and writes, and never from an async
        # worker: a one-row read whose region is elsewhere leaves the connection's task.
        for server in cluster.servers:
            calls = exposed(server, "strata_peer_calls_on_async_workers_total")
            assert calls == 0, "server %d: %s peer calls on async workers" % (server.index, calls)
    finally:
        cluster.stop()
