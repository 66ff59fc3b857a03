#!/usr/bin/env python3
"""Summarizes a bench/block-cache-levels.sh run: per system and configuration, the median
over the measured runs of reads/s, p50, p99 and p99.9 (each its own median), the runs
themselves, and Strata's p99 against HBase's in the same configuration.

usage: block-cache-levels.py OUT ROWS L1_MB MEM_LIMIT_MB
"""
import json
import pathlib
import statistics
import sys

out = pathlib.Path(sys.argv[1])
rows, l1_mb, limit_mb = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
CONFIGS = ["l1", "l2-shm", "l2-disk"]
NAMES = {"l1": "L1 only", "l2-shm": "L1 + L2 on tmpfs", "l2-disk": "L1 + L2 on disk"}


def runs(system, config):
    p = out / f"{system}-{config}.jsonl"
    if not p.exists():
        return []
    return [json.loads(line)["operations"][0] for line in p.read_text().splitlines()]


def median(ops, key):
    return statistics.median(o[key] for o in ops)


def text(path):
    p = out / path
    return p.read_text().strip() if p.exists() else "-"


print(f"\n{rows:,} rows of 1 KiB; L1 {l1_mb} MiB; memory limit {limit_mb} MiB per server")
for system in ("strata", "hbase"):
    mb = text(f"{system}-db-mb")
    if mb != "-":
        print(f"{system}: {mb} MiB on disk = {int(mb) / l1_mb:.1f}x L1, "
              f"{int(mb) / limit_mb:.1f}x the memory limit")
print(text("device-probe.txt"))

medians = {}
print(f"\n| system | configuration | reads/s | p50 µs | p99 µs | p99.9 µs | misses | runs (reads/s; p99 µs) |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for system in ("strata", "hbase"):
    for config in CONFIGS:
        ops = runs(system, config)
        if not ops:
            continue
        m = {k: median(ops, k) for k in ("ops_per_sec", "p50_us", "p99_us", "p999_us")}
        medians[(system, config)] = m
        misses = sum(o["misses"] for o in ops)
        each = " / ".join(f"{o['ops_per_sec']:,.0f}; {o['p99_us']:,.0f}" for o in ops)
        print(f"| {system} | {NAMES[config]} | {m['ops_per_sec']:,.0f} | {m['p50_us']:,.0f} | "
              f"{m['p99_us']:,.0f} | {m['p999_us']:,.0f} | {misses} | {each} |")

print("\n| configuration | reads/s Strata / HBase | p50 | p99 | p99.9 (Strata / HBase) |")
print("|---|---:|---:|---:|---:|")
for config in CONFIGS:
    s, h = medians.get(("strata", config)), medians.get(("hbase", config))
    if s and h:
        r = {k: s[k] / h[k] for k in s}
        print(f"| {NAMES[config]} | {r['ops_per_sec']:.2f} | {r['p50_us']:.2f} | {r['p99_us']:.2f} | "
              f"{r['p999_us']:.2f} |")

print("\nStrata's caches at the end of each configuration (warm-up and runs):")
for config in CONFIGS:
    p = out / f"strata-{config}-cache.json"
    if not p.exists():
        continue
    c = json.loads(p.read_text())
    line = f"  {config}: L1 hit ratio {c.get('hit_ratio', 0):.3f}"
    l2 = c.get("l2")
    if l2:
        looked = l2["hits"] + l2["misses"]
        line += (f", L2 hits {l2['hits']:,} of {looked:,} L1 misses ({l2['hits'] / max(looked, 1):.3f}),"
                 f" {l2['size_bytes'] >> 20} MiB held, rejected {l2['rejected']:,}")
    print(line)
print("\nPeak cgroup memory (MiB) and limit hits:")
for p in sorted(out.glob("*-memory.txt")):
    kv = dict(line.split()[:2] for line in p.read_text().splitlines() if line.strip())
    print(f"  {p.name[:-len('-memory.txt')]}: max {kv.get('max_usage_mb')} failcnt {kv.get('failcnt')} "
          f"cache {int(kv.get('total_cache', 0)) >> 20} rss {int(kv.get('total_rss', 0)) >> 20} "
          f"shmem {int(kv.get('total_shmem', 0)) >> 20}")

for config in ("l2-shm", "l2-disk"):
    s, h = medians.get(("strata", config)), medians.get(("hbase", config))
    if s:
        met = "met" if s["p99_us"] < 1000 else "not met"
        print(f"target p99 < 1 ms ({NAMES[config]}): {s['p99_us']:,.0f} µs, {met}")
for config in CONFIGS:
    s, h = medians.get(("strata", config)), medians.get(("hbase", config))
    if s and h:
        met = "met" if s["p99_us"] < h["p99_us"] else "not met"
        print(f"target p99 below HBase's ({NAMES[config]}): {s['p99_us']:,.0f} vs {h['p99_us']:,.0f} µs, {met}")
