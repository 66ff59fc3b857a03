//! When regions split by themselves, and the one place splits and merges are started and
//! counted. How a split is done is `directory/regions.rs`.
//!
//! Row operations report every region they wrote to (`rows/` has two write paths that all
//! operations share, so none can skip it), and the splitter compares the region's size with
//! the table's threshold. HBase checks after each flush because its region size counts only
//! store files; here the size counts the memstores too, so the check after a write sees
//! every byte a later flush will write, and a region grown by increments alone splits too.

use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_engine::Region;

use crate::directory::TableDirectory;
use crate::error::Result;
use crate::metrics::RequestMetrics;
use crate::names::TableName;
use crate::table_changes::SplitAt;

/// When regions split by themselves: past a size that starts at `initial_size` and doubles
/// with each region the table has, up to `max_region_size` (HBase's
/// IncreasingToUpperBoundRegionSplitPolicy idea), so a fresh table spreads early.
#[derive(Debug, Clone)]
pub struct SplitPolicy {
    pub enabled: bool,
    /// `None`: twice the engine's memstore flush size.
    pub initial_size: Option<u64>,
    pub max_region_size: u64,
    /// Split on a background thread (the default); tests split in the writing thread.
    pub background: bool,
}

impl Default for SplitPolicy {
    fn default() -> Self {
        SplitPolicy {
            enabled: true,
            initial_size: None,
            max_region_size: 10 << 30,
            background: true,
        }
    }
}

/// Starts splits and merges: the ones an admin asks for, and automatic ones by policy.
pub(crate) struct Splitter {
    directory: Arc<TableDirectory>,
    policy: SplitPolicy,
    /// The engine's memstore flush size: the default initial split size is twice it.
    flush_size: u64,
    metrics: Arc<RequestMetrics>,
    /// Regions an automatic split is under way for.
    splitting: Mutex<HashSet<u64>>,
}

impl Splitter {
    pub(crate) fn new(
        directory: Arc<TableDirectory>,
        policy: SplitPolicy,
        flush_size: u64,
        metrics: Arc<RequestMetrics>,
    ) -> Arc<Splitter> {
        Arc::new(Splitter {
            directory,
            policy,
            flush_size,
            metrics,
            splitting: Mutex::new(HashSet::new()),
        })
    }

    /// The size past which a region of a table with `regions` regions splits.
    pub(crate) fn threshold(&self, regions: usize) -> u64 {
        let initial = self
            .policy
            .initial_size
            .unwrap_or(self.flush_size.saturating_mul(2));
        let doublings = u32::try_from(regions.saturating_sub(1)).unwrap_or(u32::MAX);
        let grown = if doublings >= 63 {
            u64::MAX
        } else {
            initial.saturating_mul(1u64 << doublings)
        };
        grown.min(self.policy.max_region_size)
    }

    /// Splits a region in two; returns the daughters' ids.
    pub(crate) fn split(&self, table: &TableName, at: SplitAt) -> Result<(u64, u64)> {
        let daughters = self.directory.region_changes().split(table, at)?;
        self.metrics.count_split();
        Ok(daughters)
    }

    /// Merges two adjacent regions into one; returns its id.
    pub(crate) fn merge(&self, table: &TableName, a: u64, b: u64) -> Result<u64> {
        let merged = self.directory.region_changes().merge(table, a, b)?;
        self.metrics.count_merge();
        Ok(merged)
    }

    /// After a write to `region` of a table with `regions` regions: splits the region if it
    /// outgrew the table's threshold.
    pub(crate) fn after_write(
        self: &Arc<Self>,
        table: &TableName,
        region: &Region,
        regions: usize,
    ) {
        if !self.policy.enabled
            || region.has_references()
            || region.size_bytes() <= self.threshold(regions)
        {
            return;
        }
        let id = region.id();
        if !self.directory.region_changes().splits_here() {
            // Cluster mode on a server that is not master: the master splits it.
            self.directory.region_changes().request_split(table, id);
            return;
        }
        if !self.splitting.lock().insert(id) {
            return; // already under way
        }
        if !self.policy.background {
            self.split_automatically(table, id);
            return;
        }
        let me = Arc::clone(self);
        let owned = table.clone();
        let spawned = strata_runtime::thread::spawn("strata-split", move || {
            me.split_automatically(&owned, id)
        });
        if spawned.is_err() {
            self.splitting.lock().remove(&id);
        }
    }

    fn split_automatically(&self, table: &TableName, id: u64) {
        if let Err(e) = self.split(table, SplitAt::Region(id)) {
            tracing::warn!(table = %table, region = id, error = %e, "automatic split failed");
        }
        self.splitting.lock().remove(&id);
    }
}
