#!/usr/bin/env python3
"""Writes the starting seeds of every fuzz target into fuzz/corpus/<target>/.

Usage: fuzz/make_seeds.py [SST_OR_WAL_FILE ...]
Files ending in .sst (written by Strata) seed sst_file, and their index and uncompressed data
blocks seed sst_index and sst_block; files named wal-*.log seed wal_segment, and their record
payloads seed wal_edit. Everything else is built here from the wire formats.
"""
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(n):
    return varint((n << 1) ^ (n >> 63))


# --- engine -------------------------------------------------------------------------------

def sst_seeds(path, i):
    data = open(path, "rb").read()
    put("sst_file", f"table{i}", data)
    trailer = data[-64:]
    index_off, index_size = struct.unpack_from("<QQ", trailer, 0)
    framed = data[index_off:index_off + index_size]
    if framed and framed[-5] == 0:
        put("sst_index", f"index{i}", framed[:-5])
        put("sst_block", f"index{i}", framed[:-5])
    # The first data block starts at 0; its size is the first index entry's handle.
    raw_index = framed[:-5]
    try:
        p = 0

        def rv(p):
            v, s = 0, 0
            while True:
                b = raw_index[p]; p += 1
                v |= (b & 0x7F) << s; s += 7
                if not b & 0x80:
                    return v, p
        shared, p = rv(p)
        unshared, p = rv(p)
        vlen, p = rv(p)
        p += unshared
        off, q = rv(p)
        size, q = rv(q)
        block = data[off:off + size]
        if block and block[-5] == 0:
            put("sst_block", f"data{i}", block[:-5])
    except IndexError:
        pass


def wal_seeds(path, i):
    data = open(path, "rb").read()
    put("wal_segment", f"segment{i}", data)
    pos, k = 24, 0
    while pos + 9 <= len(data):
        (length,) = struct.unpack_from("<I", data, pos)
        payload = data[pos + 9:pos + 9 + length]
        if len(payload) == length and data[pos + 8] == 1:
            put("wal_edit", f"edit{i}_{k}", payload)
            k += 1
        pos += 9 + length


def wal_edit_payload():
    cell = b"".join([varint(2), b"r1", varint(2), b"cf", varint(1), b"q",
                     struct.pack("<q", 1700000000000), bytes([4]), varint(1), b"v"])
    return varint(1) + varint(7) + varint(1) + cell


# --- filter language -------------------------------------------------------------------------

FILTERS = [
    "PrefixFilter('row1')",
    "KeyOnlyFilter() AND FirstKeyOnlyFilter()",
    "QualifierFilter(=, 'binary:a') OR SKIP ValueFilter(!=, 'substring:x')",
    "WHILE RowFilter(<=, 'binaryprefix:row')",
    "SingleColumnValueFilter('cf', 'a', =, 'regexstring:^[0-9]+$', true, false)",
    "ColumnRangeFilter('a', true, 'c', false)",
    "(ColumnPrefixFilter('a') OR MultipleColumnPrefixFilter('b', 'c')) AND PageFilter(2)",
    "TimestampsFilter(1, 2, 3)",
    "DependentColumnFilter('cf', 'a', true, =, 'binary:1')",
    "ColumnPaginationFilter(2, 1) AND ColumnCountGetFilter(1)",
    "InclusiveStopFilter('row2')",
    "ColumnValueFilter('cf', 'b', >, 'binary:a')",
    "FamilyFilter(=, 'binary:cf')",
    "SingleColumnValueExcludeFilter('cf', 'a', !=, 'binary:x')",
]


# --- thrift -------------------------------------------------------------------------------------

def tb_message(name, fields, mtype=1, seq=1):
    return (struct.pack(">I", 0x80010000 | mtype) + struct.pack(">i", len(name)) + name
            + struct.pack(">i", seq) + fields + b"\x00")


def tb_string(fid, s):
    return bytes([11]) + struct.pack(">h", fid) + struct.pack(">i", len(s)) + s


def tb_i32(fid, v):
    return bytes([8]) + struct.pack(">h", fid) + struct.pack(">i", v)


