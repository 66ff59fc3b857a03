//! The engine's snapshot for operators ([`crate::stats`] holds its shapes). Taking one
//! reads atomics and clones a few `Arc`s per store; it never waits for a flush or
//! compaction.

use super::{Engine, Lane};
use crate::fs::Volumes;
use crate::stats::{
    BackgroundStats, CacheStats, EngineStats, LaneStats, MemoryStats, RegionStats, RowCacheStats,
    TierStats, VolumeStats, WalGroupStats, WalStats,
};

impl Engine {
    /// A snapshot of everything the engine reports.
    pub fn stats(&self) -> EngineStats {
        let mut regions: Vec<RegionStats> =
            self.host.regions.all().iter().map(|r| r.stats()).collect();
        regions.sort_by_key(|r| r.id);
        let lanes = self.lane_stats();
        let queued = |flush: bool| -> u64 {
            lanes
                .iter()
                .filter(|l| (l.lane == Lane::Flush.label()) == flush)
                .map(|l| l.queued)
                .sum()
        };
        let (queued_flushes, queued_compactions) = (queued(true), queued(false));
        EngineStats {
            memory: MemoryStats {
                memstore_bytes: self.context.memory.used(),
                memstore_limit: self.options.memstore_limit,
                memstore_flush_size: self.options.memstore_flush_size,
            },
            cache: self.cache.stats(),
            cache_tiers: self.cache.tier_stats(),
            row_cache: self.context.row_cache.stats(),
            wal: self.context.wal.stats(),
            background: BackgroundStats {
                queued_flushes,
                queued_compactions,
                lanes,
                totals: self.context.events.totals(),
                recent: self.context.events.recent(),
            },
            volumes: volume_stats(&self.volumes, &regions),
            regions,
        }
    }

    /// The WAL's counters alone: cheaper than [`Engine::stats`], which visits every region.
    /// With WAL groups, the sum over every group.
    pub fn wal_stats(&self) -> WalStats {
        self.context.wal.stats()
    }

    /// Each WAL group's counters and directory (one entry without groups), then those of
    /// leftover directories still replayed from an earlier group count.
    pub fn wal_group_stats(&self) -> Vec<WalGroupStats> {
        self.context.wal.group_stats()
    }

    /// Waits until the blocks evicted from the in-memory block cache so far are written to
    /// the second level (a no-op without one): for tests and benchmarks that look at it.
    pub fn flush_l2_cache(&self) {
        self.cache.flush_l2();
    }

    /// The block cache's totals alone (see [`Engine::wal_stats`] for why).
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// The block cache's tiers alone (see [`Engine::wal_stats`] for why).
    pub fn cache_tier_stats(&self) -> Vec<TierStats> {
        self.cache.tier_stats()
    }

    /// The row cache's counters and sizes alone (see [`Engine::wal_stats`] for why).
    pub fn row_cache_stats(&self) -> RowCacheStats {
        self.context.row_cache.stats()
    }

    /// The engine clock's wall-clock milliseconds (what stats timestamps use).
    pub fn clock_millis(&self) -> i64 {
        self.context.clock.now_millis()
    }

    /// A snapshot of one open region.
    pub fn region_stats(&self, id: u64) -> Option<RegionStats> {
        self.region(id).map(|r| r.stats())
    }

    fn lane_stats(&self) -> Vec<LaneStats> {
        let threads = self.options.lane_threads();
        let background = self.options.background_work;
        let tiers = &self.host.tiers;
        self.host
            .scheduler
            .load()
            .into_iter()
            .map(|(queue, load)| LaneStats {
                lane: queue.lane.label(),
                storage_type: tiers.storage_type(queue.tier).map_or("", |t| t.name()),
                threads: if background {
                    threads.of(queue.lane) as u64
                } else {
                    0
                },
                queued: load.queued,
                running: load.running,
            })
            .collect()
    }
}

fn volume_stats(volumes: &Volumes, regions: &[RegionStats]) -> Vec<VolumeStats> {
    let health = volumes.health_report();
    volumes
        .list()
        .iter()
        .map(|v| {
            let files = regions
                .iter()
                .flat_map(|r| &r.stores)
                .flat_map(|s| &s.files)
                .filter(|f| f.volume == v.name && !f.reference);
            let (count, bytes) = files.fold((0, 0), |(n, b), f| (n + 1, b + f.size));
            let health = health
                .iter()
                .find(|(name, _)| *name == v.name)
                .map(|(_, h)| h);
            VolumeStats {
                name: v.name.clone(),
                root: v.root.display().to_string(),
                storage_type: v.storage_type.to_string(),
                files: count,
                bytes,
                state: health.map_or("ok", |h| h.state).to_string(),
                sync_latency_us: health.and_then(|h| h.sync_latency_us),
                errors: health.map_or(0, |h| h.errors),
                last_error: health.and_then(|h| h.last_error.clone()),
            }
        })
        .collect()
}
