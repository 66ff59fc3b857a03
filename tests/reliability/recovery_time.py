"""Recovery time after a crash with a large unflushed WAL (not part of the CI suite).

Each trial: a fresh server whose memstores never flush (huge flush size), ~`--gb` GiB of
puts over Thrift, SIGKILL, restart. It reports the seconds from the restart until the
server accepts connections, and until a sample of rows (the last one written included)
reads back with the right values; then a keys-only scan counts every row.

Usage (from the repository root; use a release build):
    python=$(scripts/python-env)
    STRATA_BIN=target/release/strata $python tests/reliability/recovery_time.py --trials 3 --gb 1
The last line is a JSON summary with the median.
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from server import H, StrataProcess, default_binary, raw_client  # noqa: E402

TABLE = b"recovery"
VALUE_SIZE = 64 * 1024
ROWS_PER_CALL = 16


def value_for(row):
    """A value that depends on the row, so a read proves it is the right one."""
    seed = row * 2654435761 % (1 << 32)
    return seed.to_bytes(4, "big") * (VALUE_SIZE // 4)


def row_key(i):
    return b"r%09d" % i


def write_load(port, total_rows, threads):
    """Puts rows 0..total_rows over `threads` connections (mutateRows batches)."""
    chunks = [range(t, total_rows, threads) for t in range(threads)]
    errors = []

    def work(rows):
        try:
            raw, transport = raw_client(port, timeout_ms=120_000)
            batch = []
            for i in rows:
                batch.append(H.BatchMutation(row=row_key(i), mutations=[H.Mutation(column=b"cf:v", value=value_for(i))]))
                if len(batch) == ROWS_PER_CALL:
                    raw.mutateRows(TABLE, batch, {})
                    batch = []
            if batch:
                raw.mutateRows(TABLE, batch, {})
            transport.close()
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    workers = [threading.Thread(target=work, args=(c,)) for c in chunks]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise RuntimeError("load failed: %s" % errors[:3])


def read_back(port, total_rows, rng):
    """Reads a sample of rows (the last one included) and checks their values."""
    raw, transport = raw_client(port, timeout_ms=120_000)
    try:
        sample = sorted({total_rows - 1, 0, *(rng.randrange(total_rows) for _ in range(50))})
        got = {r.row: r.columns[b"cf:v"].value for r in raw.getRows(TABLE, [row_key(i) for i in sample], {})}
        for i in sample:
            if got.get(row_key(i)) != value_for(i):
                raise RuntimeError("row %d did not read back after recovery" % i)
    finally:
        transport.close()


def count_rows(port):
    raw, transport = raw_client(port, timeout_ms=300_000)
    try:
        scan = H.TScan(caching=5000, filterString=b"KeyOnlyFilter()")
        sid = raw.scannerOpenWithScan(TABLE, scan, {})
        n = 0
        while True:
            batch = raw.scannerGetList(sid, 5000)
            if not batch:
                break
            n += len(batch)
        raw.scannerClose(sid)
        return n
    finally:
        transport.close()


def trial(args, index):
    workdir = tempfile.mkdtemp(prefix="strata-recovery-", dir=args.tmp)
    config = {"memstore_flush_mb": 1 << 20, "memstore_limit_mb": 1 << 20, "auto_split": False}
    server = StrataProcess(args.binary, workdir, config, start_timeout=600)
    total_rows = int(args.gb * (1 << 30)) // VALUE_SIZE
    try:
        server.start()
        raw, transport = raw_client(server.port)
        raw.createTable(TABLE, [H.ColumnDescriptor(name=b"cf:", maxVersions=1)])
        transport.close()
        started = time.monotonic()
        write_load(server.port, total_rows, args.threads)
        load_s = time.monotonic() - started
        wal_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(server.data_dir, "wal")) for f in fs)
        sst_files = sum(1 for _, _, fs in os.walk(server.data_dir) for f in fs if f.endswith(".sst"))
        server.kill()
        restarted = time.monotonic()
        listen_s = server.start()
        read_back(server.port, total_rows, random.Random(index))
        readable_s = time.monotonic() - restarted
        rows = count_rows(server.port)
        if rows != total_rows:
            raise RuntimeError("after recovery the scan counted %d rows, %d were written" % (rows, total_rows))
        result = {"trial": index, "rows": total_rows, "wal_bytes": wal_bytes, "sst_files_before_kill": sst_files,
                  "load_s": round(load_s, 2), "listen_s": round(listen_s, 3), "readable_s": round(readable_s, 3)}
        print(json.dumps(result), flush=True)
        return result
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--gb", type=float, default=1.0, help="GiB of unflushed puts")
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--binary", default=default_binary())
    p.add_argument("--tmp", default=None, help="where trial directories go")
    p.add_argument("--keep", action="store_true", help="keep the trial directories")
    args = p.parse_args(argv)
    results = [trial(args, i) for i in range(args.trials)]
    listen = sorted(r["listen_s"] for r in results)
    readable = sorted(r["readable_s"] for r in results)
    print(json.dumps({"trials": len(results), "gb": args.gb, "binary": args.binary,
                      "median_listen_s": listen[len(listen) // 2], "median_readable_s": readable[len(readable) // 2],
                      "all_readable_s": readable}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