def tb_i64(fid, v):
    return bytes([10]) + struct.pack(">h", fid) + struct.pack(">q", v)


def tb_bool(fid, v):
    return bytes([2]) + struct.pack(">h", fid) + bytes([1 if v else 0])


def tb_mutation_list(fid, muts):
    body = bytes([12]) + struct.pack(">i", len(muts))
    for col, val in muts:
        body += tb_bool(1, False) + tb_string(2, col) + tb_string(3, val) + tb_bool(4, True) + b"\x00"
    return bytes([15]) + struct.pack(">h", fid) + body


def tb_attrs(fid, pairs):
    body = bytes([11, 11]) + struct.pack(">i", len(pairs))
    for k, v in pairs:
        body += struct.pack(">i", len(k)) + k + struct.pack(">i", len(v)) + v
    return bytes([13]) + struct.pack(">h", fid) + body


def tc_message(name, fields, mtype=1, seq=1):
    return bytes([0x82, (mtype << 5) | 1]) + varint(seq) + varint(len(name)) + name + fields + b"\x00"


def tc_field(delta, ctype, payload):
    return bytes([(delta << 4) | ctype]) + payload


def tc_string(s):
    return varint(len(s)) + s


BINARY = {
    "getTableNames": tb_message(b"getTableNames", b""),
    "scannerGetList": tb_message(b"scannerGetList", tb_i32(1, 7) + tb_i32(2, 100)),
    "getRow": tb_message(b"getRow", tb_string(1, b"t") + tb_string(2, b"r1")
                         + tb_attrs(3, [(b"k", b"v")])),
    "mutateRowTs": tb_message(b"mutateRowTs", tb_string(1, b"t") + tb_string(2, b"r1")
                              + tb_mutation_list(3, [(b"cf:a", b"1"), (b"cf:b", b"2")])
                              + tb_i64(4, 42)),
    "scannerOpenWithScan": tb_message(
        b"scannerOpenWithScan", tb_string(1, b"t")
        + bytes([12]) + struct.pack(">h", 2) + tb_string(1, b"a") + tb_string(2, b"z")
        + tb_string(9, b"PrefixFilter('r')") + tb_bool(10, True) + b"\x00"),
}

COMPACT = {
    "c_getTableNames": tc_message(b"getTableNames", b""),
    "c_getRow": tc_message(b"getRow", tc_field(1, 8, tc_string(b"t")) + tc_field(1, 8, tc_string(b"r1"))),
    "c_scannerGetList": tc_message(b"scannerGetList", tc_field(1, 5, zigzag(7)) + tc_field(1, 5, zigzag(100))),
    "c_mutateRowTs": tc_message(
        b"mutateRowTs", tc_field(1, 8, tc_string(b"t")) + tc_field(1, 8, tc_string(b"r1"))
        + tc_field(1, 9, bytes([0x1C]) + tc_field(1, 2, b"") + tc_field(1, 8, tc_string(b"cf:a"))
                   + tc_field(1, 8, tc_string(b"1")) + tc_field(1, 1, b"") + b"\x00")
        + tc_field(1, 6, zigzag(42))),
}


# --- grpc RowFilter (protobuf) -------------------------------------------------------------------

def pb_len(field, body):
    return varint((field << 3) | 2) + varint(len(body)) + body


def pb_varint(field, v):
    return varint(field << 3) + varint(v)


ROW_FILTERS = {
    "pass_all": pb_varint(17, 1),
    "limit": pb_varint(11, 2),
    "column_limit": pb_varint(12, 1),
    "family_regex": pb_len(5, b"c.*"),
    "chain": pb_len(1, pb_len(1, pb_len(5, b"cf")) + pb_len(1, pb_len(9, b"a.*"))),
    "interleave": pb_len(2, pb_len(1, pb_varint(13, 1)) + pb_len(1, pb_len(19, b"lbl"))),
    "condition": pb_len(3, pb_len(1, pb_len(6, b"a")) + pb_len(2, pb_varint(18, 1))
                        + pb_len(3, pb_varint(17, 1))),
    "value_range": pb_len(15, pb_len(1, b"a") + pb_len(4, b"z")),
    "ts_range": pb_len(8, pb_varint(1, 1000) + pb_varint(2, 4000)),
    "column_range": pb_len(7, pb_len(1, b"cf") + pb_len(2, b"a") + pb_len(4, b"c")),
    "sink": pb_len(2, pb_len(1, pb_varint(16, 1)) + pb_len(1, pb_varint(13, 1))),
    "sample": varint((14 << 3) | 1) + struct.pack("<d", 0.5),
}


