//! How each volume has been behaving, for placement: new files pass over a volume that is
//! failing, nearly full, or much slower than the others of its storage type (the seed's
//! latency-aware chooser, and HDFS-style "take a failed disk out of rotation").
//!
//! Latency is an average of recent syncs (what a flush, a compaction and the WAL wait for),
//! measured by [`HealthFs`](super::super::health_fs::HealthFs) around every file of the
//! volume. An I/O error takes the volume out of rotation for [`FAILED_FOR`]; then it is
//! tried again, and a new error takes it out again.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use crate::util::clock::Clock;

/// How long a volume that failed stays out of rotation.
pub const FAILED_FOR: Duration = Duration::from_secs(60);
/// A volume is slow when its sync latency is this many times its type's fastest...
const SLOW_FACTOR: u64 = 4;
/// ... and at least this much above it (sub-millisecond noise is not "slow").
const SLOW_MARGIN_US: u64 = 2_000;
/// Syncs measured before a volume's latency counts.
const MIN_SAMPLES: u64 = 3;

/// One volume's record.
#[derive(Debug, Default)]
struct VolumeState {
    /// Exponentially weighted average of sync time, µs (weight 1/8 for a new sample).
    sync_us: AtomicU64,
    samples: AtomicU64,
    errors: AtomicU64,
    /// Out of rotation until this time (ms since the epoch); 0 = in rotation.
    failed_until_ms: AtomicI64,
    last_error: Mutex<Option<String>>,
}

/// A volume's state as reported to operators (UI, metrics).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VolumeHealthReport {
    /// `ok`, `slow` or `failed`.
    pub state: &'static str,
    /// Average recent sync time, µs; `None` before enough syncs.
    pub sync_latency_us: Option<u64>,
    pub errors: u64,
    pub last_error: Option<String>,
}

/// The health of every volume of a [`super::Volumes`], in its order.
#[derive(Debug)]
pub struct VolumeHealth {
    clock: Arc<dyn Clock>,
    states: Vec<VolumeState>,
}

impl VolumeHealth {
    /// Fresh records for `count` volumes, timed on `clock`.
    pub fn new(count: usize, clock: Arc<dyn Clock>) -> Self {
        VolumeHealth {
            clock,
            states: (0..count).map(|_| VolumeState::default()).collect(),
        }
    }

    /// The clock syncs are timed on.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// A sync on volume `index` took `took`.
    pub fn record_sync(&self, index: usize, took: Duration) {
        let Some(state) = self.states.get(index) else {
            return;
        };
        let sample = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let seen = state.samples.fetch_add(1, Ordering::AcqRel);
        let old = state.sync_us.load(Ordering::Acquire);
        let new = if seen == 0 {
            sample
        } else {
            (old * 7 + sample) / 8
        };
        state.sync_us.store(new, Ordering::Release);
    }

    /// An I/O error on volume `index`: out of rotation for [`FAILED_FOR`].
    pub fn record_error(&self, index: usize, error: &str) {
        let Some(state) = self.states.get(index) else {
            return;
        };
        state.errors.fetch_add(1, Ordering::AcqRel);
        let until = self.clock.now_millis() + FAILED_FOR.as_millis() as i64;
        state.failed_until_ms.store(until, Ordering::Release);
        *state.last_error.lock() = Some(error.to_string());
        tracing::error!(
            volume = index,
            error,
            "volume taken out of rotation for 60 s after an I/O error"
        );
    }

    /// True while volume `index` is out of rotation.
    pub fn is_failed(&self, index: usize) -> bool {
        self.states
            .get(index)
            .is_some_and(|s| s.failed_until_ms.load(Ordering::Acquire) > self.clock.now_millis())
    }

    /// Volume `index`'s average sync time, once measured enough.
    pub fn sync_latency_us(&self, index: usize) -> Option<u64> {
        let state = self.states.get(index)?;
        (state.samples.load(Ordering::Acquire) >= MIN_SAMPLES)
            .then(|| state.sync_us.load(Ordering::Acquire))
    }

    /// True when volume `index` is much slower than the fastest of `peers` (its storage
    /// type's volumes in rotation, itself included).
    pub fn is_slow(&self, index: usize, peers: &[usize]) -> bool {
        let Some(own) = self.sync_latency_us(index) else {
            return false;
        };
        let fastest = peers
            .iter()
            .filter_map(|&p| self.sync_latency_us(p))
            .min()
            .unwrap_or(own);
        own > fastest.saturating_mul(SLOW_FACTOR) && own > fastest + SLOW_MARGIN_US
    }

    /// Volume `index` as operators see it, judged among `peers` as in [`Self::is_slow`].
    pub fn report(&self, index: usize, peers: &[usize]) -> VolumeHealthReport {
        let state = if self.is_failed(index) {
            "failed"
        } else if self.is_slow(index, peers) {
            "slow"
        } else {
            "ok"
        };
        let record = self.states.get(index);
        VolumeHealthReport {
            state,
            sync_latency_us: self.sync_latency_us(index),
            errors: record.map_or(0, |s| s.errors.load(Ordering::Acquire)),
            last_error: record.and_then(|s| s.last_error.lock().clone()),
        }
    }
}
