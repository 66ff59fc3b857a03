//! The engine as the host of its regions: it turns what a region tells it into background
//! work and engine-wide housekeeping. Regions share WALs (one, or one per group), so a
//! flush of any region may free segments only the whole set can judge ([`RegionSet`]).

use std::sync::Arc;

use super::lanes::{Lane, Queue, Scheduler};
use super::region_set::RegionSet;
use super::tiers::Tiers;
use crate::error::Result;
use crate::fs::{FileCategory, Volumes};
use crate::region::{RegionContext, RegionHost};

/// The engine's side of [`RegionHost`], shared with its background threads.
pub struct EngineHost {
    pub regions: RegionSet,
    pub scheduler: Arc<Scheduler>,
    context: Arc<RegionContext>,
    volumes: Arc<Volumes>,
    /// The storage types background work is divided by (one tier of lanes each).
    pub tiers: Tiers,
    /// Input bytes above which a compaction goes to the large lane.
    compaction_throttle: u64,
}

impl EngineHost {
    pub fn new(
        regions: RegionSet,
        scheduler: Arc<Scheduler>,
        context: Arc<RegionContext>,
        volumes: Arc<Volumes>,
        compaction_throttle: u64,
        tiers: Tiers,
    ) -> Self {
        EngineHost {
            regions,
            scheduler,
            context,
            tiers,
            volumes,
            compaction_throttle,
        }
    }

    /// Asks the flush lane of the region's tier to flush it (ignored without background
    /// work).
    pub fn request_flush(&self, id: u64) {
        let tier = self.tier_of(id, FileCategory::Flush);
        self.scheduler.push(
            Queue {
                lane: Lane::Flush,
                tier,
            },
            id,
        );
    }

    /// The tier whose threads run work on region `id` writing `category` files.
    fn tier_of(&self, id: u64, category: FileCategory) -> usize {
        if self.tiers.len() <= 1 {
            return 0; // one tier (the default): no need to look at the region's families
        }
        let policies = self
            .regions
            .get(id)
            .map(|r| r.storage_policies())
            .unwrap_or_default();
        self.tiers.for_work(&self.volumes, category, &policies)
    }

    /// Asks a compaction lane of the region's tier to consider compacting it: the large
    /// lane if what it would compact now is over the throttle, else the small one.
    pub fn request_compaction(&self, id: u64) {
        if !self.scheduler.wants_compaction(id) {
            return;
        }
        let input = self
            .regions
            .get(id)
            .map_or(0, |r| r.compaction_input_bytes());
        let lane = if input > self.compaction_throttle {
            Lane::LargeCompaction
        } else {
            Lane::SmallCompaction
        };
        let tier = self.tier_of(id, FileCategory::Compaction);
        self.scheduler.push(Queue { lane, tier }, id);
    }

    /// Deletes the directories of retired regions that no region references.
    pub fn collect_retired(&self) -> Result<()> {
        self.regions.collect_retired(&self.volumes)
    }
}

impl RegionHost for EngineHost {
    fn flush_wanted(&self, region: u64) {
        self.request_flush(region);
    }

    fn compaction_wanted(&self, region: u64) {
        self.request_compaction(region);
    }

    /// Flushes the region holding the most memory, which frees the most.
    fn memory_pressure(&self, _region: u64) {
        if let Some(largest) = self.regions.largest_memstore() {
            self.request_flush(largest);
        }
    }

    /// A WAL is shared, so what a flush frees is decided across every region logging to
    /// it: the region's own `seq` does not say what the others still need.
    fn flushed(&self, _region: u64, _seq: u64) {
        let wal = &self.context.wal;
        // Read before the regions: a write that gets its sequence id later is above it.
        let last_seq = self.context.sequence.last();
        self.regions.truncate_wal(wal, last_seq);
        for pinning in self.regions.regions_pinning_the_wal(wal) {
            self.request_flush(pinning);
        }
        for id in self.regions.needing_compaction() {
            self.request_compaction(id);
        }
    }

    fn references_dropped(&self, region: u64) {
        if let Err(e) = self.collect_retired() {
            tracing::warn!(region, error = %e, "could not remove retired regions");
        }
    }
}
