"""Reads and writes through happybase: put/row/rows/cells, versions, timestamps, column
selections, deletes, batches, binary and large data."""

import time

import pytest

import Hbase_thrift


def tick():
    """Lets the server clock pass a millisecond. Server-assigned timestamps have millisecond
    granularity in HBase too: two writes in one millisecond are one version, and a delete
    masks a put of its own millisecond. HBase is slow enough that these tests never saw
    that; a fast server needs the pause to test what the tests mean."""
    time.sleep(0.002)



def now_ms():
    return int(time.time() * 1000)


def assert_server_time(ts, before, slack_ms=120_000):
    """A server-assigned timestamp: close to our clock (the server may run elsewhere)."""
    assert isinstance(ts, int)
    assert before - slack_ms <= ts <= now_ms() + slack_ms, (ts, before)


# ---------------------------------------------------------------------------------------
# put / row / rows
# ---------------------------------------------------------------------------------------


def test_put_and_row_roundtrip(table):
    table.put(b"r1", {b"cf:a": b"1", b"cf:b": b"2", b"cf:": b"empty qualifier"})
    assert table.row(b"r1") == {b"cf:a": b"1", b"cf:b": b"2", b"cf:": b"empty qualifier"}


def test_put_accepts_str_and_returns_bytes(table):
    table.put("r", {"cf:a": "v"})
    assert table.row("r") == {b"cf:a": b"v"}


def test_missing_row_is_empty(table):
    assert table.row(b"nope") == {}
    assert table.row(b"nope", include_timestamp=True) == {}
    assert table.rows([b"nope"]) == []
    assert table.cells(b"nope", b"cf:a") == []


def test_empty_value(table):
    table.put(b"r", {b"cf:a": b""})
    assert table.row(b"r") == {b"cf:a": b""}
    assert table.cells(b"r", b"cf:a") == [b""]


def test_overwrite_keeps_latest(table):
    table.put(b"r", {b"cf:a": b"1"})
    tick()
    table.put(b"r", {b"cf:a": b"2"})
    assert table.row(b"r") == {b"cf:a": b"2"}
    assert table.cells(b"r", b"cf:a") == [b"2", b"1"]


def test_include_timestamp_with_server_time(table):
    before = now_ms()
    table.put(b"r", {b"cf:a": b"1", b"cf:b": b"2"})
    row = table.row(b"r", include_timestamp=True)
    assert set(row) == {b"cf:a", b"cf:b"}
    (va, ta), (vb, tb) = row[b"cf:a"], row[b"cf:b"]
    assert (va, vb) == (b"1", b"2")
    assert ta == tb  # one put, one timestamp
    assert_server_time(ta, before)


def test_put_with_explicit_timestamp(table):
    table.put(b"r", {b"cf:a": b"1"}, timestamp=12345)
    assert table.row(b"r", include_timestamp=True) == {b"cf:a": (b"1", 12345)}


def test_timestamp_zero_is_valid(table):
    table.put(b"r", {b"cf:a": b"v"}, timestamp=0)
    assert table.cells(b"r", b"cf:a", include_timestamp=True) == [(b"v", 0)]
    assert table.row(b"r", timestamp=1, include_timestamp=True) == {b"cf:a": (b"v", 0)}
    assert table.row(b"r", timestamp=0) == {}


def test_rows_keeps_request_order_skips_missing_and_repeats_duplicates(table):
    for k in (b"a", b"b", b"c"):
        table.put(k, {b"cf:q": k.upper()})
    assert table.rows([b"c", b"missing", b"a", b"c"]) == [
        (b"c", {b"cf:q": b"C"}),
        (b"a", {b"cf:q": b"A"}),
        (b"c", {b"cf:q": b"C"}),
    ]


def test_rows_with_columns_and_timestamp(table):
    table.put(b"a", {b"cf:x": b"ax1", b"cf:y": b"ay1"}, timestamp=10)
    table.put(b"a", {b"cf:x": b"ax2"}, timestamp=20)
    table.put(b"b", {b"cf:x": b"bx1"}, timestamp=30)
    assert table.rows([b"a", b"b"], columns=[b"cf:x"], timestamp=21, include_timestamp=True) == [
        (b"a", {b"cf:x": (b"ax2", 20)}),
    ]


# ---------------------------------------------------------------------------------------
# column selections
# ---------------------------------------------------------------------------------------


@pytest.fixture
def two_family_table(make_table, conn):
    t = make_table({"cf": {}, "cg": {}}, conn=conn)
    t.put(b"r", {b"cf:": b"e", b"cf:a": b"1", b"cf:b": b"2", b"cg:x": b"3"})
    return t


def test_columns_family_selects_whole_family(two_family_table):
    assert two_family_table.row(b"r", columns=[b"cf"]) == {b"cf:": b"e", b"cf:a": b"1", b"cf:b": b"2"}


