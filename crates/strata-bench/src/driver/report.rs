//! A phase's results: a table per operation type for people, one JSON object per phase for
//! scripts.

use std::io::Write;
use std::path::Path;

use serde_json::json;

use super::recorder::Recorder;
use super::PhasePlan;
use crate::error::{BenchError, BenchResult};
use crate::stats::LatencySummary;

/// One operation type's results.
#[derive(Debug, Clone, PartialEq)]
pub struct OpReport {
    pub op: String,
    pub ops: u64,
    pub ops_per_sec: f64,
    /// Number of timed calls (below `ops` when writes are batched).
    pub calls: u64,
    /// Latency per call, in microseconds.
    pub latency: LatencySummary,
    pub misses: u64,
    pub rows: u64,
}

/// One phase's results.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseReport {
    pub target: String,
    pub phase: String,
    pub threads: usize,
    pub secs: f64,
    pub ops: u64,
    pub ops_per_sec: f64,
    pub per_op: Vec<OpReport>,
}

fn rate(n: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        n as f64 / secs
    } else {
        0.0
    }
}

impl PhaseReport {
    pub fn new(target: &str, plan: &PhasePlan, secs: f64, recorded: &Recorder) -> Self {
        let per_op: Vec<OpReport> = recorded
            .ops()
            .map(|(op, s)| OpReport {
                op: op.to_string(),
                ops: s.ops,
                ops_per_sec: rate(s.ops, secs),
                calls: s.latencies.count(),
                latency: s.latencies.summary(),
                misses: s.misses,
                rows: s.rows,
            })
            .collect();
        let ops = per_op.iter().map(|o| o.ops).sum();
        PhaseReport {
            target: target.to_string(),
            phase: plan.name.clone(),
            threads: plan.threads,
            secs,
            ops,
            ops_per_sec: rate(ops, secs),
            per_op,
        }
    }

    /// The results of operation `op`, if the phase ran any.
    pub fn op(&self, op: &str) -> Option<&OpReport> {
        self.per_op.iter().find(|o| o.op == op)
    }

    /// Misses over all operation types.
    pub fn misses(&self) -> u64 {
        self.per_op.iter().map(|o| o.misses).sum()
    }

    /// The phase as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let ops: Vec<_> = self
            .per_op
            .iter()
            .map(|o| {
                let l = &o.latency;
                json!({
                    "op": o.op, "ops": o.ops, "ops_per_sec": o.ops_per_sec, "calls": o.calls,
                    "misses": o.misses, "rows": o.rows,
                    "p50_us": l.p50, "p95_us": l.p95, "p99_us": l.p99, "p999_us": l.p999,
                    "max_us": l.max,
                })
            })
            .collect();
        json!({
            "target": self.target, "phase": self.phase, "threads": self.threads,
            "secs": self.secs, "ops": self.ops, "ops_per_sec": self.ops_per_sec,
            "operations": ops,
        })
    }

    /// Writes the phase as a table.
    pub fn write_table(&self, out: &mut dyn Write) -> BenchResult<()> {
        let e = |e| BenchError::io(Path::new("<output>"), e);
        writeln!(
            out,
            "[{}] {}: {} ops in {:.2} s = {:.0} ops/s ({} threads)",
            self.target, self.phase, self.ops, self.secs, self.ops_per_sec, self.threads
        )
        .map_err(e)?;
        writeln!(
            out,
            "  {:<14} {:>10} {:>11} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8} {:>9}",
            "op",
            "ops",
            "ops/s",
            "p50 us",
            "p95 us",
            "p99 us",
            "p99.9 us",
            "max us",
            "misses",
            "rows"
        )
        .map_err(e)?;
        for o in &self.per_op {
            let l = &o.latency;
            writeln!(
                out,
                "  {:<14} {:>10} {:>11.0} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>10.1} {:>8} {:>9}",
                o.op, o.ops, o.ops_per_sec, l.p50, l.p95, l.p99, l.p999, l.max, o.misses, o.rows
            )
            .map_err(e)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn sample() -> PhaseReport {
        let mut rec = Recorder::new(indicatif::ProgressBar::hidden()).unwrap();
        for i in 1..=100 {
            rec.record("read", 1, Duration::from_micros(i)).unwrap();
        }
        rec.record("insert", 10, Duration::from_micros(500))
            .unwrap();
        rec.miss("read", 3).unwrap();
        let plan = PhasePlan {
            name: "ycsb-b run".into(),
            threads: 2,
            total_ops: 110,
            quiet: true,
        };
        PhaseReport::new("embedded", &plan, 0.5, &rec)
    }

    #[test]
    fn totals_and_rates_follow_the_recorded_operations() {
        let r = sample();
        assert_eq!(r.ops, 110);
        assert_eq!(r.ops_per_sec, 220.0);
        let read = r.op("read").unwrap();
        assert_eq!((read.ops, read.calls, read.misses), (100, 100, 3));
        assert!((read.latency.p50 - 50.0).abs() < 1.0);
        let insert = r.op("insert").unwrap();
        assert_eq!((insert.ops, insert.calls), (10, 1));
    }

    #[test]
    fn json_has_one_object_per_phase_with_every_operation() {
        let v = sample().to_json();
        assert_eq!(v["phase"], "ycsb-b run");
        assert_eq!(v["target"], "embedded");
        assert_eq!(v["ops"], 110);
        let ops = v["operations"].as_array().unwrap();
        assert_eq!(ops.len(), 2);
        for key in [
            "op",
            "ops",
            "ops_per_sec",
            "p50_us",
            "p95_us",
            "p99_us",
            "p999_us",
            "max_us",
        ] {
            assert!(ops[0].get(key).is_some(), "missing {key}");
        }
        assert!(!v.to_string().contains('\n'));
    }

    #[test]
    fn table_lists_each_operation() {
        let mut out = Vec::new();
        sample().write_table(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("ycsb-b run: 110 ops"));
        assert!(text.lines().any(|l| l.trim_start().starts_with("read ")));
        assert!(text.lines().any(|l| l.trim_start().starts_with("insert ")));
        assert!(text.contains("p99.9 us"));
    }
}
