//! Formatting of results: a fixed-width table for people, JSON lines for scripts, medians
//! over repeated runs and ratios between two systems.

use std::io::Write;
use std::path::Path;

use serde_json::json;

use crate::config::BenchArgs;
use crate::error::{BenchError, BenchResult};
use crate::stats::{median, LatencySummary, PhaseResult};

fn write_err(e: std::io::Error) -> BenchError {
    BenchError::io(Path::new("<output>"), e)
}

/// Writes the table heading.
pub fn write_header(out: &mut dyn Write) -> BenchResult<()> {
    writeln!(
        out,
        "{:<8} {:<4} {:<20} {:>11} {:>9} {:>9} {:>9} {:>9} {:>10}  notes",
        "target", "run", "workload", "ops/s", "p50 us", "p95 us", "p99 us", "p99.9 us", "max us"
    )
    .map_err(write_err)
}

/// Writes one result as a table row.
pub fn write_row(out: &mut dyn Write, r: &PhaseResult) -> BenchResult<()> {
    let run = if r.run == 0 {
        "med".to_string()
    } else {
        r.run.to_string()
    };
    let l = &r.latency;
    writeln!(
        out,
        "{:<8} {:<4} {:<20} {:>11.0} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>10.1}  {}",
        r.target,
        run,
        r.workload,
        r.ops_per_sec,
        l.p50,
        l.p95,
        l.p99,
        l.p999,
        l.max,
        notes(r)
    )
    .map_err(write_err)
}

fn notes(r: &PhaseResult) -> String {
    let mut parts = Vec::new();
    if let Some(ratio) = r.found_ratio() {
        parts.push(format!("found {:.1}%", ratio * 100.0));
    }
    if let (Some(rows), true) = (r.rows, r.ops > 0) {
        parts.push(format!("{:.1} rows/seek", rows as f64 / r.ops as f64));
    }
    if let Some(flush) = r.flush_secs {
        parts.push(format!("flush {flush:.2}s"));
    }
    parts.join(", ")
}

/// One result as a single-line JSON object, with the run's settings for context.
pub fn json_line(r: &PhaseResult, args: &BenchArgs) -> String {
    let l = &r.latency;
    json!({
        "target": r.target,
        "workload": r.workload,
        "run": if r.run == 0 { json!("median") } else { json!(r.run) },
        "ops": r.ops,
        "secs": r.secs,
        "ops_per_sec": r.ops_per_sec,
        "p50_us": l.p50,
        "p95_us": l.p95,
        "p99_us": l.p99,
        "p999_us": l.p999,
        "max_us": l.max,
        "found": r.found,
        "found_ratio": r.found_ratio(),
        "rows": r.rows,
        "flush_secs": r.flush_secs,
        "num": args.num,
        "value_size": args.value_size,
        "threads": args.threads,
        "durability": args.durability.as_str(),
        "cache_mb": args.cache_mb,
        "block_kb": args.block_kb,
    })
    .to_string()
}

/// Writes `r` as a JSON line.
pub fn write_json(out: &mut dyn Write, r: &PhaseResult, args: &BenchArgs) -> BenchResult<()> {
    writeln!(out, "{}", json_line(r, args)).map_err(write_err)
}

/// Medians over runs. `runs[i]` holds one system's results of run `i`, phase by phase; every
/// metric's median is taken on its own.
pub fn medians(runs: &[Vec<PhaseResult>]) -> Vec<PhaseResult> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|phase| {
            let column: Vec<&PhaseResult> = runs.iter().filter_map(|r| r.get(phase)).collect();
            let med = |f: &dyn Fn(&PhaseResult) -> f64| {
                median(&column.iter().map(|r| f(r)).collect::<Vec<_>>())
            };
            let opt_med = |f: &dyn Fn(&PhaseResult) -> Option<f64>| {
                let values: Vec<f64> = column.iter().filter_map(|r| f(r)).collect();
                (!values.is_empty()).then(|| median(&values))
            };
            PhaseResult {
                run: 0,
                secs: med(&|r| r.secs),
                ops_per_sec: med(&|r| r.ops_per_sec),
                latency: LatencySummary {
                    p50: med(&|r| r.latency.p50),
                    p95: med(&|r| r.latency.p95),
                    p99: med(&|r| r.latency.p99),
                    p999: med(&|r| r.latency.p999),
                    max: med(&|r| r.latency.max),
                },
                // Counts are rounded back to whole numbers; they barely vary between runs.
                found: opt_med(&|r| r.found.map(|v| v as f64)).map(|v| v.round() as u64),
                rows: opt_med(&|r| r.rows.map(|v| v as f64)).map(|v| v.round() as u64),
                flush_secs: opt_med(&|r| r.flush_secs),
                ..first[phase].clone()
            }
        })
        .collect()
}

/// Writes, phase by phase, how `a` compares with `b` (ratios above 1 mean `a` is faster for
/// ops/s and slower for latencies).
pub fn write_ratios(out: &mut dyn Write, a: &[PhaseResult], b: &[PhaseResult]) -> BenchResult<()> {
    let (Some(an), Some(bn)) = (a.first(), b.first()) else {
        return Ok(());
    };
    writeln!(
        out,
        "\nratio {}/{}:\n{:<20} {:>8} {:>8} {:>8} {:>8}",
        an.target, bn.target, "workload", "ops/s", "p50", "p99", "p99.9"
    )
    .map_err(write_err)?;
    let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { f64::NAN };
    for (x, y) in a.iter().zip(b) {
        writeln!(
            out,
            "{:<20} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            x.workload,
            ratio(x.ops_per_sec, y.ops_per_sec),
            ratio(x.latency.p50, y.latency.p50),
            ratio(x.latency.p99, y.latency.p99),
            ratio(x.latency.p999, y.latency.p999)
        )
        .map_err(write_err)?;
    }
    Ok(())
}
