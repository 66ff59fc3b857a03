"""Summarises the YCSB outputs bench/ycsb-compare.sh leaves in a directory.

Files are named <system>-r<run>-<phase>.txt. For every phase it prints each system's median
throughput over the runs and, per operation, the median p50 / p99 / p99.9 latency (µs), then
the throughput ratio of the first system to the second.

Usage: python3 summarize.py DIR
"""

import collections
import os
import re
import statistics
import sys

LINE = re.compile(r"^\[([A-Z-]+)\], ([^,]+), ([0-9.eE+-]+)$")
NAME = re.compile(r"^(?P<system>[a-z0-9]+)-r(?P<run>\d+)-(?P<phase>[a-z]+)\.txt$")
PERCENTILES = ("50thPercentileLatency(us)", "99thPercentileLatency(us)", "99.9PercentileLatency(us)")
OPS = ("READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE")


def parse(path):
    """{"throughput": x, "READ": {"50thPercentileLatency(us)": y, ...}, ...}"""
    result = {"ops": {}}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            section, metric, value = m.group(1), m.group(2), float(m.group(3))
            if section == "OVERALL" and metric == "Throughput(ops/sec)":
                result["throughput"] = value
            elif section in OPS:
                result["ops"].setdefault(section, {})[metric] = value
            elif section.endswith("-FAILED") and metric == "Operations":
                result.setdefault("failed", 0)
                result["failed"] += value
    return result


def main(directory):
    runs = collections.defaultdict(list)  # (phase, system) -> [parsed]
    systems, phases = [], []
    for name in sorted(os.listdir(directory)):
        m = NAME.match(name)
        if not m or m.group("phase") == "server":
            continue
        system, phase = m.group("system"), m.group("phase")
        systems += [system] if system not in systems else []
        phases += [phase] if phase not in phases else []
        runs[(phase, system)].append(parse(os.path.join(directory, name)))
    order = ["load", "a", "b", "c", "f", "d", "e"]
    phases.sort(key=lambda p: order.index(p) if p in order else len(order))
    print("| phase | system | ops/s | operation | p50 µs | p99 µs | p99.9 µs | failed |")
    print("|---|---|---|---|---|---|---|---|")
    for phase in phases:
        medians = {}
        for system in systems:
            parsed = runs.get((phase, system), [])
            tputs = [p["throughput"] for p in parsed if "throughput" in p]
            if not tputs:
                continue
            medians[system] = statistics.median(tputs)
            failed = sum(p.get("failed", 0) for p in parsed)
            ops = sorted({op for p in parsed for op in p["ops"]})
            for i, op in enumerate(ops):
                lat = [statistics.median([p["ops"][op].get(k, float("nan")) for p in parsed if op in p["ops"]])
                       for k in PERCENTILES]
                head = "| %s | %s | %.0f |" % (phase, system, medians[system]) if i == 0 else "| | | |"
                print("%s %s | %.0f | %.0f | %.0f | %s |" % (head, op, lat[0], lat[1], lat[2], int(failed) if i == 0 else ""))
        if len(medians) == 2:
            a, b = systems[0], systems[1]
            if medians.get(b):
                print("| %s | **%s / %s** | **%.2f×** | | | | | |" % (phase, a, b, medians[a] / medians[b]))


if __name__ == "__main__":
    main(sys.argv[1])
