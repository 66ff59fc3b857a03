"""The same basic calls over each transport (buffered/framed) x protocol (binary/compact).
Combinations the server does not speak (STRATA_COMPAT_TRANSPORTS) are skipped."""

import pytest
from thriftpy2.thrift import TApplicationException

import Hbase_thrift
from conftest import raw_client


def test_roundtrip(server, combo, any_conn, make_table):
    t = make_table({"cf": {}}, conn=any_conn)
    assert t.name in any_conn.tables()
    t.put(b"r1", {b"cf:a": b"\x00\xff" * 100, b"cf:b": b"2"}, timestamp=42)
    t.put(b"r2", {b"cf:a": b"x"})
    assert t.row(b"r1", include_timestamp=True) == {b"cf:a": (b"\x00\xff" * 100, 42), b"cf:b": (b"2", 42)}
    assert [k for k, _ in t.scan(batch_size=1)] == [b"r1", b"r2"]
    assert t.counter_inc(b"c", b"cf:n", 2**40) == 2**40
    assert t.counter_dec(b"c", b"cf:n", 2**41) == -(2**40)
    assert list(t.families()) == [b"cf"]


def test_errors_keep_connection(server, combo, any_conn, make_table):
    t = make_table({"cf": {}}, conn=any_conn)
    with pytest.raises(Hbase_thrift.IOError):
        t.put(b"r", {b"nofam:a": b"v"})
    with pytest.raises(TApplicationException):
        list(t.scan(filter="NotAFilter("))
    t.put(b"r", {b"cf:a": b"v"})
    assert t.row(b"r") == {b"cf:a": b"v"}


def test_raw_client(server, combo, make_table):
    t = make_table({"cf": {}})
    with raw_client(server.host, server.port, combo) as raw:
        assert t.name in raw.getTableNames()
        with pytest.raises(TApplicationException) as exc:
            raw.getRowOrBefore(t.name, b"r", b"cf")
        assert exc.value.type == TApplicationException.UNKNOWN_METHOD
        assert raw.atomicIncrement(t.name, b"r", b"cf:n", 7) == 7
