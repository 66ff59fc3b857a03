//! WAL counters and a sync latency histogram, kept in atomics so that reading them never
//! waits for a leader that is in the middle of an fsync.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::error::Result;
use crate::fs::WritableFile;
use crate::util::clock::Clock;

/// Number of sync latency buckets; bucket `i` counts syncs that took less than `2^i`
/// microseconds (the last one also everything slower).
pub const SYNC_LATENCY_BUCKETS: usize = 28;

/// A snapshot of the WAL's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct WalStats {
    /// Segment files the WAL is tracking, the active one included.
    pub segments: u64,
    /// Bytes in those segments.
    pub total_bytes: u64,
    /// Edits accepted for logging (`SkipWal` edits are not counted).
    pub appends: u64,
    /// `SkipWal` edits that bypassed the log.
    pub skipped: u64,
    /// Group commits: batches written by a leader.
    pub batches: u64,
    /// `WritableFile::flush` calls that handed new bytes to the OS.
    pub flushes: u64,
    /// `WritableFile::sync` calls.
    pub syncs: u64,
    /// Record bytes written.
    pub bytes_written: u64,
    /// Segments closed because they were full.
    pub rolls: u64,
    /// Batches that failed to write, flush or sync.
    pub write_errors: u64,
    /// Sync latency histogram, see [`SYNC_LATENCY_BUCKETS`].
    pub sync_latency_buckets: Vec<u64>,
    /// Total time spent in syncs, in microseconds.
    pub sync_micros_total: u64,
    /// Slowest sync, in microseconds.
    pub sync_micros_max: u64,
}

impl WalStats {
    /// Adds `other`'s counts to these (WAL groups report their sum), keeping the larger
    /// slowest sync.
    pub fn add(&mut self, other: &WalStats) {
        let sums = [
            (&mut self.segments, other.segments),
            (&mut self.total_bytes, other.total_bytes),
            (&mut self.appends, other.appends),
            (&mut self.skipped, other.skipped),
            (&mut self.batches, other.batches),
            (&mut self.flushes, other.flushes),
            (&mut self.syncs, other.syncs),
            (&mut self.bytes_written, other.bytes_written),
            (&mut self.rolls, other.rolls),
            (&mut self.write_errors, other.write_errors),
            (&mut self.sync_micros_total, other.sync_micros_total),
        ];
        for (total, value) in sums {
            *total = total.saturating_add(value);
        }
        self.sync_micros_max = self.sync_micros_max.max(other.sync_micros_max);
        if self.sync_latency_buckets.len() < other.sync_latency_buckets.len() {
            self.sync_latency_buckets
                .resize(other.sync_latency_buckets.len(), 0);
        }
        for (total, value) in self
            .sync_latency_buckets
            .iter_mut()
            .zip(&other.sync_latency_buckets)
        {
            *total = total.saturating_add(*value);
        }
    }
}

/// Live counters shared by the WAL's parts.
#[derive(Debug)]
pub(crate) struct WalCounters {
    /// Times the syncs for the latency histogram.
    clock: Arc<dyn Clock>,
    pub segments: AtomicU64,
    pub total_bytes: AtomicU64,
    pub appends: AtomicU64,
    pub skipped: AtomicU64,
    pub batches: AtomicU64,
    pub flushes: AtomicU64,
    pub syncs: AtomicU64,
    pub bytes_written: AtomicU64,
    pub rolls: AtomicU64,
    pub write_errors: AtomicU64,
    sync_buckets: [AtomicU64; SYNC_LATENCY_BUCKETS],
    sync_micros_total: AtomicU64,
    sync_micros_max: AtomicU64,
}

impl WalCounters {
    /// Zeroed counters whose sync latencies are read off `clock`.
    pub(crate) fn new(clock: Arc<dyn Clock>) -> Self {
        WalCounters {
            clock,
            segments: AtomicU64::default(),
            total_bytes: AtomicU64::default(),
            appends: AtomicU64::default(),
            skipped: AtomicU64::default(),
            batches: AtomicU64::default(),
            flushes: AtomicU64::default(),
            syncs: AtomicU64::default(),
            bytes_written: AtomicU64::default(),
            rolls: AtomicU64::default(),
            write_errors: AtomicU64::default(),
            sync_buckets: Default::default(),
            sync_micros_total: AtomicU64::default(),
            sync_micros_max: AtomicU64::default(),
        }
    }

    /// Syncs `file` and records how long that took; a failed sync is not recorded.
    pub(crate) fn timed_sync(&self, file: &mut dyn WritableFile) -> Result<()> {
        let started = self.clock.now();
        file.sync()?;
        self.record_sync(self.clock.elapsed(started));
        Ok(())
    }

    /// Adds one to `counter`.
    pub(crate) fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Records one sync that took `elapsed`.
    fn record_sync(&self, elapsed: Duration) {
        Self::bump(&self.syncs);
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        let bucket = (64 - micros.leading_zeros() as usize).min(SYNC_LATENCY_BUCKETS - 1);
        Self::bump(&self.sync_buckets[bucket]);
        self.sync_micros_total.fetch_add(micros, Ordering::Relaxed);
        self.sync_micros_max.fetch_max(micros, Ordering::Relaxed);
    }

    /// A consistent-enough copy for reporting.
    pub(crate) fn snapshot(&self) -> WalStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        WalStats {
            segments: get(&self.segments),
            total_bytes: get(&self.total_bytes),
            appends: get(&self.appends),
            skipped: get(&self.skipped),
            batches: get(&self.batches),
            flushes: get(&self.flushes),
            syncs: get(&self.syncs),
            bytes_written: get(&self.bytes_written),
            rolls: get(&self.rolls),
            write_errors: get(&self.write_errors),
            sync_latency_buckets: self.sync_buckets.iter().map(get).collect(),
            sync_micros_total: get(&self.sync_micros_total),
            sync_micros_max: get(&self.sync_micros_max),
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // real time and randomness in these tests
mod tests {
    use super::*;

    #[test]
    fn sync_latency_lands_in_log2_buckets() {
        let c = WalCounters::new(crate::util::clock::system());
        c.record_sync(Duration::from_micros(0));
        c.record_sync(Duration::from_micros(3));
        c.record_sync(Duration::from_secs(10_000));
        let s = c.snapshot();
        assert_eq!(s.syncs, 3);
        assert_eq!(s.sync_latency_buckets[0], 1);
        assert_eq!(s.sync_latency_buckets[2], 1);
        assert_eq!(s.sync_latency_buckets[SYNC_LATENCY_BUCKETS - 1], 1);
        assert_eq!(s.sync_micros_max, 10_000_000_000);
    }

    #[test]
    fn stats_of_groups_add_up() {
        let a = WalCounters::new(crate::util::clock::system());
        a.record_sync(Duration::from_micros(3));
        WalCounters::bump(&a.appends);
        let b = WalCounters::new(crate::util::clock::system());
        b.record_sync(Duration::from_micros(900));
        WalCounters::bump(&b.appends);
        let mut total = WalStats::default();
        total.add(&a.snapshot());
        total.add(&b.snapshot());
        assert_eq!((total.appends, total.syncs), (2, 2));
        assert_eq!(total.sync_latency_buckets.iter().sum::<u64>(), 2);
        assert_eq!(total.sync_latency_buckets.len(), SYNC_LATENCY_BUCKETS);
        assert_eq!((total.sync_micros_total, total.sync_micros_max), (903, 900));
    }
}
