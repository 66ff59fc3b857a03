//! Request metrics of the service layer, so every API (Thrift, gRPC, REST) is counted the
//! same way: per operation and per table, a count and a latency histogram; plus a log of
//! slow requests. Recording is a few relaxed atomic adds and one read-locked map lookup.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use strata_runtime::clock::Clock;

use crate::names::TableName;

/// The public data operations of the service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    Get,
    Mutate,
    OpenScanner,
    ScannerNext,
    Increment,
    Append,
    CheckAndMutate,
}

impl Operation {
    /// Every operation, in the order metrics list them.
    pub const ALL: [Operation; 7] = [
        Operation::Get,
        Operation::Mutate,
        Operation::OpenScanner,
        Operation::ScannerNext,
        Operation::Increment,
        Operation::Append,
        Operation::CheckAndMutate,
    ];

    /// The name used in metric labels and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::Mutate => "mutate",
            Operation::OpenScanner => "open_scanner",
            Operation::ScannerNext => "scanner_next",
            Operation::Increment => "increment",
            Operation::Append => "append",
            Operation::CheckAndMutate => "check_and_mutate",
        }
    }
}

/// Upper bounds of the latency buckets, in microseconds (a last bucket holds the rest).
pub const LATENCY_BOUNDS_MICROS: [u64; 16] = [
    50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 10_000_000,
];
const BUCKETS: usize = LATENCY_BOUNDS_MICROS.len() + 1;

/// A latency histogram in atomics.
#[derive(Debug, Default)]
struct Histogram {
    buckets: [AtomicU64; BUCKETS],
    sum_micros: AtomicU64,
}

impl Histogram {
    fn record(&self, micros: u64) {
        let bucket = LATENCY_BOUNDS_MICROS.partition_point(|&b| b < micros);
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    fn snapshot(&self) -> LatencySnapshot {
        let buckets: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        LatencySnapshot {
            count: buckets.iter().sum(),
            sum_micros: self.sum_micros.load(Ordering::Relaxed),
            buckets,
        }
    }
}

/// A copy of a histogram: per-bucket counts (not cumulative), see [`LATENCY_BOUNDS_MICROS`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LatencySnapshot {
    pub count: u64,
    pub sum_micros: u64,
    pub buckets: Vec<u64>,
}

impl LatencySnapshot {
    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &LatencySnapshot) {
        self.count += other.count;
        self.sum_micros += other.sum_micros;
        self.buckets.resize(BUCKETS, 0);
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
    }

    /// What happened since `older` (a snapshot of the same histogram taken earlier).
    pub fn since(&self, older: &LatencySnapshot) -> LatencySnapshot {
        LatencySnapshot {
            count: self.count.saturating_sub(older.count),
            sum_micros: self.sum_micros.saturating_sub(older.sum_micros),
            buckets: self
                .buckets
                .iter()
                .enumerate()
                .map(|(i, b)| b.saturating_sub(older.buckets.get(i).copied().unwrap_or(0)))
                .collect(),
        }
    }

    /// The upper bound of the bucket holding quantile `q` (0..=1), in microseconds; 0 when
    /// empty. The last bucket reports twice the largest bound.
    pub fn quantile_micros(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((self.count as f64) * q.clamp(0.0, 1.0)).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return bucket_bound(i);
            }
        }
        bucket_bound(BUCKETS - 1)
    }
}

fn bucket_bound(i: usize) -> u64 {
    LATENCY_BOUNDS_MICROS
        .get(i)
        .copied()
        .unwrap_or(LATENCY_BOUNDS_MICROS[LATENCY_BOUNDS_MICROS.len() - 1] * 2)
}

/// One histogram per operation.
#[derive(Debug, Default)]
struct PerOperation([Histogram; Operation::ALL.len()]);

impl PerOperation {
    fn snapshot(&self) -> Vec<(Operation, LatencySnapshot)> {
        Operation::ALL
            .iter()
            .map(|&op| (op, self.0[op as usize].snapshot()))
            .collect()
    }
}

/// A request that took longer than the slow-request threshold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SlowRequest {
    /// Wall-clock end time, milliseconds since the epoch.
    pub at_ms: i64,
    pub operation: Operation,
    pub table: String,
    pub duration_micros: u64,
}

/// How many slow requests are kept.
pub const SLOW_LOG_LEN: usize = 100;

