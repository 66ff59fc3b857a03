"""Methods of the Hbase Thrift1 IDL that happybase does not call, through a raw thriftpy2
client built from happybase's own Hbase.thrift."""

import re
import struct

import pytest
from thriftpy2.thrift import TApplicationException

from conftest import strata_gap, Hbase_thrift as H


def be64(n):
    return struct.pack(">q", n)


@pytest.fixture
def tname(make_table):
    """A fresh table (families cf: 3 versions, cg: 1 version); its name as bytes."""
    t = make_table({"cf": {}, "cg": {"max_versions": 1}})
    return t.name


def put(raw, table, row, cols, ts=None):
    muts = [H.Mutation(column=c, value=v) for c, v in cols.items()]
    if ts is None:
        raw.mutateRow(table, row, muts, {})
    else:
        raw.mutateRowTs(table, row, muts, ts, {})


@pytest.fixture
def versioned(raw, tname):
    for ts in (10, 20, 30):
        put(raw, tname, b"r", {b"cf:a": b"x%d" % ts}, ts)
    return tname


def test_get_returns_newest_cell(raw, versioned):
    assert raw.get(versioned, b"r", b"cf:a", {}) == [H.TCell(value=b"x30", timestamp=30)]
    assert raw.get(versioned, b"r", b"cf:missing", {}) == []
    assert raw.get(versioned, b"nope", b"cf:a", {}) == []


def test_get_of_family_returns_every_column(raw, tname):
    put(raw, tname, b"r", {b"cf:a": b"1", b"cf:b": b"2"}, 7)
    assert raw.get(tname, b"r", b"cf", {}) == [H.TCell(value=b"1", timestamp=7), H.TCell(value=b"2", timestamp=7)]


def test_get_ver_and_get_ver_ts(raw, versioned):
    assert raw.getVer(versioned, b"r", b"cf:a", 2, {}) == [H.TCell(b"x30", 30), H.TCell(b"x20", 20)]
    assert raw.getVer(versioned, b"r", b"cf:a", 10, {}) == [H.TCell(b"x30", 30), H.TCell(b"x20", 20), H.TCell(b"x10", 10)]
    # getVerTs: timestamp is an exclusive upper bound, like everywhere in Thrift1
    assert raw.getVerTs(versioned, b"r", b"cf:a", 30, 5, {}) == [H.TCell(b"x20", 20), H.TCell(b"x10", 10)]
    assert raw.getVerTs(versioned, b"r", b"cf:a", 30, 1, {}) == [H.TCell(b"x20", 20)]
    assert raw.getVerTs(versioned, b"r", b"cf:a", 10, 5, {}) == []


def test_get_row_variants(raw, versioned):
    put(raw, versioned, b"r", {b"cg:z": b"z"}, 15)
    [row] = raw.getRow(versioned, b"r", {})
    assert row.row == b"r"
    assert row.columns == {b"cf:a": H.TCell(b"x30", 30), b"cg:z": H.TCell(b"z", 15)}
    assert row.sortedColumns is None
    assert raw.getRow(versioned, b"nope", {}) == []
    [row] = raw.getRowTs(versioned, b"r", 20, {})
    assert row.columns == {b"cf:a": H.TCell(b"x10", 10), b"cg:z": H.TCell(b"z", 15)}
    [row] = raw.getRowWithColumnsTs(versioned, b"r", [b"cf:a"], 25, {})
    assert row.columns == {b"cf:a": H.TCell(b"x20", 20)}
    assert raw.getRowWithColumnsTs(versioned, b"r", [b"cf:a"], 10, {}) == []
    [row] = raw.getRowWithColumns(versioned, b"r", [b"cg"], {})
    assert row.columns == {b"cg:z": H.TCell(b"z", 15)}


def test_get_rows_variants(raw, tname):
    put(raw, tname, b"a", {b"cf:x": b"1"}, 10)
    put(raw, tname, b"b", {b"cf:x": b"2", b"cf:y": b"3"}, 20)
    got = raw.getRows(tname, [b"b", b"zz", b"a"], {})
    assert [r.row for r in got] == [b"b", b"a"]
    got = raw.getRowsWithColumns(tname, [b"a", b"b"], [b"cf:y"], {})
    assert [(r.row, r.columns) for r in got] == [(b"b", {b"cf:y": H.TCell(b"3", 20)})]
    got = raw.getRowsTs(tname, [b"a", b"b"], 20, {})
    assert [(r.row, r.columns) for r in got] == [(b"a", {b"cf:x": H.TCell(b"1", 10)})]
    got = raw.getRowsWithColumnsTs(tname, [b"a", b"b"], [b"cf:x"], 21, {})
    assert [(r.row, r.columns) for r in got] == [(b"a", {b"cf:x": H.TCell(b"1", 10)}), (b"b", {b"cf:x": H.TCell(b"2", 20)})]


def test_get_row_or_before_is_gone(raw, tname):
    # Removed in HBase 2: the server does not know the method.
    with pytest.raises(TApplicationException) as exc:
        raw.getRowOrBefore(tname, b"r", b"cf")
    assert exc.value.type == TApplicationException.UNKNOWN_METHOD
    assert raw.getTableNames() is not None  # connection still usable