# --- REST (strata_rest::fuzz_support::rest_request: the first byte picks the parser) -------

def b64(s):
    import base64
    return base64.b64encode(s.encode()).decode()


REST_SEEDS = {
    "path_row": (0, "/t1/row1"),
    "path_cells": (0, "/ns%3At1/row1/cf:a,cf:b/1000,2000?v=3"),
    "path_ts": (0, "/t1/r%2Fx/cf:q/1700000000000"),
    "path_range": (0, "/t1/a,z/cf"),
    "path_glob": (0, "/t1/pre*/cf:q"),
    "path_scan": (0, "/t1/pre*?limit=10&startrow=a"),
    "path_multiget": (0, "/t1/multiget/cf:a,cf?row=r1&row=r%FF&v=2"),
    "path_schema": (0, "/ns%3At1/schema"),
    "path_scanner": (0, "/t1/scanner/1700000000000abc"),
    "path_namespace": (0, "/namespaces/ns/tables"),
    "path_check": (0, "/t1/row1/cf:q?check=put"),
    "path_version": (0, "/version/cluster"),
    "cellset_json": (1, '{"Row":[{"key":"%s","Cell":[{"column":"%s","timestamp":5,"$":"%s"}]}]}'
                     % (b64("row1"), b64("cf:a"), b64("v1"))),
    "cellset_json_bare": (1, '{"Row":[{"Cell":[{"$":"%s"}]}]}' % b64("v")),
    "cellset_xml": (2, '<?xml version="1.0"?><CellSet><Row key="%s"><Cell column="%s" '
                    'timestamp="7">%s</Cell></Row></CellSet>' % (b64("r"), b64("cf:q"), b64("x"))),
    "cellset_xml_bare": (2, '<CellSet><Row><Cell>%s</Cell></Row></CellSet>' % b64("x")),
    "scanner_json": (3, '{"startRow":"%s","endRow":"%s","column":["%s"],"batch":10,'
                     '"maxVersions":2,"startTime":0,"endTime":99,"limit":5,'
                     '"filter":"{\\"type\\":\\"PrefixFilter\\",\\"value\\":\\"%s\\"}"}'
                     % (b64("a"), b64("z"), b64("cf:q"), b64("r"))),
    "scanner_xml": (4, '<Scanner startRow="%s" batch="5"><column>%s</column>'
                    '<filter>PrefixFilter(\'r\')</filter></Scanner>' % (b64("a"), b64("cf"))),
    "filter_list": (5, '{"type":"FilterList","op":"MUST_PASS_ONE","filters":['
                    '{"type":"RowFilter","op":"EQUAL","comparator":{"type":"BinaryComparator",'
                    '"value":"%s"}},{"type":"SkipFilter","filters":[{"type":"ValueFilter",'
                    '"op":"NOT_EQUAL","comparator":{"type":"SubstringComparator","value":"x"}}]}]}'
                    % b64("r1")),
    "filter_scvf": (5, '{"type":"SingleColumnValueFilter","family":"%s","qualifier":"%s",'
                    '"op":"GREATER","comparator":{"type":"BinaryPrefixComparator","value":"%s"},'
                    '"ifMissing":true}' % (b64("cf"), b64("q"), b64("v"))),
    "filter_misc": (5, '{"type":"FilterList","filters":[{"type":"PageFilter","value":"3"},'
                    '{"type":"TimestampsFilter","timestamps":[1,"2"]},{"type":"ColumnRangeFilter",'
                    '"minColumn":"%s","maxColumn":"%s"},{"type":"MultipleColumnPrefixFilter",'
                    '"prefixes":["%s"]},{"type":"ColumnPaginationFilter","limit":2,"offset":1}]}'
                    % (b64("a"), b64("c"), b64("p"))),
    "filter_text": (5, "KeyOnlyFilter() AND PrefixFilter('a')"),
    "schema_json": (6, '{"name":"t1","ColumnSchema":[{"name":"cf","VERSIONS":"3","TTL":"86400",'
                    '"COMPRESSION":"ZSTD","BLOOMFILTER":"ROWCOL","IN_MEMORY":"false"}],"IS_META":"false"}'),
    "schema_xml": (7, '<?xml version="1.0"?><TableSchema name="t1"><ColumnSchema name="cf" '
                   'VERSIONS="2" KEEP_DELETED_CELLS="TTL" DATA_BLOCK_ENCODING="FAST_DIFF"/>'
                   '</TableSchema>'),
    "accept": (8, "application/json;q=0.5, text/xml, */*;q=0.1"),
}


