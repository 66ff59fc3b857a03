//! Per-thread measurements of one phase, by operation type.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use indicatif::ProgressBar;
use strata_runtime::clock::{self, Clock};

use crate::error::BenchResult;
use crate::stats::Latencies;

/// Progress is published in steps of this many operations, so threads rarely touch the
/// shared bar.
const PROGRESS_STEP: u64 = 256;

/// What was measured for one operation type.
pub struct OpStats {
    /// Latency of each call (a batched write or multi-get is one call).
    pub latencies: Latencies,
    /// Operations (rows written, rows read, scans, ...).
    pub ops: u64,
    /// Reads that did not find what they looked for, failed checks, short scans.
    pub misses: u64,
    /// Rows returned (scans only).
    pub rows: u64,
}

/// One thread's (or, merged, one phase's) measurements.
pub struct Recorder {
    ops: BTreeMap<&'static str, OpStats>,
    bar: ProgressBar,
    unreported: u64,
    /// Times the calls: the system clock, as a benchmark measures real time.
    clock: Arc<dyn Clock>,
}

impl Recorder {
    // A benchmark measures real time: the tool is its own composition root.
    #[allow(clippy::disallowed_methods)]
    pub fn new(bar: ProgressBar) -> BenchResult<Self> {
        Ok(Recorder {
            ops: BTreeMap::new(),
            bar,
            unreported: 0,
            clock: clock::system(),
        })
    }

    fn entry(&mut self, op: &'static str) -> BenchResult<&mut OpStats> {
        if !self.ops.contains_key(op) {
            let stats = OpStats {
                latencies: Latencies::new()?,
                ops: 0,
                misses: 0,
                rows: 0,
            };
            self.ops.insert(op, stats);
        }
        // Just inserted when missing.
        self.ops
            .get_mut(op)
            .ok_or_else(|| crate::error::BenchError::Config("recorder entry vanished".into()))
    }

    /// Times `call`, which performs `ops` operations of type `op` in one call.
    pub fn time<T>(
        &mut self,
        op: &'static str,
        ops: u64,
        call: impl FnOnce() -> BenchResult<T>,
    ) -> BenchResult<T> {
        let start = self.clock.now();
        let value = call()?;
        self.record(op, ops, self.clock.elapsed(start))?;
        Ok(value)
    }

    /// Records one call of `ops` operations that took `elapsed`.
    pub fn record(&mut self, op: &'static str, ops: u64, elapsed: Duration) -> BenchResult<()> {
        let stats = self.entry(op)?;
        stats.latencies.record(elapsed);
        stats.ops += ops;
        self.unreported += ops;
        if self.unreported >= PROGRESS_STEP {
            self.flush_progress();
        }
        Ok(())
    }

    /// Counts `n` operations of `op` whose time was recorded with another call (a scan page's
    /// rows, known only after the call).
    pub fn add_ops(&mut self, op: &'static str, n: u64) -> BenchResult<()> {
        self.entry(op)?.ops += n;
        self.unreported += n;
        Ok(())
    }

    /// Counts `n` misses of `op`.
    pub fn miss(&mut self, op: &'static str, n: u64) -> BenchResult<()> {
        self.entry(op)?.misses += n;
        Ok(())
    }

    /// Counts `n` rows returned by `op`.
    pub fn rows(&mut self, op: &'static str, n: u64) -> BenchResult<()> {
        self.entry(op)?.rows += n;
        Ok(())
    }

    /// Publishes the operations not yet shown on the progress bar.
    pub fn flush_progress(&mut self) {
        self.bar.inc(self.unreported);
        self.unreported = 0;
    }

    /// Adds another recorder's measurements.
    pub fn merge(&mut self, other: &Recorder) -> BenchResult<()> {
        for (&op, theirs) in &other.ops {
            let ours = self.entry(op)?;
            ours.latencies.merge(&theirs.latencies)?;
            ours.ops += theirs.ops;
            ours.misses += theirs.misses;
            ours.rows += theirs.rows;
        }
        Ok(())
    }

    /// The operation types in name order.
    pub fn ops(&self) -> impl Iterator<Item = (&'static str, &OpStats)> {
        self.ops.iter().map(|(&op, stats)| (op, stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_per_operation() {
        let mut a = Recorder::new(ProgressBar::hidden()).unwrap();
        let mut b = Recorder::new(ProgressBar::hidden()).unwrap();
        a.record("read", 1, Duration::from_micros(10)).unwrap();
        b.record("read", 1, Duration::from_micros(20)).unwrap();
        b.record("update", 5, Duration::from_micros(30)).unwrap();
        b.miss("read", 1).unwrap();
        a.merge(&b).unwrap();
        let ops: Vec<_> = a.ops().map(|(op, s)| (op, s.ops, s.misses)).collect();
        assert_eq!(ops, vec![("read", 2, 1), ("update", 5, 0)]);
    }
}
