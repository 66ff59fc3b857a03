"""One table, two APIs: cells written through HBase's Thrift API (happybase) read back
through the Bigtable API with the same values and timestamps (milliseconds * 1000), and the
other way round, deletes and counters included."""

import struct

import pytest
from google.cloud.bigtable.data import ReadRowsQuery
from google.cloud.bigtable.data import mutations as dm
from google.cloud.bigtable.data import read_modify_write_rules as rmw


@pytest.fixture
def both(strata_only, data_table, data_client, thrift_connection):
    """(happybase table, Bigtable data-client table, classic table) for one new table."""
    table = data_table(("cf", "cf2"))
    return (
        thrift_connection.table(table.table_id),
        data_client.get_table("default", table.table_id),
        table,
    )


def bigtable_cells(t, key):
    rows = list(t.read_rows(ReadRowsQuery(row_keys=[key])))
    if not rows:
        return []
    return [(c.family, c.qualifier, c.timestamp_micros, c.value) for c in rows[0].cells]


def test_thrift_writes_read_through_bigtable(both):
    hb, t, _ = both
    hb.put(b"r1", {b"cf:a": b"a-old"}, timestamp=1000)
    hb.put(b"r1", {b"cf:a": b"a-new", b"cf2:b": b"b"}, timestamp=2500)
    assert bigtable_cells(t, b"r1") == [
        ("cf", b"a", 2_500_000, b"a-new"),
        ("cf", b"a", 1_000_000, b"a-old"),
        ("cf2", b"b", 2_500_000, b"b"),
    ]


def test_bigtable_writes_read_through_thrift(both):
    hb, t, _ = both
    t.mutate_row(
        b"r2",
        [
            dm.SetCell("cf", b"q", b"v1", timestamp_micros=7_000),
            dm.SetCell("cf", b"q", b"v2", timestamp_micros=9_000),
        ],
    )
    assert hb.cells(b"r2", b"cf:q", versions=10, include_timestamp=True) == [(b"v2", 9), (b"v1", 7)]
    assert hb.row(b"r2") == {b"cf:q": b"v2"}


def test_server_assigned_timestamps_agree(both):
    hb, t, _ = both
    hb.put(b"r", {b"cf:x": b"1"})
    t.mutate_row(b"r", [dm.SetCell("cf", b"y", b"2", timestamp_micros=-1)])
    thrift_ts = {k: ts for k, (v, ts) in hb.row(b"r", include_timestamp=True).items()}
    bt_ts = {q: ts for _, q, ts, _ in bigtable_cells(t, b"r")}
    assert bt_ts[b"x"] == thrift_ts[b"cf:x"] * 1000
    assert bt_ts[b"y"] == thrift_ts[b"cf:y"] * 1000


def test_thrift_deletes_are_seen_by_bigtable(both):
    hb, t, _ = both
    hb.put(b"r", {b"cf:a": b"1", b"cf:b": b"2", b"cf2:c": b"3"}, timestamp=5)
    hb.delete(b"r", columns=[b"cf:a"])
    assert [q for _, q, _, _ in bigtable_cells(t, b"r")] == [b"b", b"c"]
    hb.delete(b"r")
    assert bigtable_cells(t, b"r") == []


def test_bigtable_deletes_are_seen_by_thrift(both):
    hb, t, _ = both
    for ts in (1, 2, 3):
        hb.put(b"r", {b"cf:a": b"v%d" % ts, b"cf2:b": b"w"}, timestamp=ts)
    t.mutate_row(b"r", [dm.DeleteRangeFromColumn("cf", b"a", start_timestamp_micros=2000, end_timestamp_micros=3000)])
    assert hb.cells(b"r", b"cf:a", versions=10, include_timestamp=True) == [(b"v3", 3), (b"v1", 1)]
    t.mutate_row(b"r", [dm.DeleteAllFromFamily("cf2")])
    assert hb.row(b"r") == {b"cf:a": b"v3"}
    t.mutate_row(b"r", [dm.DeleteAllFromRow()])
    assert hb.row(b"r") == {}
    # Unlike an HBase delete at "now", the Bigtable delete leaves later writes visible,
    # even at an older timestamp (one that was not deleted).
    hb.put(b"r", {b"cf:a": b"again"}, timestamp=4)
    assert hb.row(b"r") == {b"cf:a": b"again"}


def test_counters_are_shared(both):
    hb, t, _ = both
    hb.counter_inc(b"r", b"cf:n", 5)
    row = t.read_modify_write_row(b"r", rmw.IncrementRule("cf", b"n", 10))
    assert struct.unpack(">q", row.cells[0].value)[0] == 15
    assert hb.counter_get(b"r", b"cf:n") == 15
    hb.counter_inc(b"r", b"cf:n", 1)
    assert struct.unpack(">q", bigtable_cells(t, b"r")[0][3])[0] == 16
