"""Write overload of a real `strata server` process, with its RSS over time.

Writer processes push large happybase batches (one table each) as fast as they can for
`--duration` seconds against a server configured with a small memstore limit, small flushes,
throttled compaction and few blocking store files, so writes arrive far faster than flush
and compaction absorb them. Meanwhile one reader does point gets of preloaded rows and
records their latency, and the server's RSS is sampled from /proc/PID/status every 0.5 s.
The server must push back (a write waits up to `write_wait_timeout_ms`, then fails with an
IOError "too busy: ..."), keep its RSS bounded, keep answering reads, and accept writes again
once the load stops; every acknowledged batch must read back (sample check).

Usage (from the repository root):
    python=$(scripts/python-env)
    STRATA_BIN=target/release/strata $python tests/reliability/overload.py --duration 180 \\
        --csv overload.csv
The last line printed is a JSON summary; `--csv` writes `time_s,rss_mb` samples.
"""

import argparse
import json
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import threading
import time

import happybase

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from server import StrataProcess, default_binary  # noqa: E402

PROBE_TABLE = "probe"
PROBE_ROWS = 200
MIB = 1 << 20


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=180.0, help="seconds of overload")
    p.add_argument("--writers", type=int, default=3, help="writer processes")
    p.add_argument("--batch-rows", type=int, default=32, help="rows per mutateRows call")
    p.add_argument("--value-kb", type=int, default=32, help="value size of each row")
    p.add_argument("--memstore-limit-mb", type=int, default=32)
    p.add_argument("--flush-mb", type=int, default=4)
    p.add_argument("--block-cache-mb", type=int, default=8)
    p.add_argument("--compaction-mb-per-sec", type=int, default=1)
    p.add_argument("--blocking-store-files", type=int, default=4)
    p.add_argument("--write-wait-ms", type=int, default=500)
    p.add_argument("--recovery-timeout", type=float, default=120.0,
                   help="seconds to wait for a write to be accepted after the load")
    p.add_argument("--settle", type=float, default=10.0,
                   help="seconds of RSS samples kept after the load stops")
    p.add_argument("--verify-sample", type=int, default=400,
                   help="acknowledged batches checked after the load (plus each writer's last)")
    p.add_argument("--csv", help="write time_s,rss_mb samples here")
    p.add_argument("--scan", action="store_true",
                   help="also scan the written tables in a loop, to fill the block cache")
    p.add_argument("--memory-limit-mb", type=int, default=None,
                   help="memory_limit_mb: sizes the memstores, block cache and write and request "
                        "budgets (replaces --memstore-limit-mb and --block-cache-mb)")
    p.add_argument("--request-inflight-mb", type=int, default=None,
                   help="[limits] max_request_bytes_in_flight in MiB (default: the server's)")
    p.add_argument("--write-inflight-mb", type=int, default=None,
                   help="[limits] max_write_bytes_in_flight in MiB (default: the server's)")
    p.add_argument("--workdir", help="keep the data and server log here (default: a temp dir)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-v", "--verbose", action="store_true")
    return p.parse_args(argv)


def engine_config(args):
    sized = {} if args.memory_limit_mb else {
        "memstore_limit_mb": args.memstore_limit_mb,
        "block_cache_mb": args.block_cache_mb,
    }
    return {
        **sized,
        "memstore_flush_mb": args.flush_mb,
        "compaction_mb_per_sec": args.compaction_mb_per_sec,
        "blocking_store_files": args.blocking_store_files,
        "write_wait_timeout_ms": args.write_wait_ms,
        "auto_split": False,
    }


