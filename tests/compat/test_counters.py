"""Counters through happybase: 8-byte big-endian signed values, wrapping, versions."""

import struct
import time

import pytest

import Hbase_thrift


def tick():
    """Lets the server clock pass a millisecond. Server-assigned timestamps have millisecond
    granularity in HBase too: two writes in one millisecond are one version, and a delete
    masks a put of its own millisecond. HBase is slow enough that these tests never saw
    that; a fast server needs the pause to test what the tests mean."""
    time.sleep(0.002)



def be64(n):
    return struct.pack(">q", n)


def test_counter_get_of_missing_column_is_zero_and_creates_it(table):
    assert table.counter_get(b"c", b"cf:n") == 0
    # counter_get is an increment by 0: it writes the zero.
    assert table.row(b"c") == {b"cf:n": be64(0)}


def test_counter_inc_dec(table):
    assert table.counter_inc(b"c", b"cf:n") == 1
    assert table.counter_inc(b"c", b"cf:n", 10) == 11
    assert table.counter_dec(b"c", b"cf:n") == 10
    assert table.counter_dec(b"c", b"cf:n", 15) == -5
    assert table.counter_inc(b"c", b"cf:n", -1) == -6
    assert table.counter_get(b"c", b"cf:n") == -6
    assert table.row(b"c") == {b"cf:n": b"\xff\xff\xff\xff\xff\xff\xff\xfa"}


def test_counter_set_writes_big_endian(table):
    table.counter_set(b"c", b"cf:n", 0x0102030405060708)
    assert table.row(b"c") == {b"cf:n": bytes([1, 2, 3, 4, 5, 6, 7, 8])}
    assert table.counter_get(b"c", b"cf:n") == 0x0102030405060708
    tick()
    table.counter_set(b"c", b"cf:n", -2)
    assert table.counter_inc(b"c", b"cf:n", 3) == 1


def test_counter_on_put_8_byte_value(table):
    table.put(b"c", {b"cf:n": be64(41)})
    assert table.counter_inc(b"c", b"cf:n") == 42


def test_counter_wraps_on_overflow(table):
    table.counter_set(b"c", b"cf:max", 2**63 - 1)
    assert table.counter_inc(b"c", b"cf:max") == -(2**63)
    assert table.row(b"c", columns=[b"cf:max"]) == {b"cf:max": b"\x80" + b"\x00" * 7}
    table.counter_set(b"c", b"cf:min", -(2**63))
    assert table.counter_dec(b"c", b"cf:min") == 2**63 - 1


def test_every_increment_writes_a_version(table):
    table.counter_inc(b"c", b"cf:n", 5)
    table.counter_inc(b"c", b"cf:n", 2)
    table.counter_get(b"c", b"cf:n")
    assert table.cells(b"c", b"cf:n") == [be64(7), be64(7), be64(5)]  # max_versions 3
    ts = [t for _, t in table.cells(b"c", b"cf:n", include_timestamp=True)]
    assert ts[0] > ts[1] > ts[2]


def test_increment_timestamp_follows_a_future_cell(table):
    future = int(time.time() * 1000) + 3_600_000
    table.put(b"c", {b"cf:n": be64(5)}, timestamp=future)
    assert table.counter_inc(b"c", b"cf:n") == 6
    assert table.cells(b"c", b"cf:n", include_timestamp=True) == [(be64(6), future + 1), (be64(5), future)]


@pytest.mark.parametrize("value", [b"", b"abc", b"\x00" * 4, b"\x00" * 9])
def test_counter_on_value_that_is_not_8_bytes_is_io_error(table, value):
    table.put(b"c", {b"cf:n": value})
    with pytest.raises(Hbase_thrift.IOError):
        table.counter_inc(b"c", b"cf:n")
    with pytest.raises(Hbase_thrift.IOError):
        table.counter_get(b"c", b"cf:n")
    # value untouched, connection usable
    assert table.row(b"c") == {b"cf:n": value}


def test_counter_on_missing_family_is_io_error(table):
    with pytest.raises(Hbase_thrift.IOError):
        table.counter_inc(b"c", b"nofam:n")
    assert table.counter_inc(b"c", b"cf:n") == 1
