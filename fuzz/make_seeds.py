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


if __name__ == "__main__":
    main()
