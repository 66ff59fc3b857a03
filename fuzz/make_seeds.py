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


if __name__ == "__main__":
    main()