# --- ZooKeeper facade (strata-zk) -------------------------------------------------------
# One connection's bytes: frames of a 4-byte big-endian length and a jute body.

def zk_frame(body):
    return struct.pack(">i", len(body)) + body


def zk_string(s):
    b = s.encode()
    return struct.pack(">i", len(b)) + b


def zk_connect(read_only=True):
    body = struct.pack(">iqiq", 0, 0, 30000, 0) + struct.pack(">i", 16) + bytes(16)
    return zk_frame(body + (b"\x00" if read_only else b""))


def zk_request(xid, op, body=b""):
    return zk_frame(struct.pack(">ii", xid, op) + body)


def zk_seeds():
    reads = b"".join([
        zk_request(1, 4, zk_string("/hbase/master") + b"\x01"),       # getData, watch
        zk_request(2, 3, zk_string("/hbase/hbaseid") + b"\x00"),      # exists
        zk_request(3, 8, zk_string("/hbase") + b"\x00"),              # getChildren
        zk_request(4, 12, zk_string("/") + b"\x00"),                  # getChildren2
        zk_request(-2, 11),                                          # ping
        zk_request(5, 6, zk_string("/hbase")),                       # getACL
        zk_request(6, 9, zk_string("/hbase")),                       # sync
        zk_request(7, 3, zk_string("/missing") + b"\x00"),
    ])
    put("zk_session", "reads", zk_connect() + reads)
    put("zk_session", "old_client_reads", zk_connect(read_only=False) + reads)
    set_watches = struct.pack(">q", 0) + struct.pack(">i", 1) + zk_string("/hbase/master") + struct.pack(">ii", 0, 0)
    put("zk_session", "reconnect", zk_connect() + zk_request(-8, 101, set_watches) + zk_request(1, 4, zk_string("/hbase/master") + b"\x00"))
    create = zk_string("/x") + struct.pack(">i", 0) + struct.pack(">i", 0) + struct.pack(">i", 0)
    put("zk_session", "writes_and_close", zk_connect() + zk_request(1, 1, create) + zk_request(2, 5, zk_string("/x")) + zk_request(3, 999) + zk_request(4, -11))
    put("zk_session", "truncated_body", zk_connect() + zk_request(1, 4, struct.pack(">i", 100)))


# --- HBase native RPC (strata-hrpc) ---------------------------------------------------------
# Protobufs are encoded by hand here (pb_len / pb_varint above), independently of prost.

def pb_str(field, text):
    return pb_len(field, text.encode() if isinstance(text, str) else text)


def delimited(msg):
    return varint(len(msg)) + msg


FILTER_PKG = "org.apache.hadoop.hbase.filter."


def pb_filter(name, body):
    return pb_str(1, FILTER_PKG + name) + pb_len(2, body)


def pb_binary_comparator(value, name="BinaryComparator"):
    return pb_str(1, FILTER_PKG + name) + pb_len(2, pb_len(1, pb_len(1, value)))


def pb_compare_filter(name, op, comparator):
    return pb_filter(name, pb_len(1, pb_varint(1, op) + pb_len(2, comparator)))