def rss_kib(pid, field="VmRSS"):
    """A `Vm*` field of /proc/PID/status in KiB (VmHWM is the peak RSS); None if gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def error_text(e):
    """The message of a Thrift exception (IOError carries it in `message`), else repr."""
    message = getattr(e, "message", None)
    if isinstance(message, bytes):
        return message.decode("utf-8", "replace")
    return message if isinstance(message, str) else repr(e)


def is_too_busy(e):
    return "too busy" in error_text(e)


def writer_table(w):
    return "load%d" % w


def row_key(batch, i):
    return b"b%08d-%03d" % (batch, i)


def value_for(w, batch, i, size):
    """A value that names its writer, batch and row, so a read proves it is the right one."""
    head = b"w%d b%d i%d|" % (w, batch, i)
    return head + b"x" * (size - len(head))


def writer_main(w, port, args, stop_at, results):
    """One writer process: batches until `stop_at` (time.time()); reports its tallies."""
    size = args.value_kb * 1024
    tally = {"writer": w, "acked": [], "refused": 0, "other_errors": [], "stalls": 0,
             "max_call_s": 0.0, "refusal_messages": set()}
    conn = happybase.Connection("127.0.0.1", port, timeout=120_000, autoconnect=True)
    table = conn.table(writer_table(w))
    batch = 0
    while time.time() < stop_at:
        started = time.monotonic()
        try:
            with table.batch() as b:
                for i in range(args.batch_rows):
                    b.put(row_key(batch, i), {b"cf:v": value_for(w, batch, i, size)})
            tally["acked"].append(batch)
        except Exception as e:  # noqa: BLE001 - every failure is classified and counted
            if is_too_busy(e):
                tally["refused"] += 1
                tally["refusal_messages"].add(error_text(e)[:120])
            else:
                tally["other_errors"].append(error_text(e)[:200])
                if len(tally["other_errors"]) > 20:
                    break
                try:
                    conn.close()
                    conn = happybase.Connection("127.0.0.1", port, timeout=120_000)
                    table = conn.table(writer_table(w))
                except Exception:  # noqa: BLE001
                    time.sleep(0.2)
        elapsed = time.monotonic() - started
        tally["max_call_s"] = max(tally["max_call_s"], elapsed)
        # A call that waited at least half the write wait was held back by the server.
        if elapsed >= args.write_wait_ms / 2000.0:
            tally["stalls"] += 1
        batch += 1
    conn.close()
    tally["refusal_messages"] = sorted(tally["refusal_messages"])
    results.put(tally)


class RssSampler(threading.Thread):
    """Samples the server's RSS every `interval` s into (t since `t0`, MiB) pairs."""

    def __init__(self, pid, t0, interval=0.5):
        super().__init__(daemon=True)
        self.pid, self.t0, self.interval = pid, t0, interval
        self.samples = []
        self.halt = threading.Event()

    def run(self):
        while not self.halt.is_set():
            kib = rss_kib(self.pid)
            if kib is not None:
                self.samples.append((time.monotonic() - self.t0, kib / 1024.0))
            self.halt.wait(self.interval)


class Reader(threading.Thread):
    """Point gets of random preloaded probe rows, a few per 100 ms, with their latency."""

    def __init__(self, port, t0, seed):
        super().__init__(daemon=True)
        self.port, self.t0 = port, t0
        self.rng = random.Random(seed)
        self.latencies = []  # (t, seconds)
        self.errors = []
        self.wrong = 0
        self.halt = threading.Event()

    def run(self):
        conn = happybase.Connection("127.0.0.1", self.port, timeout=60_000)
        table = conn.table(PROBE_TABLE)
        while not self.halt.is_set():
            i = self.rng.randrange(PROBE_ROWS)
            started = time.monotonic()
            try:
                row = table.row(b"p%04d" % i)
                self.latencies.append((started - self.t0, time.monotonic() - started))
                if row.get(b"cf:v") != b"probe %d" % i:
                    self.wrong += 1
            except Exception as e:  # noqa: BLE001
                self.errors.append(error_text(e)[:200])
            self.halt.wait(0.02)
        conn.close()


class Scanner(threading.Thread):
    """Scans the writers' tables over and over, so the block cache fills with flushed data
    (without it, the cache would stay nearly empty and its budget would not be tested)."""

    def __init__(self, port, writers):
        super().__init__(daemon=True)
        self.port, self.writers = port, writers
        self.rows = 0
        self.errors = []
        self.halt = threading.Event()

    def run(self):
        conn = happybase.Connection("127.0.0.1", self.port, timeout=60_000)
        while not self.halt.is_set():
            for w in range(self.writers):
                try:
                    for _ in conn.table(writer_table(w)).scan(batch_size=8):
                        self.rows += 1
                        if self.halt.is_set():
                            break
                except Exception as e:  # noqa: BLE001
                    self.errors.append(error_text(e)[:200])
            self.halt.wait(0.1)
        conn.close()


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100.0 * len(ordered)))]


