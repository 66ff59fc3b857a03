"""Data API writes and read-modify-writes through Google's Python client: MutateRow,
MutateRows (per-entry statuses), CheckAndMutateRow, ReadModifyWriteRow, SampleRowKeys, and
the error codes clients rely on (they never retry NOT_FOUND or INVALID_ARGUMENT)."""

import datetime
import struct
import time

import pytest
from google.api_core import exceptions
from google.cloud.bigtable import row_filters
from google.cloud.bigtable.data import ReadRowsQuery
from google.cloud.bigtable.data import mutations as dm
from google.cloud.bigtable.data import read_modify_write_rules as rmw
from google.cloud.bigtable.data.exceptions import MutationsExceptionGroup

UTC = datetime.timezone.utc


def at_ms(ms):
    return datetime.datetime.fromtimestamp(ms / 1000.0, tz=UTC)


def cells_of(table, key, family="cf", qualifier=b"q"):
    row = table.read_row(key)
    if row is None:
        return []
    return [(c.value, c.timestamp_micros) for c in row.cells.get(family, {}).get(qualifier, [])]


def data_table_of(data_client, table):
    return data_client.get_table("default", table.table_id)


def test_set_cell_with_explicit_timestamps_keeps_every_version(data_table):
    table = data_table()
    for ms, value in [(1000, b"one"), (2000, b"two"), (3000, b"three")]:
        row = table.direct_row(b"r1")
        row.set_cell("cf", b"q", value, timestamp=at_ms(ms))
        row.commit()
    assert cells_of(table, b"r1") == [(b"three", 3_000_000), (b"two", 2_000_000), (b"one", 1_000_000)]


def test_server_assigned_timestamp_is_now_in_whole_milliseconds(data_table, data_client):
    table = data_table()
    before = int(time.time() * 1000)
    t = data_table_of(data_client, table)
    t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"v", timestamp_micros=-1)])
    after = int(time.time() * 1000)
    [(value, ts)] = cells_of(table, b"r")
    assert value == b"v"
    assert ts % 1000 == 0
    assert before - 5 <= ts // 1000 <= after + 5


def test_timestamp_that_is_not_whole_milliseconds_is_invalid_argument(strata_only, data_table, data_client):
    # Strata stores milliseconds, like a Bigtable table of MILLIS granularity (Google's
    # emulator keeps microseconds and accepts it).
    t = data_table_of(data_client, data_table())
    with pytest.raises(exceptions.InvalidArgument) as err:
        t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"v", timestamp_micros=1_234_567)])
    assert "timestamp_micros" in str(err.value)


def test_unknown_family_is_not_found_and_names_the_family(strata_only, data_table, data_client):
    # (Google's emulator answers UNKNOWN here.)
    table = data_table()
    t = data_table_of(data_client, table)
    with pytest.raises(exceptions.NotFound) as err:
        t.mutate_row(b"r", [dm.SetCell("nope", b"q", b"v")])
    assert "nope" in str(err.value)
    assert table.read_row(b"r") is None


def test_empty_row_key_is_invalid_argument(data_table, client):
    table = data_table()
    with pytest.raises(exceptions.InvalidArgument):
        client.table_data_client.mutate_row(
            request={
                "table_name": table.name,
                "row_key": b"",
                "mutations": [{"set_cell": {"family_name": "cf", "column_qualifier": b"q", "value": b"v"}}],
            }
        )


def test_missing_table_is_not_found(instance, data_client):
    t = data_client.get_table("default", "no_such_table_anywhere")
    with pytest.raises(exceptions.NotFound):
        t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"v")])


def test_mutations_of_one_row_are_atomic(strata_only, data_table, data_client):
    # (Google's Go emulator applies the mutations before the bad one; Bigtable does not.)
    table = data_table(("cf", "cf2"))
    t = data_table_of(data_client, table)
    with pytest.raises(exceptions.GoogleAPICallError):
        t.mutate_row(b"r", [dm.SetCell("cf", b"a", b"1"), dm.SetCell("missing", b"b", b"2")])
    assert table.read_row(b"r") is None, "nothing of a failed row mutation is applied"
    t.mutate_row(b"r", [dm.SetCell("cf", b"a", b"1"), dm.SetCell("cf2", b"b", b"2")])
    row = table.read_row(b"r")
    assert row.cells["cf"][b"a"][0].value == b"1" and row.cells["cf2"][b"b"][0].value == b"2"


def test_mutate_rows_reports_each_entry_and_applies_the_good_ones(server, data_table):
    table = data_table()
    good1, bad_family, bad_ts, good2 = (table.direct_row(k) for k in (b"a", b"b", b"c", b"d"))
    good1.set_cell("cf", b"q", b"1")
    bad_family.set_cell("nope", b"q", b"2")
    bad_ts._mutations.append(dm.SetCell("cf", b"q", b"3", timestamp_micros=1001))
    good2.set_cell("cf", b"q", b"4")
    statuses = table.mutate_rows([good1, bad_family, bad_ts, good2])
    codes = [s.code for s in statuses]
    assert codes[0] == codes[3] == 0 and codes[1] != 0
    if server.is_strata:
        assert codes == [0, 5, 3, 0]  # OK, NOT_FOUND, INVALID_ARGUMENT, OK
        assert "entries[2].mutations[0].set_cell.timestamp_micros" in statuses[2].message
    assert [r.row_key for r in table.read_rows()] == [b"a", b"d"]