def test_get_table_regions_and_region_info(server, raw, tname):
    [region] = raw.getTableRegions(tname)
    assert region.startKey == b"" and region.endKey == b""
    assert re.fullmatch(re.escape(tname) + rb",,%d\.[0-9a-f]{32}\." % region.id, region.name)
    assert raw.getTableRegions(b"no_such_table_xyz") == []
    # getRegionInfo takes a meta row key "<table>,<row>,<ts>" and finds its region
    info = raw.getRegionInfo(tname + b",somerow,99999999999999")
    assert info == region


def test_atomic_increment(raw, tname):
    assert raw.atomicIncrement(tname, b"c", b"cf:n", 5) == 5
    assert raw.atomicIncrement(tname, b"c", b"cf:n", -7) == -2
    assert raw.atomicIncrement(tname, b"c", b"cf:n", 0) == -2
    assert raw.get(tname, b"c", b"cf:n", {})[0].value == be64(-2)


def test_increment_and_increment_rows(raw, tname):
    assert raw.increment(H.TIncrement(table=tname, row=b"c", column=b"cf:n", ammount=10)) is None
    raw.incrementRows(
        [
            H.TIncrement(table=tname, row=b"c", column=b"cf:n", ammount=-1),
            H.TIncrement(table=tname, row=b"c2", column=b"cf:m", ammount=2),
            H.TIncrement(table=tname, row=b"c2", column=b"cf:m", ammount=3),
        ]
    )
    assert raw.get(tname, b"c", b"cf:n", {})[0].value == be64(9)
    assert raw.get(tname, b"c2", b"cf:m", {})[0].value == be64(5)


def test_check_and_put(raw, tname):
    put(raw, tname, b"r", {b"cf:a": b"1"})
    M = H.Mutation
    assert raw.checkAndPut(tname, b"r", b"cf:a", b"1", M(column=b"cf:a", value=b"one"), {}) is True
    assert raw.checkAndPut(tname, b"r", b"cf:a", b"1", M(column=b"cf:a", value=b"uno"), {}) is False
    # value None: the check is that the column does not exist
    assert raw.checkAndPut(tname, b"r", b"cf:new", None, M(column=b"cf:new", value=b"n"), {}) is True
    assert raw.checkAndPut(tname, b"r", b"cf:new", None, M(column=b"cf:new", value=b"n2"), {}) is False
    # the put may go to another column than the checked one
    assert raw.checkAndPut(tname, b"r", b"cf:a", b"one", M(column=b"cf:b", value=b"bee"), {}) is True
    [row] = raw.getRow(tname, b"r", {})
    assert {c: cell.value for c, cell in row.columns.items()} == {b"cf:a": b"one", b"cf:new": b"n", b"cf:b": b"bee"}
    # a missing row: the check against a value fails, the non-existence check succeeds
    assert raw.checkAndPut(tname, b"nr", b"cf:a", b"x", M(column=b"cf:a", value=b"y"), {}) is False
    assert raw.checkAndPut(tname, b"nr", b"cf:a", None, M(column=b"cf:a", value=b"y"), {}) is True


def test_append(raw, tname):
    put(raw, tname, b"r", {b"cf:a": b"one"})
    cells = raw.append(H.TAppend(table=tname, row=b"r", columns=[b"cf:a", b"cf:z"], values=[b"+A", b"Z"]))
    assert [c.value for c in cells] == [b"one+A", b"Z"]
    assert cells[0].timestamp == cells[1].timestamp
    [row] = raw.getRow(tname, b"r", {})
    assert {c: cell.value for c, cell in row.columns.items()} == {b"cf:a": b"one+A", b"cf:z": b"Z"}


@pytest.fixture
def six_rows(raw, tname):
    for i in range(6):
        put(raw, tname, b"s%d" % i, {b"cf:a": b"%d" % i, b"cg:b": b"b%d" % i}, 100 + i)
    return tname


def test_scanner_open_with_stop_and_get_list(raw, six_rows):
    sid = raw.scannerOpenWithStop(six_rows, b"s1", b"s4", [b"cf"], {})
    assert isinstance(sid, int)
    first = raw.scannerGetList(sid, 2)
    assert [(r.row, r.columns) for r in first] == [
        (b"s1", {b"cf:a": H.TCell(b"1", 101)}),
        (b"s2", {b"cf:a": H.TCell(b"2", 102)}),
    ]
    assert [r.row for r in raw.scannerGetList(sid, 5)] == [b"s3"]
    assert raw.scannerGetList(sid, 5) == []
    assert raw.scannerGet(sid) == []
    raw.scannerClose(sid)


def test_scanner_get_one_by_one(raw, six_rows):
    sid = raw.scannerOpen(six_rows, b"s4", [], {})
    assert [r.row for r in raw.scannerGet(sid)] == [b"s4"]
    assert [r.row for r in raw.scannerGet(sid)] == [b"s5"]
    assert raw.scannerGet(sid) == []
    raw.scannerClose(sid)


