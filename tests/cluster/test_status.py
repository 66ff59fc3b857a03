"""The shell's `status` on a three-server cluster counts every live server (issue 26): the
master, two backup masters (every live server campaigns), no dead ones; through any
server, since each follows the same directory."""

import os
import re
import time

import pytest

from harness import Cluster
from test_moves import shell


@pytest.fixture
def cluster():
    c = Cluster(name="st%d" % os.getpid())
    try:
        yield c
    finally:
        c.stop()


def summary(port):
    first = shell(port, "status").splitlines()[0]
    m = re.match(r"(\d+) active master, (\d+) backup masters, (\d+) servers, (\d+) dead", first)
    assert m, first
    return tuple(int(g) for g in m.groups())


def wait_for_summary(port, wanted, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        got = summary(port)
        if got == wanted or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_status_counts_every_live_server(cluster):
    master = cluster.start_server(wait_for="acting as master")
    others = [cluster.start_server(), cluster.start_server()]
    for server in [master] + others:
        assert wait_for_summary(server.thrift, (1, 2, 3, 0)) == (1, 2, 3, 0), server.sid