def test_bulk_mutate_rows_with_the_data_client_raises_for_failed_entries_only(data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    entries = [
        dm.RowMutationEntry(b"k1", [dm.SetCell("cf", b"q", b"v1")]),
        dm.RowMutationEntry(b"k2", [dm.SetCell("zz", b"q", b"v2")]),
        dm.RowMutationEntry(b"k3", [dm.SetCell("cf", b"q", b"v3")]),
    ]
    with pytest.raises(MutationsExceptionGroup) as group:
        t.bulk_mutate_rows(entries)
    failed = [e.index for e in group.value.exceptions]
    assert failed == [1]
    assert [r.row_key for r in table.read_rows()] == [b"k1", b"k3"]


def test_delete_from_column_with_a_time_range_removes_only_those_versions(data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"v%d" % ms, timestamp_micros=ms * 1000) for ms in (1, 2, 3, 4)])
    t.mutate_row(b"r", [dm.DeleteRangeFromColumn("cf", b"q", start_timestamp_micros=2000, end_timestamp_micros=4000)])
    assert [ts for _, ts in cells_of(table, b"r")] == [4000, 1000]
    t.mutate_row(b"r", [dm.DeleteRangeFromColumn("cf", b"q")])
    assert cells_of(table, b"r") == []


def test_delete_family_and_delete_row(data_table, data_client):
    table = data_table(("cf", "cf2"))
    t = data_table_of(data_client, table)
    t.mutate_row(b"r", [dm.SetCell("cf", b"a", b"1"), dm.SetCell("cf2", b"b", b"2")])
    t.mutate_row(b"r", [dm.DeleteAllFromFamily("cf")])
    row = table.read_row(b"r")
    assert list(row.cells) == ["cf2"]
    row = table.direct_row(b"r")
    row.delete()
    row.commit()
    assert table.read_row(b"r") is None


def test_a_write_right_after_a_delete_is_visible(data_table, data_client):
    """Bigtable deletes only what exists: unlike an HBase delete marker at 'now', the delete
    must not hide a write that follows it in the same millisecond."""
    table = data_table()
    t = data_table_of(data_client, table)
    for i in range(20):
        t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"old%d" % i, timestamp_micros=-1)])
        t.mutate_row(b"r", [dm.DeleteAllFromRow()])
        t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"new%d" % i, timestamp_micros=-1)])
        assert [v for v, _ in cells_of(table, b"r")] == [b"new%d" % i]
        t.mutate_row(b"r", [dm.DeleteAllFromRow()])


def test_rewriting_a_deleted_timestamp_is_visible(server, data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"old", timestamp_micros=0)])
    t.mutate_row(b"r", [dm.DeleteAllFromRow()])
    t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"new", timestamp_micros=0)])
    got = cells_of(table, b"r")
    if server.is_strata and got == []:
        pytest.xfail(
            "known gap: a deleted version leaves an HBase delete marker at exactly its "
            "timestamp, which hides a later write at that timestamp until a major compaction "
            "(Bigtable shows it); needs sequence-aware delete markers in the engine"
        )
    assert got == [(b"new", 0)]


def test_mutations_apply_in_order_within_a_request(data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    t.mutate_row(
        b"r",
        [
            dm.SetCell("cf", b"q", b"gone", timestamp_micros=5000),
            dm.DeleteAllFromRow(),
            dm.SetCell("cf", b"q", b"kept", timestamp_micros=3000),
        ],
    )
    assert cells_of(table, b"r") == [(b"kept", 3000)]


# --- CheckAndMutateRow ---------------------------------------------------------------------


def test_check_and_mutate_without_predicate_matches_a_non_empty_row(data_table):
    table = data_table()
    row = table.conditional_row(b"r", filter_=None)
    row.set_cell("cf", b"q", b"when-true", state=True)
    row.set_cell("cf", b"q", b"when-false", state=False)
    assert row.commit() is False, "the row is empty"
    assert [v for v, _ in cells_of(table, b"r")] == [b"when-false"]
    row = table.conditional_row(b"r", filter_=None)
    row.set_cell("cf", b"x", b"true-branch", state=True)
    assert row.commit() is True
    assert cells_of(table, b"r", qualifier=b"x")[0][0] == b"true-branch"


def test_check_and_mutate_with_pass_all_and_block_all(data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"v")])
    matched = t.check_and_mutate_row(
        b"r", row_filters.PassAllFilter(True), true_case_mutations=[dm.SetCell("cf", b"t", b"1")]
    )
    assert matched is True
    matched = t.check_and_mutate_row(
        b"r", row_filters.BlockAllFilter(True), false_case_mutations=[dm.DeleteAllFromRow()]
    )
    assert matched is False
    assert table.read_row(b"r") is None