def pb_filter_list(op, filters):
    return pb_filter("FilterList", pb_varint(1, op) + b"".join(pb_len(2, f) for f in filters))


HRPC_FILTERS = {
    "prefix": pb_filter("PrefixFilter", pb_len(1, b"q")),
    "page_and_value": pb_filter_list(1, [
        pb_filter("PageFilter", pb_varint(1, 10)),
        pb_compare_filter("ValueFilter", 2, pb_binary_comparator(b"1")),
    ]),
    "or_of_rows": pb_filter_list(2, [
        pb_compare_filter("RowFilter", 1, pb_binary_comparator(b"row1", "BinaryPrefixComparator")),
        pb_compare_filter("QualifierFilter", 3, pb_str(1, FILTER_PKG + "SubstringComparator")
                          + pb_len(2, pb_str(1, "b"))),
    ]),
    "regex": pb_compare_filter("FamilyFilter", 2, pb_str(1, FILTER_PKG + "RegexStringComparator")
                               + pb_len(2, pb_str(1, "c.") + pb_varint(2, 2 | 32) + pb_str(3, "UTF-8"))),
    "while_skip": pb_filter("WhileMatchFilter", pb_len(1, pb_filter(
        "SkipFilter", pb_len(1, pb_compare_filter("ValueFilter", 3, pb_binary_comparator(b"x")))))),
    "scvf": pb_filter("SingleColumnValueFilter", pb_len(1, b"cf") + pb_len(2, b"a") + pb_varint(3, 4)
                      + pb_len(4, pb_binary_comparator(b"1")) + pb_varint(5, 1) + pb_varint(6, 1)),
    "scvf_exclude": pb_filter("SingleColumnValueExcludeFilter", pb_len(1, pb_len(1, b"cf") + pb_len(2, b"b")
                              + pb_varint(3, 2) + pb_len(4, pb_binary_comparator(b"abc")))),
    "column_value": pb_filter("ColumnValueFilter", pb_len(1, b"cf") + pb_len(2, b"a") + pb_varint(3, 5)
                              + pb_len(4, pb_binary_comparator(b"0"))),
    "key_only": pb_filter_list(1, [pb_filter("KeyOnlyFilter", pb_varint(1, 1)),
                                   pb_filter("FirstKeyOnlyFilter", b"")]),
    "columns": pb_filter_list(1, [
        pb_filter("ColumnPrefixFilter", pb_len(1, b"a")),
        pb_filter("MultipleColumnPrefixFilter", pb_len(1, b"a") + pb_len(1, b"b")),
        pb_filter("ColumnRangeFilter", pb_len(1, b"a") + pb_varint(2, 1) + pb_len(3, b"c") + pb_varint(4, 0)),
        pb_filter("ColumnPaginationFilter", pb_varint(1, 2) + pb_varint(2, 0)),
        pb_filter("ColumnCountGetFilter", pb_varint(1, 3)),
    ]),
    "timestamps": pb_filter("TimestampsFilter", pb_len(1, varint(2) + varint(5)) + pb_varint(2, 0)),
    "stop_and_all": pb_filter_list(2, [pb_filter("InclusiveStopFilter", pb_len(1, b"row1")),
                                       pb_filter("FilterAllFilter", b"")]),
    "row_ranges": pb_filter("MultiRowRangeFilter", pb_len(1, pb_len(1, b"a") + pb_varint(2, 1)
                                                          + pb_len(3, b"h") + pb_varint(4, 0))
                            + pb_len(1, pb_len(1, b"q") + pb_varint(2, 0))),
    "empty_list": pb_filter_list(2, []),
}

REGION = pb_varint(1, 1) + pb_len(2, b"t,,1.0123456789abcdef0123456789abcdef.")


def hrpc_cell(row, family, qualifier, ts, code, value, tags=None):
    key = struct.pack(">H", len(row)) + row + bytes([len(family)]) + family + qualifier \
        + struct.pack(">qB", ts, code)
    kv = struct.pack(">ii", len(key), len(value)) + key + value
    if tags is not None:
        kv += struct.pack(">H", len(tags)) + tags
    return struct.pack(">i", len(kv)) + kv


