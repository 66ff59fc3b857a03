//! The garbage collector of cluster mode (RFC 0009): the only thing that deletes objects
//! of the shared store. Servers delete nothing (the engine runs on `RetainingFs`, the WAL
//! never truncates); the master alone runs passes that delete
//! - under `data/regions/`: manifests no pointer names, SSTables no current manifest of a
//!   region the catalog lists references (directly or through a split's reference), and
//!   every file of a region no table lists, but always the manifest a pointer names;
//! - under `wal/`: objects of a live stream below its published `first_live_id` (never
//!   its newest object), and every object of a stream recorded as replayed;
//! - under `probe/`: the start-up probes' scratch objects.
//!
//! An object goes only if (a) the store says it was last modified at least `min_age` ago,
//! (b) this master saw it as garbage in every pass for at least `min_age`, and (c) no live
//! server holds it for a reader (`/held/<sid>`). Before each batch of deletes the pass
//! checks it still leads under a valid lease.
//!
//! - [`inputs`]: what the pass reads from etcd (the catalog, pointers, held files,
//!   streams), behind a narrow trait the tests implement on the in-memory twin;
//! - [`live`]: the live object keys, from the current manifests;
//! - [`collector`]: one pass over the store; [`wal`]: which stream objects may go;
//! - [`runner`]: the master's thread that runs a pass every interval.

pub mod collector;
pub mod inputs;
pub mod live;
pub mod runner;
pub mod wal;

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;

pub use collector::{Collector, PassReport};
pub use inputs::{CoordInputs, GcInputs, Snapshot};
pub use live::LiveSet;
pub use runner::GcRunner;

/// When passes run and how old garbage must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcConfig {
    /// Between passes; zero turns the collector off.
    pub interval: Duration,
    /// The least age of an object (by the store's clock) and the least time this master
    /// has seen it as garbage, before it is deleted.
    pub min_age: Duration,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            interval: Duration::from_secs(60),
            min_age: Duration::from_secs(3600),
        }
    }
}

/// What the collector did since this process started (`/api/v1/cluster`'s `gc`).
///
/// The deletion counters advance with each object deleted, not when its pass ends: a
/// reader who sees an object gone from the store sees it counted (a pass can take minutes
/// on a large store), and a pass that fails after deleting still counts what it deleted.
/// The pass figures are updated when a pass ends.
#[derive(Debug, Default)]
pub struct GcStats {
    /// Passes ended, failed ones included.
    pub passes: AtomicU64,
    pub deleted_objects: AtomicU64,
    pub deleted_bytes: AtomicU64,
    /// How long the last pass to end took.
    pub last_pass_millis: AtomicU64,
    /// Passes that ended on an error (deletions they made are still counted).
    pub failed_passes: AtomicU64,
}

/// [`GcStats`] as numbers, named as the metrics would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GcFigures {
    pub strata_gc_passes_total: u64,
    pub strata_gc_failed_passes_total: u64,
    pub strata_gc_deleted_objects_total: u64,
    pub strata_gc_deleted_bytes_total: u64,
    pub strata_gc_last_pass_duration_ms: u64,
}

impl GcStats {
    /// One object of `bytes` deleted, just now.
    pub fn count_deletion(&self, bytes: u64) {
        self.deleted_objects.fetch_add(1, Ordering::Relaxed);
        self.deleted_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// A pass ended after `elapsed`, on an error if `failed`.
    pub fn count_pass(&self, elapsed: Duration, failed: bool) {
        let millis = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        self.last_pass_millis.store(millis, Ordering::Relaxed);
        self.failed_passes
            .fetch_add(u64::from(failed), Ordering::Relaxed);
        self.passes.fetch_add(1, Ordering::Relaxed);
    }

    /// The counters now.
    pub fn figures(&self) -> GcFigures {
        GcFigures {
            strata_gc_passes_total: self.passes.load(Ordering::Relaxed),
            strata_gc_failed_passes_total: self.failed_passes.load(Ordering::Relaxed),
            strata_gc_deleted_objects_total: self.deleted_objects.load(Ordering::Relaxed),
            strata_gc_deleted_bytes_total: self.deleted_bytes.load(Ordering::Relaxed),
            strata_gc_last_pass_duration_ms: self.last_pass_millis.load(Ordering::Relaxed),
        }
    }
}