def test_columns_family_colon_selects_only_empty_qualifier(two_family_table):
    assert two_family_table.row(b"r", columns=[b"cf:"]) == {b"cf:": b"e"}


def test_columns_qualifiers_and_families_mixed(two_family_table):
    assert two_family_table.row(b"r", columns=[b"cf:a", b"cg"]) == {b"cf:a": b"1", b"cg:x": b"3"}
    assert two_family_table.row(b"r", columns=[b"cf:a", b"cf:missing"]) == {b"cf:a": b"1"}
    assert two_family_table.row(b"r", columns=[b"cf:missing"]) == {}


def test_columns_family_and_qualifier_of_same_family(two_family_table):
    # HBase: a qualifier selection of a family overrides the whole-family selection
    # when it comes later; here the family comes first.
    got = two_family_table.row(b"r", columns=[b"cg", b"cf:a"])
    assert got == {b"cf:a": b"1", b"cg:x": b"3"}


def test_columns_later_spec_of_a_family_wins(two_family_table):
    # HBase's addColumn overrides an earlier addFamily of the same family and addFamily an
    # earlier addColumn (found by the differential test, tests/differential).
    t = two_family_table
    assert t.row(b"r", columns=[b"cf", b"cf:a"]) == {b"cf:a": b"1"}
    assert t.row(b"r", columns=[b"cf:a", b"cf"]) == {b"cf:": b"e", b"cf:a": b"1", b"cf:b": b"2"}
    assert t.rows([b"r"], columns=[b"cf", b"cf:b", b"cg"]) == [(b"r", {b"cf:b": b"2", b"cg:x": b"3"})]
    assert list(t.scan(columns=[b"cf", b"cf:b"])) == [(b"r", {b"cf:b": b"2"})]
    assert list(t.scan(columns=[b"cf:b", b"cf"], filter="KeyOnlyFilter()")) == [
        (b"r", {b"cf:": b"", b"cf:a": b"", b"cf:b": b""})]


def test_cells_of_family_only_column(two_family_table):
    # cells() with a bare family name: all cells of the family, newest first per column;
    # happybase gives just the values.
    got = two_family_table.cells(b"r", b"cg")
    assert got == [b"3"]


# ---------------------------------------------------------------------------------------
# versions and timestamps
# ---------------------------------------------------------------------------------------


@pytest.fixture
def versioned(table):
    for ts in (10, 20, 30):
        table.put(b"v", {b"cf:q": b"v%d" % ts}, timestamp=ts)
    return table


def test_cells_newest_first(versioned):
    assert versioned.cells(b"v", b"cf:q") == [b"v30", b"v20", b"v10"]
    assert versioned.cells(b"v", b"cf:q", include_timestamp=True) == [(b"v30", 30), (b"v20", 20), (b"v10", 10)]


def test_cells_versions_limit(versioned):
    assert versioned.cells(b"v", b"cf:q", versions=1) == [b"v30"]
    assert versioned.cells(b"v", b"cf:q", versions=2) == [b"v30", b"v20"]
    assert versioned.cells(b"v", b"cf:q", versions=100) == [b"v30", b"v20", b"v10"]


def test_read_with_timestamp_is_half_open(versioned):
    t = versioned
    assert t.cells(b"v", b"cf:q", timestamp=30, include_timestamp=True) == [(b"v20", 20), (b"v10", 10)]
    assert t.cells(b"v", b"cf:q", timestamp=31, include_timestamp=True) == [(b"v30", 30), (b"v20", 20), (b"v10", 10)]
    assert t.cells(b"v", b"cf:q", timestamp=10) == []
    assert t.row(b"v", timestamp=20, include_timestamp=True) == {b"cf:q": (b"v10", 10)}
    assert t.row(b"v", timestamp=21, include_timestamp=True) == {b"cf:q": (b"v20", 20)}
    assert t.row(b"v", timestamp=10) == {}
    assert t.rows([b"v"], timestamp=21) == [(b"v", {b"cf:q": b"v20"})]
    assert list(t.scan(timestamp=21, include_timestamp=True)) == [(b"v", {b"cf:q": (b"v20", 20)})]
    assert list(t.scan(timestamp=10)) == []


def test_same_timestamp_written_twice_later_write_wins(table):
    table.put(b"r", {b"cf:q": b"first"}, timestamp=50)
    table.put(b"r", {b"cf:q": b"second"}, timestamp=50)
    assert table.cells(b"r", b"cf:q", include_timestamp=True) == [(b"second", 50)]


