"""Loads a small table through the Thrift API with happybase, for the browser test.

Usage: python load_data.py HOST PORT TABLE ROWS
Creates TABLE (families d and m), writes ROWS rows, major-compacts it (Strata flushes
first), rewrites a few rows, reads some back and scans them, then prints a JSON summary.
"""

import json
import sys

import happybase


def main():
    host, port, table_name, rows = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    connection = happybase.Connection(host=host, port=port, autoconnect=True)
    connection.create_table(table_name, {"d": dict(max_versions=3), "m": dict()})
    table = connection.table(table_name)
    with table.batch(batch_size=50) as batch:
        for i in range(rows):
            batch.put(b"user%05d" % i, {b"d:name": b"name %d" % i, b"m:visits": b"%d" % (i * 7)})
    # Flush and compact, so the table has store files; then a few updates for the memstore.
    connection.compact_table(table_name, major=True)
    for i in range(20):
        table.put(b"user%05d" % i, {b"d:name": b"name %d" % i})
    reads = 0
    for i in range(0, rows, 10):
        assert table.row(b"user%05d" % i)[b"d:name"] == b"name %d" % i
        reads += 1
    scanned = sum(1 for _ in table.scan(batch_size=100))
    assert scanned == rows, scanned
    connection.close()
    print(json.dumps({"table": table_name, "rows": rows, "gets": reads, "scanned": scanned}))


if __name__ == "__main__":
    main()
