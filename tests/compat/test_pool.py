"""happybase's ConnectionPool and Connection options against the server: many connections at
once, reuse, exhaustion, recovery after a server-side error, and connection lifecycle."""

import threading

import happybase
import pytest

import Hbase_thrift
from conftest import SOCKET_TIMEOUT_MS


def _pool(server, size, **kwargs):
    transport, protocol = server.default_combo.split("-")
    return happybase.ConnectionPool(
        size, host=server.host, port=server.port, transport=transport, protocol=protocol,
        timeout=SOCKET_TIMEOUT_MS, **kwargs
    )


def test_pool_connections_work_and_are_reused(server, make_table):
    t = make_table({"cf": {}})
    pool = _pool(server, 2)
    with pool.connection() as c1:
        c1.table(t.name).put(b"r", {b"cf:a": b"1"})
        first = c1
    with pool.connection() as c2:
        assert c2.table(t.name).row(b"r") == {b"cf:a": b"1"}
        assert c2 is first, "a returned connection is handed out again"


def test_many_threads_share_a_pool(server, make_table):
    t = make_table({"cf": {}})
    pool = _pool(server, 4)
    errors = []

    def work(n):
        try:
            for i in range(25):
                with pool.connection() as c:
                    c.table(t.name).put(b"t%d-%02d" % (n, i), {b"cf:a": b"%d" % i})
        except Exception as e:  # collected and asserted below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    with pool.connection() as c:
        assert len(list(c.table(t.name).scan())) == 8 * 25


def test_exhausted_pool_times_out(server):
    # Within one thread a nested request reuses that thread's connection, so the second
    # request comes from another thread.
    pool = _pool(server, 1)
    outcome = []

    def second_request():
        try:
            with pool.connection(timeout=0.1):
                outcome.append("got one")
        except happybase.NoConnectionsAvailable:
            outcome.append("timed out")

    with pool.connection():
        th = threading.Thread(target=second_request)
        th.start()
        th.join()
    assert outcome == ["timed out"]


def test_pool_connection_survives_a_server_error(server, make_table):
    t = make_table({"cf": {}})
    pool = _pool(server, 1)
    with pytest.raises(Hbase_thrift.IOError):
        with pool.connection() as c:
            c.table(t.name).put(b"r", {b"nofam:a": b"v"})
    with pool.connection() as c:
        c.table(t.name).put(b"r", {b"cf:a": b"ok"})
        assert c.table(t.name).row(b"r") == {b"cf:a": b"ok"}


def test_connection_open_close_and_autoconnect(server, make_table):
    t = make_table({"cf": {}})
    transport, protocol = server.default_combo.split("-")
    c = happybase.Connection(
        server.host, server.port, autoconnect=False, transport=transport, protocol=protocol,
        timeout=SOCKET_TIMEOUT_MS,
    )
    c.open()
    assert t.name in c.tables()
    c.close()
    c.open()  # a closed connection can be opened again
    assert t.name in c.tables()
    c.close()