def hrpc_header(call_id, method, cells=b""):
    header = pb_varint(1, call_id) + pb_str(3, method) + pb_varint(4, 1)
    if cells:
        header += pb_len(5, pb_varint(1, len(cells)))
    return header


def hrpc_payload(call_id, method, param, cells=b""):
    """A request frame's payload: delimited header, delimited parameter, cell block."""
    return delimited(hrpc_header(call_id, method, cells)) + delimited(param) + cells


def hrpc_frame(call_id, method, param, cells=b""):
    payload = hrpc_payload(call_id, method, param, cells)
    return struct.pack(">I", len(payload)) + payload


def pb_column(family, *qualifiers):
    return pb_len(1, family) + b"".join(pb_len(2, q) for q in qualifiers)


def pb_scan(*fields):
    return b"".join(fields)


def pb_mutation(kind, row=None, columns=(), cell_count=None, ts=None):
    m = (pb_len(1, row) if row is not None else b"") + pb_varint(2, kind)
    for family, qvs in columns:
        body = pb_len(1, family)
        for q, v in qvs:
            body += pb_len(2, pb_len(1, q) + pb_len(2, v))
        m += pb_len(3, body)
    if ts is not None:
        m += pb_varint(4, ts)
    if cell_count is not None:
        m += pb_varint(8, cell_count)
    return m


PUT, DELETE, INCREMENT, APPEND = 2, 3, 1, 0

HRPC_CELLS = hrpc_cell(b"r1", b"cf", b"a", 1000, 4, b"v1") + hrpc_cell(b"r1", b"cf", b"b", 1000, 4, b"")
HRPC_CELLS2 = hrpc_cell(b"r2", b"cf", b"", 7, 14, b"")  # a family delete

HRPC_GET = pb_len(1, REGION) + pb_len(2, pb_len(1, b"r1") + pb_len(2, pb_column(b"cf", b"a"))
                                 + pb_len(5, pb_varint(1, 0) + pb_varint(2, 2000)) + pb_varint(6, 2))
HRPC_GET_FILTERED = pb_len(1, REGION) + pb_len(2, pb_len(1, b"r1") + pb_len(4, HRPC_FILTERS["page_and_value"]))
HRPC_SCAN_OPEN = pb_len(1, REGION) + pb_len(2, pb_scan(
    pb_len(3, b"a"), pb_len(4, b"q"), pb_len(5, HRPC_FILTERS["prefix"]), pb_varint(7, 1),
    pb_varint(9, 10), pb_varint(18, 1))) + pb_varint(4, 100)
HRPC_SCAN_NEXT = pb_varint(3, 1) + pb_varint(4, 100) + pb_varint(6, 1)
HRPC_MUTATE_PUT = pb_len(1, REGION) + pb_len(2, pb_mutation(PUT, b"r1", [(b"cf", [(b"a", b"1"), (b"b", b"2")])]))
HRPC_MUTATE_CELLS = pb_len(1, REGION) + pb_len(2, pb_mutation(PUT, b"r1", cell_count=2))
HRPC_CHECK_AND_PUT = HRPC_MUTATE_PUT + pb_len(3, pb_len(1, b"r1") + pb_len(2, b"cf") + pb_len(3, b"a")
                                              + pb_varint(4, 2) + pb_len(5, pb_binary_comparator(b"1"))
                                              + pb_len(6, pb_varint(1, 0)))
HRPC_MULTI = (pb_len(1, pb_len(1, REGION) + pb_len(3, pb_varint(1, 0) + pb_len(2, pb_mutation(PUT, b"r1", cell_count=2)))
                     + pb_len(3, pb_varint(1, 1) + pb_len(3, pb_len(1, b"r1")))
                     + pb_len(3, pb_varint(1, 2) + pb_len(2, pb_mutation(INCREMENT, b"c", [(b"cf", [(b"n", struct.pack(">q", 5))])]))))
              + pb_len(1, pb_len(1, REGION) + pb_varint(2, 1)
                       + pb_len(3, pb_len(2, pb_mutation(DELETE, b"r2", cell_count=1)))
                       + pb_len(3, pb_len(2, pb_mutation(DELETE, b"r3")))))