def test_max_versions_is_enforced(make_table, conn):
    t = make_table({"cf": {"max_versions": 2}}, conn=conn)
    for i in range(5):
        t.put(b"r", {b"cf:q": b"%d" % i}, timestamp=100 + i)
    assert t.cells(b"r", b"cf:q", include_timestamp=True) == [(b"4", 104), (b"3", 103)]
    assert t.row(b"r") == {b"cf:q": b"4"}


def test_ttl_hides_cells_older_than_ttl(make_table, conn):
    t = make_table({"cf": {"time_to_live": 3600}}, conn=conn)
    t.put(b"old", {b"cf:a": b"1"}, timestamp=1000)
    t.put(b"new", {b"cf:a": b"2"})
    t.put(b"mixed", {b"cf:a": b"old"}, timestamp=1000)
    t.put(b"mixed", {b"cf:b": b"new"})
    assert t.row(b"old") == {}
    assert t.row(b"mixed") == {b"cf:b": b"new"}
    assert [k for k, _ in t.scan()] == [b"mixed", b"new"]


# ---------------------------------------------------------------------------------------
# deletes
# ---------------------------------------------------------------------------------------


def test_delete_whole_row(two_family_table):
    two_family_table.delete(b"r")
    assert two_family_table.row(b"r") == {}


def test_delete_columns(two_family_table):
    t = two_family_table
    t.delete(b"r", columns=[b"cf:a"])
    assert t.row(b"r") == {b"cf:": b"e", b"cf:b": b"2", b"cg:x": b"3"}
    t.delete(b"r", columns=[b"cf:"])
    assert t.row(b"r") == {b"cf:b": b"2", b"cg:x": b"3"}


def test_delete_family(two_family_table):
    t = two_family_table
    t.delete(b"r", columns=[b"cf"])
    assert t.row(b"r") == {b"cg:x": b"3"}


def test_delete_column_removes_all_versions(versioned):
    versioned.delete(b"v", columns=[b"cf:q"])
    assert versioned.cells(b"v", b"cf:q") == []


def test_delete_column_with_timestamp_removes_versions_up_to_it(table):
    for ts in (10, 20, 30):
        table.put(b"r", {b"cf:q": b"%d" % ts, b"cf:p": b"p%d" % ts}, timestamp=ts)
    table.delete(b"r", columns=[b"cf:q"], timestamp=20)
    assert table.cells(b"r", b"cf:q", include_timestamp=True) == [(b"30", 30)]
    assert table.cells(b"r", b"cf:p", include_timestamp=True) == [(b"p30", 30), (b"p20", 20), (b"p10", 10)]


def test_delete_row_with_timestamp(table):
    table.put(b"r", {b"cf:a": b"x"}, timestamp=10)
    table.put(b"r", {b"cf:a": b"y"}, timestamp=30)
    table.put(b"r", {b"cf:b": b"z"}, timestamp=20)
    table.delete(b"r", timestamp=20)
    assert table.row(b"r", include_timestamp=True) == {b"cf:a": (b"y", 30)}
    assert table.cells(b"r", b"cf:a") == [b"y"]


def test_delete_missing_row_is_fine(table):
    table.delete(b"nope")
    table.delete(b"nope", columns=[b"cf:a"])
    assert table.row(b"nope") == {}


def test_delete_without_timestamp_masks_later_put_with_older_timestamp(table):
    table.put(b"r", {b"cf:a": b"1"})
    table.delete(b"r")
    table.put(b"r", {b"cf:a": b"2"}, timestamp=1000)
    assert table.row(b"r") == {}
    tick()
    table.put(b"r", {b"cf:a": b"3"})  # server time: newer than the delete
    assert table.row(b"r") == {b"cf:a": b"3"}


def test_put_after_delete_is_visible(table):
    table.put(b"r", {b"cf:a": b"1"})
    table.delete(b"r")
    tick()
    table.put(b"r", {b"cf:b": b"2"})
    assert table.row(b"r") == {b"cf:b": b"2"}


# ---------------------------------------------------------------------------------------
# batches
# ---------------------------------------------------------------------------------------


def test_batch_context_manager(table):
    with table.batch() as b:
        b.put(b"a", {b"cf:x": b"1"})
        b.put(b"b", {b"cf:x": b"2"})
        b.delete(b"a", columns=[b"cf:y"])
    assert list(table.scan()) == [(b"a", {b"cf:x": b"1"}), (b"b", {b"cf:x": b"2"})]


def test_batch_send_explicitly(table):
    b = table.batch()
    b.put(b"a", {b"cf:x": b"1"})
    assert table.row(b"a") == {}  # nothing sent yet
    b.send()
    assert table.row(b"a") == {b"cf:x": b"1"}