def setup_tables(port, writers):
    conn = happybase.Connection("127.0.0.1", port, timeout=60_000)
    for name in [PROBE_TABLE] + [writer_table(w) for w in range(writers)]:
        conn.create_table(name, {"cf": dict(max_versions=1)})
    probe = conn.table(PROBE_TABLE)
    with probe.batch() as b:
        for i in range(PROBE_ROWS):
            b.put(b"p%04d" % i, {b"cf:v": b"probe %d" % i})
    conn.close()


def wait_for_write(port, timeout):
    """Seconds until a put is accepted and reads back (None if not within `timeout`)."""
    started = time.monotonic()
    conn = happybase.Connection("127.0.0.1", port, timeout=60_000)
    table = conn.table(PROBE_TABLE)
    while time.monotonic() - started < timeout:
        try:
            table.put(b"recovered", {b"cf:v": b"yes"})
            if table.row(b"recovered").get(b"cf:v") == b"yes":
                conn.close()
                return time.monotonic() - started
        except Exception as e:  # noqa: BLE001
            if not is_too_busy(e):
                raise
        time.sleep(0.1)
    conn.close()
    return None


def verify_acked(port, tallies, args, rng):
    """Reads back a sample of acknowledged batches (each writer's last one included): every
    row of each must hold exactly the value written. Returns a list of problems."""
    size = args.value_kb * 1024
    chosen = []
    for t in tallies:
        acked = t["acked"]
        if acked:
            chosen.append((t["writer"], acked[-1]))
            chosen += [(t["writer"], b) for b in rng.sample(acked, min(len(acked), args.verify_sample // max(1, len(tallies))))]
    problems = []
    conn = happybase.Connection("127.0.0.1", port, timeout=120_000)
    for w, batch in sorted(set(chosen)):
        keys = [row_key(batch, i) for i in range(args.batch_rows)]
        got = dict(conn.table(writer_table(w)).rows(keys, columns=[b"cf:v"]))
        for i, key in enumerate(keys):
            if got.get(key, {}).get(b"cf:v") != value_for(w, batch, i, size):
                problems.append("writer %d batch %d row %s lost or wrong" % (w, batch, key))
    conn.close()
    return problems, len(set(chosen))


def summarize_rss(samples, load_end, bucket=10.0):
    """Min / mean / max RSS per `bucket` seconds: [(start_s, min, mean, max, phase)]."""
    out = {}
    for t, mb in samples:
        out.setdefault(int(t // bucket), []).append(mb)
    rows = []
    for k in sorted(out):
        v = out[k]
        phase = "load" if (k + 1) * bucket <= load_end + 1e-9 else "after" if k * bucket >= load_end else "mixed"
        rows.append((k * bucket, round(min(v), 1), round(sum(v) / len(v), 1), round(max(v), 1), phase))
    return rows


def run(args):
    workdir = args.workdir or tempfile.mkdtemp(prefix="strata-overload-")
    keep = bool(args.workdir)
    os.makedirs(workdir, exist_ok=True)
    server = StrataProcess(default_binary(), workdir, engine_config(args))
    limits = [("max_write_bytes_in_flight", args.write_inflight_mb),
              ("max_request_bytes_in_flight", args.request_inflight_mb)]
    limits = [(key, mb) for key, mb in limits if mb is not None]
    if args.memory_limit_mb:
        # A top-level key: it must come before the file's first [section].
        with open(server.config_path) as f:
            text = f.read()
        with open(server.config_path, "w") as f:
            f.write("memory_limit_mb = %d\n%s" % (args.memory_limit_mb, text))
    if limits:
        with open(server.config_path, "a") as f:
            f.write("[limits]\n")
            for key, mb in limits:
                f.write("%s = %d\n" % (key, mb << 20))
    rng = random.Random(args.seed)
    try:
        started = time.monotonic()
        server.start()
        pid = server.proc.pid
        setup_tables(server.port, args.writers)
        time.sleep(1.0)
        baseline_mb = rss_kib(pid) / 1024.0
        t0 = time.monotonic()
        setup_s = t0 - started
        results = multiprocessing.Queue()
        stop_at = time.time() + args.duration
        procs = [multiprocessing.Process(target=writer_main, args=(w, server.port, args, stop_at, results))
                 for w in range(args.writers)]
        # Fork the writers before this process starts threads (forking a threaded process
        # can copy a lock held by another thread).
        for p in procs:
            p.start()
        sampler = RssSampler(pid, t0)
        sampler.start()
        reader = Reader(server.port, t0, args.seed)
        reader.start()
        scanner = Scanner(server.port, args.writers) if args.scan else None
        if scanner:
            scanner.start()
        tallies = [results.get(timeout=args.duration + 300) for _ in procs]
        for p in procs:
            p.join(timeout=30)
        load_end = time.monotonic() - t0
        reader.halt.set()
        reader.join(timeout=60)
        if scanner:
            scanner.halt.set()
            scanner.join(timeout=60)
        read_during = [lat for _, lat in reader.latencies]
        recovery_s = wait_for_write(server.port, args.recovery_timeout)
        # Keep sampling a while to see where RSS settles.
        time.sleep(max(0.0, args.settle - (recovery_s or 0.0)))
        sampler.halt.set()
        sampler.join(timeout=5)
        alive = server.proc.poll() is None
        peak_hwm_mb = (rss_kib(pid, "VmHWM") or 0) / 1024.0
        verify_started = time.monotonic()
        problems, checked = verify_acked(server.port, tallies, args, rng) if alive else (["server died"], 0)
        verify_s = time.monotonic() - verify_started
        samples = sampler.samples
        after = [mb for t, mb in samples if t >= load_end]
        batch_mb = args.batch_rows * args.value_kb / 1024.0
        summary = {
            "duration_s": args.duration,
            "writers": args.writers,
            "batch_mb": round(batch_mb, 2),
            "config": engine_config(args),
            # With memory_limit_mb, the whole process's limit; otherwise only the memstores
            # and the block cache.
            "memory_limit_mb": args.memory_limit_mb,
            "scanned_rows": scanner.rows if scanner else 0,
            "scan_errors": scanner.errors[:3] if scanner else [],
            "configured_limit_mb": args.memory_limit_mb or args.memstore_limit_mb + args.block_cache_mb,
            "baseline_rss_mb": round(baseline_mb, 1),
            "peak_rss_sampled_mb": round(max(mb for _, mb in samples), 1) if samples else None,
            "peak_rss_hwm_mb": round(peak_hwm_mb, 1),
            "rss_end_mb": round(after[-1], 1) if after else None,
            "acked_batches": sum(len(t["acked"]) for t in tallies),
            "acked_mb": round(sum(len(t["acked"]) for t in tallies) * batch_mb, 1),
            "refused_batches": sum(t["refused"] for t in tallies),
            "stalled_calls": sum(t["stalls"] for t in tallies),
            "max_write_call_s": round(max(t["max_call_s"] for t in tallies), 3),
            "other_write_errors": sum(len(t["other_errors"]) for t in tallies),
            "other_write_error_examples": sorted({m for t in tallies for m in t["other_errors"]})[:3],
            "refusal_examples": sorted({m for t in tallies for m in t["refusal_messages"]})[:3],
            "reads": len(read_during),
            "read_errors": len(reader.errors),
            "read_wrong_values": reader.wrong,
            "read_p50_ms": ms(percentile(read_during, 50)),
            "read_p99_ms": ms(percentile(read_during, 99)),
            "read_max_ms": ms(max(read_during) if read_during else None),
            "recovery_s": None if recovery_s is None else round(recovery_s, 2),
            "server_alive": alive,
            "verified_batches": checked,
            "lost_or_wrong": problems,
            "rss_per_10s": summarize_rss(samples, load_end),
            "phases_s": {"setup": round(setup_s, 1), "load": round(load_end, 1),
                         "verify": round(verify_s, 1)},
            "workdir": workdir if keep else None,
        }
        if args.csv:
            with open(args.csv, "w") as f:
                f.write("time_s,rss_mb\n")
                for t, mb in samples:
                    f.write("%.2f,%.1f\n" % (t, mb))
        return summary
    finally:
        server.stop()
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def ms(seconds):
    return None if seconds is None else round(seconds * 1000.0, 1)


def main():
    args = parse_args()
    summary = run(args)
    for start, lo, mean, hi, phase in summary["rss_per_10s"]:
        print("t=%4.0f-%4.0f s  rss min/mean/max %6.1f %6.1f %6.1f MiB  (%s)" % (start, start + 10, lo, mean, hi, phase))
    print(json.dumps(summary))
    ok = summary["server_alive"] and not summary["lost_or_wrong"] and summary["recovery_s"] is not None
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