NO_CODEC, KV_CODEC, TAGS_CODEC = 0, 1, 2


def hrpc_connection_header(service, codec="org.apache.hadoop.hbase.codec.KeyValueCodec", compressor=None):
    h = pb_len(1, pb_str(1, "fuzz")) + pb_str(2, service)
    if codec is not None:
        h += pb_str(3, codec)
    if compressor is not None:
        h += pb_str(4, compressor)
    h += pb_len(5, pb_str(1, "2.6.1") + pb_str(2, "u") + pb_str(3, "r") + pb_str(4, "x") + pb_str(5, "d")
                + pb_str(6, "c") + pb_varint(7, 2) + pb_varint(8, 6))
    return b"HBas\x00\x50" + struct.pack(">I", len(h)) + h


def hrpc_seeds():
    client = hrpc_connection_header("ClientService")
    put("hrpc_connection", "get", client + hrpc_frame(1, "Get", HRPC_GET))
    put("hrpc_connection", "put_with_cells", client + hrpc_frame(1, "Mutate", HRPC_MUTATE_CELLS, HRPC_CELLS))
    put("hrpc_connection", "pipelined", client + hrpc_frame(1, "Get", HRPC_GET_FILTERED)
        + hrpc_frame(2, "Scan", HRPC_SCAN_OPEN) + hrpc_frame(3, "Scan", HRPC_SCAN_NEXT)
        + hrpc_frame(4, "Multi", HRPC_MULTI, HRPC_CELLS + HRPC_CELLS2))
    put("hrpc_connection", "master_no_codec", hrpc_connection_header("MasterService", codec=None)
        + hrpc_frame(1, "IsMasterRunning", b""))
    put("hrpc_connection", "registry", b"Regist")
    put("hrpc_connection", "secure_preamble", b"Securi" + bytes(8))
    put("hrpc_connection", "old_version", b"HBas\x01\x50")
    put("hrpc_connection", "unknown_codec", hrpc_connection_header("ClientService", codec="com.example.Codec"))
    put("hrpc_connection", "compressor", hrpc_connection_header(
        "ClientService", compressor="org.apache.hadoop.io.compress.GzipCodec"))
    put("hrpc_connection", "unknown_service", hrpc_connection_header("NoSuchService"))
    # A call frame declaring the 64 MiB limit and carrying a few bytes.
    put("hrpc_connection", "huge_frame_length", client + struct.pack(">I", 64 << 20) + b"\x05\x08\x01")
    put("hrpc_connection", "huge_header_length", b"HBas\x00\x50" + struct.pack(">I", 0xFFFFFFF0) + b"\x12")

    put("hrpc_request", "get", bytes([NO_CODEC]) + hrpc_payload(1, "Get", HRPC_GET))
    put("hrpc_request", "get_filtered", bytes([KV_CODEC]) + hrpc_payload(2, "Get", HRPC_GET_FILTERED))
    put("hrpc_request", "scan_open", bytes([KV_CODEC]) + hrpc_payload(3, "Scan", HRPC_SCAN_OPEN))
    put("hrpc_request", "scan_next", bytes([KV_CODEC]) + hrpc_payload(4, "Scan", HRPC_SCAN_NEXT))
    put("hrpc_request", "mutate_put", bytes([NO_CODEC]) + hrpc_payload(5, "Mutate", HRPC_MUTATE_PUT))
    put("hrpc_request", "check_and_put", bytes([KV_CODEC]) + hrpc_payload(6, "Mutate", HRPC_CHECK_AND_PUT))
    put("hrpc_request", "mutate_cells", bytes([KV_CODEC]) + hrpc_payload(7, "Mutate", HRPC_MUTATE_CELLS, HRPC_CELLS))
    put("hrpc_request", "multi_cells", bytes([KV_CODEC]) + hrpc_payload(
        8, "Multi", HRPC_MULTI, HRPC_CELLS + HRPC_CELLS2))
    tagged = hrpc_cell(b"r1", b"cf", b"a", 1, 4, b"v", b"\x00\x03\x01ab") + hrpc_cell(b"r1", b"cf", b"b", 1, 4, b"w", b"")
    put("hrpc_request", "mutate_tagged_cells", bytes([TAGS_CODEC]) + hrpc_payload(9, "Mutate", HRPC_MUTATE_CELLS, tagged))
    put("hrpc_request", "no_param", bytes([NO_CODEC]) + delimited(pb_varint(1, 10) + pb_str(3, "IsMasterRunning")))

    put("hrpc_cell_block", "three_cells", bytes([0]) + HRPC_CELLS + HRPC_CELLS2)
    put("hrpc_cell_block", "tagged", bytes([1]) + hrpc_cell(b"row", b"f", b"q", -1, 8, b"x" * 40, b"\x00\x02\x07z"))
    put("hrpc_cell_block", "delete_kinds", bytes([0]) + b"".join(
        hrpc_cell(b"r", b"f", b"q", 9, code, b"") for code in (4, 8, 10, 12, 14)))
    put("hrpc_cell_block", "big_row", bytes([0]) + hrpc_cell(b"k" * 300, b"f" * 200, b"q" * 70, 0, 4, b"v" * 500))

    put("hrpc_scan", "all", pb_varint(7, 1))
    put("hrpc_scan", "range", pb_scan(pb_len(3, b"b1"), pb_len(4, b"q2"), pb_varint(7, 3)))
    put("hrpc_scan", "exclusive_start_inclusive_stop", pb_scan(
        pb_len(3, b"g"), pb_len(4, b"p"), pb_varint(21, 0), pb_varint(22, 1)))
    put("hrpc_scan", "reversed", pb_scan(pb_varint(15, 1)))
    put("hrpc_scan", "reversed_range", pb_scan(pb_len(3, b"q"), pb_len(4, b"a"), pb_varint(15, 1), pb_varint(22, 1)))
    put("hrpc_scan", "reversed_from_region_end", pb_scan(pb_len(3, b"p"), pb_varint(15, 1), pb_varint(21, 0)))
    put("hrpc_scan", "columns_and_time", pb_scan(pb_len(1, pb_column(b"cf", b"a", b"b")), pb_len(1, pb_column(b"cg")),
                                                 pb_len(6, pb_varint(1, 2) + pb_varint(2, 5)), pb_varint(8, 0)))
    put("hrpc_scan", "bad_time_range", pb_scan(pb_len(6, pb_varint(1, 9) + pb_varint(2, 5))))
    put("hrpc_scan", "zero_versions", pb_scan(pb_varint(7, 0)))
    for name, f in HRPC_FILTERS.items():
        put("hrpc_scan", "filter_" + name, pb_scan(pb_len(3, b"a"), pb_len(5, f)))


