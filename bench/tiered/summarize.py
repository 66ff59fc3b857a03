#!/usr/bin/env python3
"""Medians of bench/tiered-volumes.sh's runs, as Markdown tables.

usage: summarize.py OUT_DIR CONFIG...

Reads OUT_DIR/<config>.<round>.{bench.jsonl,server.json,background.json,wal.json} and prints
(1) throughput and p50/p99/p99.9 of each phase and operation, (2) where the store files
landed and what flushes, compactions and WAL syncs cost. Every figure is the median over
the rounds, taken figure by figure.
"""

import glob
import json
import os
import statistics
import sys


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def rounds(out, config):
    """The round numbers that left a complete bench result for `config`."""
    found = []
    for path in glob.glob(os.path.join(out, f"{config}.*.bench.jsonl")):
        tag = os.path.basename(path)[len(config) + 1 : -len(".bench.jsonl")]
        if tag.isdigit():
            found.append(int(tag))
    return sorted(found)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def phases(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def op_figures(phase, op):
    for o in phase.get("operations", []):
        if o["op"] == op:
            return o
    return {}


def fmt(value, digits=0):
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def latency(per_round, op):
    cells = []
    for key in ("p50_us", "p99_us", "p999_us"):
        cells.append(fmt(median([r.get(op, {}).get(key) for r in per_round])))
    return " / ".join(cells)


def main():
    out, configs = sys.argv[1], sys.argv[2:]
    print("| config | load ops/s | insert p50 / p99 / p99.9 µs | A ops/s "
          "| read p50 / p99 / p99.9 µs | update p50 / p99 / p99.9 µs | runs |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    placement = []
    for config in configs:
        numbers = rounds(out, config)
        if not numbers:
            continue
        load_ops, run_ops, load_lat, run_lat = [], [], [], []
        for n in numbers:
            runs = phases(os.path.join(out, f"{config}.{n}.bench.jsonl"))
            if len(runs) < 2:
                continue
            load, run = runs[0], runs[1]
            load_ops.append(load["ops_per_sec"])
            run_ops.append(run["ops_per_sec"])
            load_lat.append({"insert": op_figures(load, "insert")})
            run_lat.append({op: op_figures(run, op) for op in ("read", "update")})
        print(f"| {config} | {fmt(median(load_ops))} | {latency(load_lat, 'insert')} "
              f"| {fmt(median(run_ops))} | {latency(run_lat, 'read')} "
              f"| {latency(run_lat, 'update')} | {len(load_ops)} |")
        placement.append((config, numbers))

    print()
    print("| config | store files per volume (MiB) | flushes, mean ms | compactions, mean ms "
          "| WAL sync p99 µs per group (volume) |")
    print("|---|---|---:|---:|---|")
    for config, numbers in placement:
        volumes, flushes, flush_ms, compactions, compaction_ms, wal = {}, [], [], [], [], {}
        for n in numbers:
            server = load_json(os.path.join(out, f"{config}.{n}.server.json")) or {}
            for v in server.get("volumes", []):
                entry = volumes.setdefault(v["name"], {"files": [], "mib": [], "state": []})
                entry["files"].append(v.get("files"))
                entry["mib"].append((v.get("bytes") or 0) / (1 << 20))
                entry["state"].append(v.get("state"))
            totals = (load_json(os.path.join(out, f"{config}.{n}.background.json")) or {}).get(
                "totals", {})
            if totals.get("flushes"):
                flushes.append(totals["flushes"])
                flush_ms.append(totals["flush_micros"] / totals["flushes"] / 1000)
            if totals.get("compactions"):
                compactions.append(totals["compactions"])
                compaction_ms.append(totals["compaction_micros"] / totals["compactions"] / 1000)
            for g in (load_json(os.path.join(out, f"{config}.{n}.wal.json")) or {}).get(
                    "groups", []):
                key = f"{g.get('group')} ({g.get('volume')})"
                wal.setdefault(key, []).append(g.get("sync_p99_micros"))
        files = ", ".join(
            f"{name}: {fmt(median(e['files']))} ({fmt(median(e['mib']), 1)}"
            f"{', ' + e['state'][-1] if e['state'][-1] not in (None, 'ok') else ''})"
            for name, e in volumes.items())
        wal_text = ", ".join(f"{k}: {fmt(median(v))}" for k, v in wal.items())
        print(f"| {config} | {files} | {fmt(median(flushes))}, {fmt(median(flush_ms), 1)} "
              f"| {fmt(median(compactions))}, {fmt(median(compaction_ms), 1)} | {wal_text} |")

    load_path = os.path.join(out, "load.tsv")
    if os.path.exists(load_path):
        with open(load_path) as f:
            loads = [float(line.split("\t")[2].split()[0]) for line in f if line.strip()]
        if loads:
            print(f"\nload average (1 min) at the start of the runs: "
                  f"min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
                  f"max {max(loads):.2f}")


if __name__ == "__main__":
    main()