def test_check_and_mutate_checks_the_mutations_it_did_not_apply(strata_only, data_table, data_client):
    t = data_table_of(data_client, data_table())
    with pytest.raises(exceptions.NotFound):
        t.check_and_mutate_row(
            b"r", None,
            true_case_mutations=[dm.SetCell("cf", b"q", b"v")],
            false_case_mutations=[dm.SetCell("nope", b"q", b"v")],
        )


def test_check_and_mutate_with_a_chain_filter(data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    t.mutate_row(b"r", [dm.SetCell("cf", b"q", b"v")])
    chain = row_filters.RowFilterChain([row_filters.PassAllFilter(True), row_filters.ColumnQualifierRegexFilter(b"q")])
    try:
        matched = t.check_and_mutate_row(b"r", chain, true_case_mutations=[dm.SetCell("cf", b"hit", b"1")])
    except exceptions.MethodNotImplemented:
        pytest.xfail("chain filters are not implemented yet")
    assert matched is True
    assert cells_of(table, b"r", qualifier=b"hit")[0][0] == b"1"


# --- ReadModifyWriteRow --------------------------------------------------------------------


def test_append_and_increment_compound_and_return_the_new_cells(data_table):
    table = data_table()
    row = table.append_row(b"r")
    row.append_cell_value("cf", b"s", b"ab")
    row.increment_cell_value("cf", b"n", 5)
    row.append_cell_value("cf", b"s", b"cd")
    row.increment_cell_value("cf", b"n", -2)
    result = row.commit()
    assert set(result["cf"]) == {b"s", b"n"}
    assert result["cf"][b"s"][0][0] == b"abcd"
    assert struct.unpack(">q", result["cf"][b"n"][0][0])[0] == 3
    [(value, _)] = cells_of(table, b"r", qualifier=b"n")
    assert struct.unpack(">q", value)[0] == 3


def test_read_modify_write_timestamp_is_max_of_now_and_the_newest_cell(data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    future_ms = int(time.time() * 1000) + 3_600_000
    t.mutate_row(b"r", [dm.SetCell("cf", b"f", b"x", timestamp_micros=future_ms * 1000)])
    t.mutate_row(b"r", [dm.SetCell("cf", b"p", b"x", timestamp_micros=1000)])
    before = int(time.time() * 1000)
    out = t.read_modify_write_row(b"r", [rmw.AppendValueRule("cf", b"f", b"y"), rmw.AppendValueRule("cf", b"p", b"y")])
    cells = {c.qualifier: c for c in out.cells}
    assert cells[b"f"].timestamp_micros == future_ms * 1000, "not +1 ms: Bigtable keeps the newest timestamp"
    assert cells[b"f"].value == b"xy"
    assert cells[b"p"].timestamp_micros >= before * 1000 and cells[b"p"].timestamp_micros % 1000 == 0
    # The append at the newest timestamp replaced that version rather than adding one.
    assert cells_of(table, b"r", qualifier=b"f") == [(b"xy", future_ms * 1000)]
    assert len(cells_of(table, b"r", qualifier=b"p")) == 2


def test_increment_of_a_value_that_is_not_eight_bytes_fails(strata_only, data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    t.mutate_row(b"r", [dm.SetCell("cf", b"n", b"abc")])
    with pytest.raises((exceptions.FailedPrecondition, exceptions.InvalidArgument)):
        t.read_modify_write_row(b"r", rmw.IncrementRule("cf", b"n", 1))
    assert cells_of(table, b"r", qualifier=b"n")[0][0] == b"abc"


def test_read_modify_write_on_an_unknown_family_is_not_found(strata_only, data_table, data_client):
    t = data_table_of(data_client, data_table())
    with pytest.raises(exceptions.NotFound):
        t.read_modify_write_row(b"r", rmw.IncrementRule("nope", b"n", 1))


# --- SampleRowKeys -------------------------------------------------------------------------


def test_sample_row_keys_ends_with_the_empty_key_and_counts_bytes(data_table, data_client):
    table = data_table()
    t = data_table_of(data_client, table)
    t.bulk_mutate_rows([dm.RowMutationEntry(b"k%03d" % i, [dm.SetCell("cf", b"q", b"x" * 1000)]) for i in range(50)])
    samples = list(table.sample_row_keys())
    assert samples[-1].row_key == b""
    offsets = [s.offset_bytes for s in samples]
    assert offsets == sorted(offsets)
    assert offsets[-1] >= 50 * 1000
    assert t.sample_row_keys()[-1] == (b"", offsets[-1])


def test_sample_row_keys_follows_region_boundaries(strata_only, make_table):
    try:
        table = make_table({"cf": None}, splits=[b"g", b"p"])
    except exceptions.MethodNotImplemented:
        pytest.skip("CreateTable is not implemented yet")
    keys = [s.row_key for s in table.sample_row_keys()]
    assert keys == [b"g", b"p", b""]


def test_ping_and_warm_answers_for_the_instance(data_client, data_table):
    t = data_table_of(data_client, data_table())
    # The data client pings the instance when a table is opened; a read proves the channel.
    assert list(t.read_rows(ReadRowsQuery())) == []