/// Default slow-request threshold.
pub const DEFAULT_SLOW_THRESHOLD: Duration = Duration::from_millis(100);

/// The service's request metrics.
pub struct RequestMetrics {
    clock: Arc<dyn Clock>,
    totals: PerOperation,
    tables: RwLock<HashMap<TableName, Arc<PerOperation>>>,
    slow: Mutex<VecDeque<SlowRequest>>,
    slow_threshold_micros: AtomicU64,
    splits: AtomicU64,
    merges: AtomicU64,
}

impl RequestMetrics {
    /// Empty metrics; slow requests are stamped with `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        RequestMetrics {
            clock,
            totals: PerOperation::default(),
            tables: RwLock::new(HashMap::new()),
            slow: Mutex::new(VecDeque::new()),
            slow_threshold_micros: AtomicU64::new(DEFAULT_SLOW_THRESHOLD.as_micros() as u64),
            splits: AtomicU64::new(0),
            merges: AtomicU64::new(0),
        }
    }

    /// Starts timing one request; it is recorded when the timer is dropped.
    pub fn start<'a>(&'a self, op: Operation, table: Option<&'a TableName>) -> RequestTimer<'a> {
        RequestTimer {
            metrics: self,
            op,
            table,
            started: self.clock.now(),
        }
    }

    /// Records one request that took `elapsed`.
    pub fn record(&self, op: Operation, table: Option<&TableName>, elapsed: Duration) {
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.totals.0[op as usize].record(micros);
        if let Some(table) = table {
            self.table_histograms(table).0[op as usize].record(micros);
        }
        if micros >= self.slow_threshold_micros.load(Ordering::Relaxed) {
            self.record_slow(op, table, micros);
        }
    }

    fn table_histograms(&self, table: &TableName) -> Arc<PerOperation> {
        if let Some(found) = self.tables.read().get(table) {
            return Arc::clone(found);
        }
        Arc::clone(self.tables.write().entry(table.clone()).or_default())
    }

    fn record_slow(&self, operation: Operation, table: Option<&TableName>, micros: u64) {
        let table = table.map(ToString::to_string).unwrap_or_default();
        tracing::warn!(operation = operation.name(), %table, duration_ms = micros as f64 / 1e3, "slow request");
        let mut slow = self.slow.lock();
        if slow.len() == SLOW_LOG_LEN {
            slow.pop_front();
        }
        slow.push_back(SlowRequest {
            at_ms: self.clock.now_millis(),
            operation,
            table,
            duration_micros: micros,
        });
    }

    /// Requests slower than this go to the slow-request log.
    pub fn set_slow_threshold(&self, threshold: Duration) {
        let micros = u64::try_from(threshold.as_micros()).unwrap_or(u64::MAX);
        self.slow_threshold_micros.store(micros, Ordering::Relaxed);
    }

    /// The slow-request threshold.
    pub fn slow_threshold(&self) -> Duration {
        Duration::from_micros(self.slow_threshold_micros.load(Ordering::Relaxed))
    }

    /// The slow-request log, oldest first.
    pub fn slow_requests(&self) -> Vec<SlowRequest> {
        self.slow.lock().iter().cloned().collect()
    }

    /// Per operation, over every table.
    pub fn totals(&self) -> Vec<(Operation, LatencySnapshot)> {
        self.totals.snapshot()
    }

    /// Every operation merged into one histogram.
    pub fn all_requests(&self) -> LatencySnapshot {
        let mut all = LatencySnapshot::default();
        for (_, h) in self.totals() {
            all.merge(&h);
        }
        all
    }

    /// Per table and operation (tables seen since the start, sorted).
    pub fn per_table(&self) -> Vec<(TableName, Vec<(Operation, LatencySnapshot)>)> {
        let mut tables: Vec<_> = self
            .tables
            .read()
            .iter()
            .map(|(name, ops)| (name.clone(), ops.snapshot()))
            .collect();
        tables.sort_by(|a, b| a.0.cmp(&b.0));
        tables
    }

    /// Counts one region split.
    pub fn count_split(&self) {
        self.splits.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one region merge.
    pub fn count_merge(&self) {
        self.merges.fetch_add(1, Ordering::Relaxed);
    }

    /// (splits, merges) since the start.
    pub fn splits_and_merges(&self) -> (u64, u64) {
        (
            self.splits.load(Ordering::Relaxed),
            self.merges.load(Ordering::Relaxed),
        )
    }
}

