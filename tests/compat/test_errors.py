"""Errors: which exception each bad request raises, and that the connection survives it."""

import time

import pytest
from thriftpy2.thrift import TApplicationException

import Hbase_thrift
from conftest import unique_name


def assert_usable(conn, table=None):
    assert isinstance(conn.tables(), list)
    if table is not None:
        table.put(b"alive", {b"cf:x": b"1"})
        assert table.row(b"alive") == {b"cf:x": b"1"}


def assert_internal_error(exc_info):
    assert exc_info.value.type == TApplicationException.INTERNAL_ERROR


# ---------------------------------------------------------------------------------------
# missing table / family: IOError
# ---------------------------------------------------------------------------------------

MISSING_TABLE_CALLS = {
    "row": lambda t: t.row(b"r"),
    "rows": lambda t: t.rows([b"r", b"s"]),
    "cells": lambda t: t.cells(b"r", b"cf:a"),
    "put": lambda t: t.put(b"r", {b"cf:a": b"v"}),
    "delete": lambda t: t.delete(b"r"),
    "scan": lambda t: list(t.scan()),
    "counter_inc": lambda t: t.counter_inc(b"r", b"cf:a"),
    "families": lambda t: t.families(),
}


@pytest.mark.parametrize("call", list(MISSING_TABLE_CALLS), ids=list(MISSING_TABLE_CALLS))
def test_missing_table_is_io_error_and_connection_survives(conn, call):
    t = conn.table(unique_name("missing"))
    with pytest.raises(Hbase_thrift.IOError):
        MISSING_TABLE_CALLS[call](t)
    assert_usable(conn)


MISSING_FAMILY_CALLS = {
    "put": lambda t: t.put(b"r", {b"nofam:a": b"v"}),
    "put_mixed": lambda t: t.put(b"r", {b"nofam:a": b"v", b"cf:a": b"v"}),
    "row_column": lambda t: t.row(b"r", columns=[b"nofam:a"]),
    "row_family": lambda t: t.row(b"r", columns=[b"nofam"]),
    "cells": lambda t: t.cells(b"r", b"nofam:a"),
    "scan": lambda t: list(t.scan(columns=[b"nofam"])),
    "delete_column": lambda t: t.delete(b"r", columns=[b"nofam:a"]),
    "counter": lambda t: t.counter_inc(b"r", b"nofam:a"),
}


@pytest.mark.parametrize("call", list(MISSING_FAMILY_CALLS), ids=list(MISSING_FAMILY_CALLS))
def test_missing_family_is_io_error_and_connection_survives(conn, table, call):
    with pytest.raises(Hbase_thrift.IOError):
        MISSING_FAMILY_CALLS[call](table)
    assert table.row(b"r") == {}  # nothing was written, not even the valid column
    assert_usable(conn, table)


# ---------------------------------------------------------------------------------------
# malformed requests: TApplicationException(INTERNAL_ERROR)
# ---------------------------------------------------------------------------------------

BAD_FILTERS = [
    "",
    "PrefixFilter(",
    "NoSuchFilter('x')",
    "PrefixFilter('a') and PrefixFilter('b')",  # operators are upper case only
    "PrefixFilter('a') AND",
    "ValueFilter(=, 'nosuchcomparator:x')",
    "PrefixFilter(a)",
    # Arguments HBase's filter constructors refuse (issue 13, differential case 1: Strata
    # used to answer PageFilter(-1) with an empty scan).
    "PageFilter(-1)",
    "KeyOnlyFilter() OR PageFilter(-1)",
    "ColumnCountGetFilter(-1)",
    "ColumnPaginationFilter(-1, 0)",
    "ColumnPaginationFilter(1, -1)",
    "MultipleColumnPrefixFilter('a', 'b', 'a')",  # prefixes must be distinct
]


@pytest.mark.parametrize("filter_string", BAD_FILTERS, ids=[repr(f) for f in BAD_FILTERS])
def test_malformed_filter_is_internal_error(conn, table, filter_string):
    table.put(b"r", {b"cf:a": b"v"})
    with pytest.raises(TApplicationException) as exc:
        list(table.scan(filter=filter_string))
    assert_internal_error(exc)
    assert_usable(conn, table)


def test_empty_row_key_is_internal_error(conn, table):
    for call in (
        lambda: table.put(b"", {b"cf:a": b"v"}),
        lambda: table.row(b""),
        lambda: table.delete(b""),
    ):
        with pytest.raises(TApplicationException) as exc:
            call()
        assert_internal_error(exc)
    assert_usable(conn, table)


def test_empty_row_key_in_batch_is_internal_error(conn, table):
    with pytest.raises(TApplicationException) as exc:
        with table.batch() as b:
            b.put(b"ok", {b"cf:a": b"v"})
            b.put(b"", {b"cf:a": b"v"})
    assert_internal_error(exc)
    assert_usable(conn, table)


def test_empty_row_key_counter_fails(server, conn, table):
    if server.is_hbase:
        pytest.skip("HBase retries this increment for ~2 minutes before raising IOError")
    start = time.monotonic()
    with pytest.raises((Hbase_thrift.IOError, TApplicationException)):
        table.counter_inc(b"", b"cf:a")
    assert time.monotonic() - start < 10
    assert_usable(conn, table)


def test_row_key_over_32k_is_internal_error(conn, table):
    with pytest.raises(TApplicationException) as exc:
        table.put(b"k" * 40000, {b"cf:a": b"v"})
    assert_internal_error(exc)
    table.put(b"k" * 10000, {b"cf:a": b"v"})
    assert table.row(b"k" * 10000) == {b"cf:a": b"v"}
    assert_usable(conn, table)


def test_negative_timestamp_is_internal_error(conn, table):
    table.put(b"r", {b"cf:a": b"v"}, timestamp=5)
    for call in (
        lambda: table.put(b"r", {b"cf:a": b"v"}, timestamp=-1),
        lambda: table.row(b"r", timestamp=-1),
        lambda: table.delete(b"r", timestamp=-1),
    ):
        with pytest.raises(TApplicationException) as exc:
            call()
        assert_internal_error(exc)
    assert table.row(b"r", include_timestamp=True) == {b"cf:a": (b"v", 5)}
    assert_usable(conn, table)


def test_put_to_family_without_colon_is_internal_error(conn, table):
    with pytest.raises(TApplicationException) as exc:
        table.put(b"r", {b"cf": b"v"})
    assert_internal_error(exc)
    assert table.row(b"r") == {}
    assert_usable(conn, table)


def test_counter_on_non_8_byte_value_is_io_error(conn, table):
    table.put(b"r", {b"cf:a": b"abc"})
    with pytest.raises(Hbase_thrift.IOError):
        table.counter_inc(b"r", b"cf:a")
    assert table.row(b"r") == {b"cf:a": b"abc"}
    assert_usable(conn, table)


def test_create_table_errors_keep_connection(conn, make_table):
    name = make_table.name()
    make_table({"cf": {}}, name=name)
    with pytest.raises(Hbase_thrift.AlreadyExists):
        conn.create_table(name, {"cf": {}})
    assert_usable(conn, conn.table(name))
