"""Process-level crash test: `strata server` is killed with SIGKILL at random moments under
a mixed Thrift1 load, restarted, and checked against a ledger of acknowledged operations.

After every restart:
* every acknowledged write is present with its value (lost writes are counted);
* no acknowledged delete has come back;
* every counter equals its acknowledged increments (in-flight ones may or may not count);
* a full scan returns each row once, in order, and point reads (getRows) agree with it.

Small thresholds in the server config (1 MiB flushes, 1 MiB first split) make flushes,
compactions and splits happen during the load; a background caller also asks for major
compactions now and then.

Usage (from the repository root):
    python=$(scripts/python-env)
    STRATA_BIN=target/release/strata $python tests/reliability/crash_loop.py \
        --cycles 300 --seed 1 --durability sync_wal
Exit status 0 when every check passed, 1 otherwise; the last line is a JSON summary.
"""

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ledger import Failure, Ledger  # noqa: E402
from server import H, StrataProcess, default_binary, raw_client  # noqa: E402
from workload import TABLE, Worker, create_table  # noqa: E402

ENGINE_CONFIG = {
    "memstore_flush_mb": 1,
    "split_initial_mb": 1,
    "max_region_mb": 4,
    "wal_segment_mb": 1,
    "auto_split": True,
}


def scan_all(raw):
    """Every row of the table as {row: {column: value}}; fails on order or duplicates."""
    rows, previous = {}, None
    scanner = raw.scannerOpenWithScan(TABLE, H.TScan(caching=200), {})
    try:
        while True:
            batch = raw.scannerGetList(scanner, 200)
            if not batch:
                break
            for result in batch:
                if previous is not None and result.row <= previous:
                    raise Failure("scan returned %r after %r (out of order or duplicated)" % (result.row, previous))
                previous = result.row
                rows[result.row] = {c: cell.value for c, cell in result.columns.items()}
    finally:
        raw.scannerClose(scanner)
    return rows


def point_reads_agree(raw, scanned, rng, sample=60):
    """getRows of a sample of rows (present and absent) must match the scan."""
    rows = sorted(scanned)
    picks = rng.sample(rows, min(sample, len(rows))) + [b"d9-nope", b"zz"]
    got = {r.row: {c: cell.value for c, cell in r.columns.items()} for r in raw.getRows(TABLE, picks, {})}
    problems = []
    for row in picks:
        if got.get(row, {}) != scanned.get(row, {}):
            problems.append("getRows(%r) = %r but the scan has %r" % (row, got.get(row), scanned.get(row)))
    return problems


class CompactionPoker:
    """Asks for a major compaction every so often, ignoring failures (the server may die)."""

    def __init__(self, port, rng, stop):
        self.port, self.rng, self.stop = port, rng, stop
        self.requests = 0

    def run(self):
        try:
            raw, transport = raw_client(self.port)
        except Exception:  # noqa: BLE001
            return
        try:
            while not self.stop.wait(self.rng.uniform(0.2, 1.0)):
                (raw.majorCompact if self.rng.random() < 0.5 else raw.compact)(TABLE)
                self.requests += 1
        except Exception:  # noqa: BLE001
            pass
        finally:
            transport.close()


def run_cycle(server, ledger, cycle, args, rng, clocks):
    """One load + kill + restart + check; returns (problems, stats)."""
    stop = threading.Event()
    workers = [
        Worker(i, server.port, ledger, random.Random(rng.random()), clocks[i], stop)
        for i in range(args.threads)
    ]
    poker = CompactionPoker(server.port, random.Random(rng.random()), stop)
    threads = [threading.Thread(target=w.run, daemon=True) for w in workers]
    threads.append(threading.Thread(target=poker.run, daemon=True))
    for t in threads:
        t.start()
    time.sleep(rng.uniform(args.min_run, args.max_run))
    server.kill()
    stop.set()
    for t in threads:
        t.join(timeout=60)
    for i, w in enumerate(workers):
        clocks[i] = w.clock
    restart = server.start()
    raw, transport = raw_client(server.port)
    try:
        scanned = scan_all(raw)
        problems = [p for w in workers for p in w.problems]
        problems += ledger.verify(scanned)
        problems += point_reads_agree(raw, scanned, rng)
        regions = len(raw.getTableRegions(TABLE))
    finally:
        transport.close()
    errors = [e for w in workers for e in w.errors]
    return problems, {"restart_s": restart, "rows": len(scanned), "regions": regions, "errors": errors}


def run(args):
    rng = random.Random(args.seed)
    workdir = args.workdir or tempfile.mkdtemp(prefix="strata-crash-")
    config = dict(ENGINE_CONFIG, durability=args.durability)
    server = StrataProcess(args.binary, workdir, config)
    ledger = Ledger()
    clocks = [1_000_000 * (i + 1) for i in range(args.threads)]
    summary = {"seed": args.seed, "durability": args.durability, "workdir": workdir, "cycles": 0,
               "acked_ops": 0, "uncertain_ops": 0, "lost_or_wrong": 0, "max_regions": 0,
               "server_errors": 0, "restart_s_max": 0.0, "restart_s_median": 0.0}
    restarts, failed = [], []
    server.start()
    try:
        create_table(server.port)
        for cycle in range(1, args.cycles + 1):
            problems, stats = run_cycle(server, ledger, cycle, args, rng, clocks)
            restarts.append(stats["restart_s"])
            summary["cycles"] = cycle
            summary["acked_ops"] = ledger.acked_ops
            summary["uncertain_ops"] = ledger.uncertain_ops
            summary["max_regions"] = max(summary["max_regions"], stats["regions"])
            summary["server_errors"] += sum(1 for _, e in stats["errors"] if "TTransportException" not in e and "Connection" not in e and "Broken pipe" not in e)
            if args.verbose:
                print("cycle %d: acked %d, rows %d, regions %d, restart %.2fs, errors %s"
                      % (cycle, ledger.acked_ops, stats["rows"], stats["regions"], stats["restart_s"], stats["errors"][:2]), flush=True)
            if problems:
                summary["lost_or_wrong"] += len(problems)
                failed.append({"cycle": cycle, "problems": problems[:20]})
                print("cycle %d FAILED (seed %d):\n  %s" % (cycle, args.seed, "\n  ".join(problems[:20])), flush=True)
                break
    finally:
        server.stop()
    restarts.sort()
    if restarts:
        summary["restart_s_max"] = round(restarts[-1], 3)
        summary["restart_s_median"] = round(restarts[len(restarts) // 2], 3)
    summary["failures"] = failed
    summary["sst_files_now"] = sum(1 for _, _, fs in os.walk(server.data_dir) for f in fs if f.endswith(".sst"))
    return summary


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cycles", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--durability", choices=("sync_wal", "fsync_wal"), default="sync_wal")
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--min-run", type=float, default=0.3, help="least seconds of load before the kill")
    p.add_argument("--max-run", type=float, default=3.0, help="most seconds of load before the kill")
    p.add_argument("--binary", default=default_binary())
    p.add_argument("--workdir", help="keep the data directory and server log here")
    p.add_argument("-v", "--verbose", action="store_true")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    summary = run(args)
    print(json.dumps(summary))
    return 0 if not summary["failures"] else 1


if __name__ == "__main__":
    sys.exit(main())