/// Times one request (see [`RequestMetrics::start`]).
pub struct RequestTimer<'a> {
    metrics: &'a RequestMetrics,
    op: Operation,
    table: Option<&'a TableName>,
    started: Instant,
}

impl Drop for RequestTimer<'_> {
    fn drop(&mut self) {
        let elapsed = self
            .metrics
            .clock
            .now()
            .saturating_duration_since(self.started);
        self.metrics.record(self.op, self.table, elapsed);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    #![allow(clippy::disallowed_methods)] // a timing test measures real time
    use super::*;
    use strata_runtime::clock::ManualClock;

    fn metrics() -> RequestMetrics {
        RequestMetrics::new(Arc::new(ManualClock::new(5_000)))
    }

    #[test]
    fn requests_are_counted_per_operation_and_table() {
        let m = metrics();
        let t = TableName::parse("t1").unwrap();
        m.record(Operation::Get, Some(&t), Duration::from_micros(40));
        m.record(Operation::Get, Some(&t), Duration::from_micros(3_000));
        m.record(Operation::Mutate, None, Duration::from_micros(60));
        let totals = m.totals();
        assert_eq!(totals[0].1.count, 2);
        assert_eq!(totals[0].1.sum_micros, 3_040);
        assert_eq!(totals[0].1.buckets[0], 1);
        assert_eq!(
            totals[0].1.buckets[6], 1,
            "3 ms lands in the <= 5 ms bucket"
        );
        assert_eq!(totals[1].1.count, 1);
        let tables = m.per_table();
        assert_eq!(tables.len(), 1);
        assert_eq!(tables[0].1[0].1.count, 2);
        assert_eq!(tables[0].1[1].1.count, 0, "the mutate had no table");
        assert_eq!(m.all_requests().count, 3);
    }

    #[test]
    fn quantiles_and_deltas() {
        let m = metrics();
        for _ in 0..90 {
            m.record(Operation::Get, None, Duration::from_micros(80));
        }
        let before = m.all_requests();
        for _ in 0..10 {
            m.record(Operation::Get, None, Duration::from_millis(20));
        }
        let all = m.all_requests();
        assert_eq!(all.quantile_micros(0.5), 100);
        assert_eq!(all.quantile_micros(0.99), 25_000);
        let delta = all.since(&before);
        assert_eq!(delta.count, 10);
        assert_eq!(delta.quantile_micros(0.5), 25_000);
        assert_eq!(LatencySnapshot::default().quantile_micros(0.5), 0);
    }

    #[test]
    fn slow_requests_are_logged_over_the_threshold_and_bounded() {
        let m = metrics();
        m.set_slow_threshold(Duration::from_millis(10));
        let t = TableName::parse("ns:t").unwrap();
        m.record(Operation::Get, Some(&t), Duration::from_millis(9));
        assert!(m.slow_requests().is_empty());
        for _ in 0..(SLOW_LOG_LEN + 3) {
            m.record(Operation::Append, Some(&t), Duration::from_millis(11));
        }
        let slow = m.slow_requests();
        assert_eq!(slow.len(), SLOW_LOG_LEN);
        assert_eq!(slow[0].table, "ns:t");
        assert_eq!(slow[0].at_ms, 5_000);
        assert_eq!(slow[0].operation, Operation::Append);
    }

    /// The cost of recording one request, for docs/operations.md:
    /// `cargo test --release -p strata-server --lib recording_cost -- --ignored --nocapture`
    #[test]
    #[ignore = "a measurement, run by hand in release mode"]
    fn recording_cost() {
        let m = metrics();
        let tables: Vec<TableName> = (0..20)
            .map(|i| TableName::parse(&format!("t{i}")).unwrap())
            .collect();
        let n = 2_000_000u32;
        let started = Instant::now();
        for i in 0..n {
            let _timer = m.start(Operation::Get, Some(&tables[i as usize % tables.len()]));
        }
        let per_request = started.elapsed() / n;
        println!("recording one request (timer included): {per_request:?}");
        assert_eq!(m.all_requests().count, u64::from(n));
    }

    #[test]
    fn timers_record_on_drop() {
        let m = metrics();
        {
            let _timer = m.start(Operation::Increment, None);
        }
        assert_eq!(m.totals()[4].1.count, 1);
    }
}
