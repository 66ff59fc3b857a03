//! Latency recording (HdrHistogram, nanoseconds) and the per-phase result.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::error::{BenchError, BenchResult};

/// Highest latency recorded exactly: one minute. Slower operations are clamped to it.
const MAX_TRACKED_NANOS: u64 = 60_000_000_000;

/// A latency histogram of one thread or of a whole phase.
pub struct Latencies {
    hist: Histogram<u64>,
}

impl Latencies {
    /// An empty histogram with three significant digits.
    pub fn new() -> BenchResult<Self> {
        let hist = Histogram::new_with_bounds(1, MAX_TRACKED_NANOS, 3)
            .map_err(|e| BenchError::Config(format!("histogram: {e}")))?;
        Ok(Latencies { hist })
    }

    /// Records one operation.
    pub fn record(&mut self, elapsed: Duration) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.hist.saturating_record(nanos.max(1));
    }

    /// Adds another thread's histogram.
    pub fn merge(&mut self, other: &Latencies) -> BenchResult<()> {
        self.hist
            .add(&other.hist)
            .map_err(|e| BenchError::Config(format!("histogram merge: {e}")))
    }

    /// Number of recorded operations.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// The reported percentiles, in microseconds.
    pub fn summary(&self) -> LatencySummary {
        let at = |q: f64| micros(self.hist.value_at_quantile(q));
        LatencySummary {
            p50: at(0.50),
            p95: at(0.95),
            p99: at(0.99),
            p999: at(0.999),
            max: micros(self.hist.max()),
        }
    }
}

fn micros(nanos: u64) -> f64 {
    // Exact for every latency the histogram can hold (below 2^53 ns).
    nanos as f64 / 1000.0
}

/// Latency percentiles of one phase, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LatencySummary {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

/// What one phase of one run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseResult {
    pub target: String,
    pub workload: String,
    /// 1-based run number, or 0 for a median over runs.
    pub run: usize,
    pub ops: u64,
    /// Wall time of the operations (the trailing flush excluded).
    pub secs: f64,
    pub ops_per_sec: f64,
    pub latency: LatencySummary,
    /// Point reads that found their key (read phases only).
    pub found: Option<u64>,
    /// Rows returned by all scans (seek phases only).
    pub rows: Option<u64>,
    /// Seconds spent in the flush after a write phase.
    pub flush_secs: Option<f64>,
}

impl PhaseResult {
    /// Fraction of reads that found their key.
    pub fn found_ratio(&self) -> Option<f64> {
        let found = self.found?;
        (self.ops > 0).then(|| found as f64 / self.ops as f64)
    }
}

/// The median of `values` (the mean of the middle two for an even count); 0 when empty.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_monotone() {
        let mut lat = Latencies::new().unwrap();
        for i in 1..=10_000u64 {
            lat.record(Duration::from_nanos(i * 37 % 100_003 + 1));
        }
        let s = lat.summary();
        assert!(s.p50 > 0.0);
        assert!(s.p50 <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.p999 && s.p999 <= s.max);
        assert_eq!(lat.count(), 10_000);
    }

    #[test]
    fn merge_adds_counts() {
        let mut a = Latencies::new().unwrap();
        let mut b = Latencies::new().unwrap();
        a.record(Duration::from_micros(5));
        b.record(Duration::from_micros(50));
        b.record(Duration::from_secs(3600));
        a.merge(&b).unwrap();
        assert_eq!(a.count(), 3);
        assert!(a.summary().max >= 50.0);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }
}