def main():
    for i, path in enumerate(sys.argv[1:]):
        if path.endswith(".sst"):
            sst_seeds(path, i)
        elif os.path.basename(path).startswith("wal-"):
            wal_seeds(path, i)
    put("wal_edit", "one_put", wal_edit_payload())
    for i, text in enumerate(FILTERS):
        put("filter_parse", f"filter{i}", text.encode())
    for name, msg in BINARY.items():
        put("thrift_framed", name, msg)
        put("thrift_buffered", name, msg)
        put("thrift_buffered", "framed_" + name, struct.pack(">i", len(msg)) + msg)
    for name, msg in COMPACT.items():
        put("thrift_compact", name, msg)
        put("thrift_framed", name, msg)
        put("thrift_buffered", name, msg)
        put("thrift_buffered", "framed_" + name, struct.pack(">i", len(msg)) + msg)
    put("thrift_buffered", "pipelined", b"".join(BINARY.values()) + b"".join(COMPACT.values()))
    for name, msg in ROW_FILTERS.items():
        put("grpc_row_filter", name, msg)
    for name, (selector, text) in REST_SEEDS.items():
        put("rest_request", name, bytes([selector]) + text.encode())
    zk_seeds()
    hrpc_seeds()


if __name__ == "__main__":
    main()