def test_scanner_open_with_prefix(raw, six_rows):
    put(raw, six_rows, b"t0", {b"cf:a": b"t"})
    sid = raw.scannerOpenWithPrefix(six_rows, b"s", [b"cf:a"], {})
    got = raw.scannerGetList(sid, 100)
    assert [(r.row, r.columns) for r in got] == [(b"s%d" % i, {b"cf:a": H.TCell(b"%d" % i, 100 + i)}) for i in range(6)]
    raw.scannerClose(sid)


def test_scanner_open_ts(raw, six_rows):
    sid = raw.scannerOpenTs(six_rows, b"", [b"cf:a"], 103, {})
    assert [r.row for r in raw.scannerGetList(sid, 100)] == [b"s0", b"s1", b"s2"]
    raw.scannerClose(sid)
    sid = raw.scannerOpenWithStopTs(six_rows, b"s1", b"s5", [], 104, {})
    assert [r.row for r in raw.scannerGetList(sid, 100)] == [b"s1", b"s2", b"s3"]
    raw.scannerClose(sid)


def test_scanner_with_scan_sorted_columns(raw, six_rows):
    sid = raw.scannerOpenWithScan(six_rows, H.TScan(startRow=b"s2", stopRow=b"s3", sortColumns=True), {})
    [row] = raw.scannerGetList(sid, 10)
    assert row.columns is None
    assert row.sortedColumns == [
        H.TColumn(columnName=b"cf:a", cell=H.TCell(b"2", 102)),
        H.TColumn(columnName=b"cg:b", cell=H.TCell(b"b2", 102)),
    ]
    raw.scannerClose(sid)


def test_scanner_get_list_zero_and_negative(raw, six_rows):
    sid = raw.scannerOpen(six_rows, b"", [], {})
    assert raw.scannerGetList(sid, 0) == []
    with pytest.raises(TApplicationException) as exc:
        raw.scannerGetList(sid, -1)
    assert exc.value.type == TApplicationException.INTERNAL_ERROR
    raw.scannerClose(sid)


def test_closed_or_unknown_scanner_is_illegal_argument(raw, six_rows):
    sid = raw.scannerOpen(six_rows, b"", [], {})
    raw.scannerClose(sid)
    with pytest.raises(H.IllegalArgument):
        raw.scannerGet(sid)
    with pytest.raises(H.IllegalArgument):
        raw.scannerGetList(sid, 1)
    with pytest.raises(H.IllegalArgument):
        raw.scannerClose(sid)
    with pytest.raises(H.IllegalArgument):
        raw.scannerGet(987654321)


def test_delete_all_variants(raw, versioned):
    put(raw, versioned, b"r", {b"cf:b": b"b"}, 25)
    raw.deleteAllTs(versioned, b"r", b"cf:a", 20, {})
    assert raw.getVer(versioned, b"r", b"cf:a", 10, {}) == [H.TCell(b"x30", 30)]
    raw.deleteAll(versioned, b"r", b"cf:a", {})
    assert raw.get(versioned, b"r", b"cf:a", {}) == []
    raw.deleteAllRowTs(versioned, b"r", 24, {})
    assert raw.get(versioned, b"r", b"cf:b", {}) == [H.TCell(b"b", 25)]
    raw.deleteAllRow(versioned, b"r", {})
    assert raw.getRow(versioned, b"r", {}) == []


def test_mutate_row_with_delete_mutation(raw, tname):
    put(raw, tname, b"r", {b"cf:a": b"1", b"cf:b": b"2"}, 10)
    raw.mutateRowTs(
        tname, b"r", [H.Mutation(isDelete=True, column=b"cf:a"), H.Mutation(column=b"cf:c", value=b"3")], 20, {}
    )
    [row] = raw.getRow(tname, b"r", {})
    assert row.columns == {b"cf:b": H.TCell(b"2", 10), b"cf:c": H.TCell(b"3", 20)}


def test_compact_and_major_compact(raw, versioned):
    raw.compact(versioned)
    raw.majorCompact(versioned)
    # data is unchanged (compactions are asynchronous and invisible to reads)
    assert raw.getVer(versioned, b"r", b"cf:a", 10, {}) == [H.TCell(b"x30", 30), H.TCell(b"x20", 20), H.TCell(b"x10", 10)]
    with pytest.raises(H.IOError):
        raw.compact(b"no_such_table_xyz")


def test_column_descriptors_raw(raw, tname):
    descs = raw.getColumnDescriptors(tname)
    assert sorted(descs) == [b"cf:", b"cg:"]
    assert descs[b"cg:"] == H.ColumnDescriptor(
        name=b"cg:",
        maxVersions=1,
        compression=b"NONE",
        inMemory=False,
        bloomFilterType=b"NONE",
        bloomFilterVectorSize=0,
        bloomFilterNbHashes=0,
        blockCacheEnabled=False,
        timeToLive=2147483647,
    )
    assert raw.isTableEnabled(tname) is True
