"""HBase's Java client against a 3-server cluster (docs/java.md): hbase:meta names each
region's owner, so the client talks to owners directly, through any member's ZooKeeper
endpoint or RPC registry; a region moved away from a server is answered there with
NotServingRegionException, and the client looks again and carries on."""

import os
import subprocess

import pytest

from harness import Cluster, REPO_ROOT

GROUPS = "connect,admin,data,scan,mutator,atomic,filter"


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(name="hn%d" % os.getpid())
    try:
        for _ in range(3):
            c.start_server()
        yield c
    finally:
        c.stop()


def native(*args):
    script = os.path.join(REPO_ROOT, "scripts", "hbase-native-test")
    out = subprocess.run([script, *args], capture_output=True, text=True, timeout=600)
    failures = [line for line in out.stdout.splitlines() if line.startswith("FAIL")]
    assert out.returncode == 0, "\n".join(failures) or out.stdout[-4000:] + out.stderr[-2000:]
    return out.stdout


def test_java_checks_pass_through_one_members_zookeeper(cluster):
    out = native("--zk", "127.0.0.1:%d" % cluster.servers[0].zookeeper, "--only", GROUPS)
    assert " 0 failed" in out


def test_java_checks_pass_through_another_members_rpc_registry(cluster):
    out = native("--bootstrap", "127.0.0.1:%d" % cluster.servers[1].hbase, "--only", GROUPS)
    assert " 0 failed" in out
