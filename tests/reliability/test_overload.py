"""The short overload test for CI (overload.py): ~10 s of writes far faster than flush and
throttled compaction absorb, against a real `strata server` (debug build in scripts/test).
The long run (minutes, release build) is the same code from the command line; see
docs/reliability.md, "Overload (real server)"."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import overload  # noqa: E402

# The server gets one memory limit (memory_limit_mb), which sizes its memstores, block
# cache, write budget and request budget; its whole RSS must stay under it while writers
# overrun the memstores and a scanner fills the block cache. Measured with this config
# (debug build, idle RSS ~24 MiB): peak ~75 MiB (docs/reliability.md).
WRITERS = 3
MEMORY_LIMIT_MB = 96
# The memstores' share of that limit (memory.rs: 40 % of what the 32 MiB reserve leaves).
MEMSTORE_SHARE_MB = (MEMORY_LIMIT_MB - 32) * 0.4
READ_P99_BOUND_MS = 2000


def test_write_overload_is_pushed_back_with_bounded_memory(tmp_path):
    args = overload.parse_args([
        "--duration", "10", "--writers", str(WRITERS), "--batch-rows", "16", "--value-kb", "64",
        "--memory-limit-mb", str(MEMORY_LIMIT_MB), "--scan", "--flush-mb", "2",
        "--compaction-mb-per-sec", "3", "--blocking-store-files", "4", "--write-wait-ms", "300",
        "--settle", "1", "--verify-sample", "60", "--recovery-timeout", "60",
        "--csv", str(tmp_path / "rss.csv"), "--workdir", str(tmp_path / "run"),
    ])
    s = overload.run(args)
    print(s)
    assert s["server_alive"], s
    # VmHWM: the kernel's peak, so a spike between two samples counts too.
    assert s["peak_rss_hwm_mb"] < MEMORY_LIMIT_MB, s
    # The load really overran the memstores and the scanner read (so the bound above means
    # something), and the server pushed back: calls refused with "too busy" or held back by
    # the write wait.
    assert s["acked_mb"] > 1.5 * MEMSTORE_SHARE_MB, s
    assert s["scanned_rows"] > 1000 and s["scan_errors"] == [], s
    assert s["refused_batches"] + s["stalled_calls"] >= 1, s
    assert s["other_write_errors"] == 0, s
    assert all(m.startswith("too busy: ") for m in s["refusal_examples"]), s
    # Reads kept being served, with the right values, in bounded time.
    assert s["reads"] > 50 and s["read_errors"] == 0 and s["read_wrong_values"] == 0, s
    assert s["read_p99_ms"] < READ_P99_BOUND_MS, s
    # It recovers, and nothing acknowledged is lost.
    assert s["recovery_s"] is not None and s["recovery_s"] < 60, s
    assert s["verified_batches"] >= 3 and s["lost_or_wrong"] == [], s
    samples = (tmp_path / "rss.csv").read_text().splitlines()
    assert samples[0] == "time_s,rss_mb" and len(samples) > 20