def test_batch_size_sends_in_chunks(table):
    with table.batch(batch_size=3) as b:
        for i in range(10):
            b.put(b"k%02d" % i, {b"cf:x": b"%d" % i})
            if i == 4:
                # 3 mutations were flushed automatically
                assert [k for k, _ in table.scan()] == [b"k00", b"k01", b"k02"]
    assert [k for k, _ in table.scan()] == [b"k%02d" % i for i in range(10)]


def test_batch_transaction_discards_on_exception(table):
    with pytest.raises(ValueError):
        with table.batch(transaction=True) as b:
            b.put(b"tx", {b"cf:a": b"1"})
            raise ValueError("abort")
    assert table.row(b"tx") == {}


def test_batch_without_transaction_sends_on_exception(table):
    with pytest.raises(ValueError):
        with table.batch() as b:
            b.put(b"ntx", {b"cf:a": b"1"})
            raise ValueError("abort")
    assert table.row(b"ntx") == {b"cf:a": b"1"}


def test_batch_wal_false_and_timestamp(table):
    with table.batch(wal=False, timestamp=77) as b:
        b.put(b"r", {b"cf:a": b"1"})
    assert table.row(b"r", include_timestamp=True) == {b"cf:a": (b"1", 77)}
    table.put(b"r2", {b"cf:a": b"2"}, wal=False)
    assert table.row(b"r2") == {b"cf:a": b"2"}


def test_batch_puts_applied_before_deletes_of_same_row(table):
    # One mutateRows call: every put is applied before every delete, whatever the order.
    with table.batch() as b:
        b.put(b"pd", {b"cf:a": b"x"})
        b.delete(b"pd")
    assert table.row(b"pd") == {}
    with table.batch() as b:
        b.delete(b"dp")
        b.put(b"dp", {b"cf:a": b"x"})
    assert table.row(b"dp") == {}


def test_batch_with_missing_family_fails_but_other_rows_are_written(table):
    b = table.batch()
    b.put(b"bad", {b"nofam:a": b"1"})
    b.put(b"good", {b"cf:a": b"2"})
    with pytest.raises(Hbase_thrift.IOError):
        b.send()
    assert table.row(b"good") == {b"cf:a": b"2"}
    assert table.row(b"bad") == {}


# ---------------------------------------------------------------------------------------
# binary and large data
# ---------------------------------------------------------------------------------------


def test_all_byte_values_as_row_keys_sort_unsigned(table):
    with table.batch() as b:
        for i in range(256):
            b.put(bytes([i]), {b"cf:v": bytes([i])})
    rows = list(table.scan())
    assert [k for k, _ in rows] == [bytes([i]) for i in range(256)]
    assert all(d == {b"cf:v": k} for k, d in rows)
    assert table.row(b"\x00") == {b"cf:v": b"\x00"}
    assert table.row(b"\xff") == {b"cf:v": b"\xff"}


def test_binary_keys_qualifiers_and_values(table):
    key = bytes(range(256))
    value = bytes(reversed(range(256))) * 4
    qual = b"cf:" + bytes(range(256))
    table.put(key, {qual: value, b"cf:\x00": b"\x00\x00", b"cf:\xff\xfe": b""})
    assert table.row(key) == {qual: value, b"cf:\x00": b"\x00\x00", b"cf:\xff\xfe": b""}
    assert table.cells(key, qual) == [value]
    # sorted_columns gives unsigned-byte qualifier order
    [(_, cols)] = list(table.scan(sorted_columns=True))
    assert list(cols) == sorted([qual, b"cf:\x00", b"cf:\xff\xfe"])
    assert [k for k, _ in table.scan(row_prefix=b"\x00\x01\x02")] == [key]


def test_keys_with_utf8_and_separators(table):
    keys = [b"a,b", b"a:b", "\u00e9t\u00e9".encode(), b"a\x00b", b"a b"]
    for k in keys:
        table.put(k, {b"cf:q:with:colons": k})
    assert [k for k, _ in table.scan()] == sorted(keys)
    assert table.row(b"a:b") == {b"cf:q:with:colons": b"a:b"}


def test_large_value_1mib(table):
    value = bytes(range(256)) * 4096  # 1 MiB
    table.put(b"big", {b"cf:v": value, b"cf:w": b"small"})
    assert table.row(b"big", columns=[b"cf:v"]) == {b"cf:v": value}
    assert table.cells(b"big", b"cf:v") == [value]
    [(k, d)] = list(table.scan())
    assert k == b"big" and d[b"cf:v"] == value and d[b"cf:w"] == b"small"


def test_many_columns_in_one_row(table):
    cols = {b"cf:c%04d" % i: b"%d" % i for i in range(1000)}
    table.put(b"wide", cols)
    assert table.row(b"wide") == cols
    assert table.row(b"wide", columns=[b"cf:c0999", b"cf:c0000"]) == {b"cf:c0000": b"0", b"cf:c0999": b"999"}
