//! A read-only snapshot of the engine for operators: memory, block cache, WAL, background
//! work, volumes, and every open region with its stores and files. Taking one reads atomics
//! and clones a few `Arc`s per store; it never waits for a flush or compaction.

mod events;

use serde::Serialize;

pub use events::{BackgroundEvent, BackgroundTotals, EventKind, EventLog, RegionRequests};

use crate::cache::{CacheStats, TierStats};
use crate::engine::{Engine, Lane};
use crate::manifest::FileOrigin;
use crate::region::Region;
use crate::store::Store;
use crate::wal::WalStats;

/// Everything the engine reports.
#[derive(Debug, Clone, Serialize)]
pub struct EngineStats {
    pub memory: MemoryStats,
    pub cache: CacheStats,
    pub cache_tiers: Vec<TierStats>,
    pub wal: WalStats,
    pub background: BackgroundStats,
    pub volumes: Vec<VolumeStats>,
    pub regions: Vec<RegionStats>,
}

/// Memstore memory against its limits.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MemoryStats {
    pub memstore_bytes: u64,
    /// Writers wait once every memstore together holds this much.
    pub memstore_limit: u64,
    /// A region is flushed once its memstores hold this much.
    pub memstore_flush_size: u64,
}

/// Flush and compaction queues, totals and history.
#[derive(Debug, Clone, Serialize)]
pub struct BackgroundStats {
    pub queued_flushes: u64,
    /// In both compaction lanes.
    pub queued_compactions: u64,
    /// Each lane: flush, small_compaction, large_compaction.
    pub lanes: Vec<LaneStats>,
    pub totals: BackgroundTotals,
    /// Oldest first.
    pub recent: Vec<BackgroundEvent>,
}

/// One lane of background work: its threads, waiting and running tasks.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LaneStats {
    /// "flush", "small_compaction" or "large_compaction".
    pub lane: &'static str,
    /// 0 without background work.
    pub threads: u64,
    pub queued: u64,
    pub running: u64,
}

/// One data volume and the live store files on it.
#[derive(Debug, Clone, Serialize)]
pub struct VolumeStats {
    pub name: String,
    pub root: String,
    pub storage_type: String,
    pub files: u64,
    pub bytes: u64,
}

/// One open region.
#[derive(Debug, Clone, Serialize)]
pub struct RegionStats {
    pub id: u64,
    pub memstore_bytes: u64,
    pub file_bytes: u64,
    pub file_count: u64,
    /// Gets and scans started on the region.
    pub read_requests: u64,
    /// Mutation batches applied to the region.
    pub write_requests: u64,
    pub stores: Vec<StoreStats>,
}

/// One column family of a region.
#[derive(Debug, Clone, Serialize)]
pub struct StoreStats {
    pub family: String,
    pub memstore_bytes: u64,
    pub file_bytes: u64,
    /// Newest first.
    pub files: Vec<FileStats>,
}

/// One live store file.
#[derive(Debug, Clone, Serialize)]
pub struct FileStats {
    pub file_number: u64,
    pub volume: String,
    /// Relative to the volume root.
    pub path: String,
    pub size: u64,
    pub entries: u64,
    pub min_timestamp: i64,
    pub max_timestamp: i64,
    /// "flush" or "compaction".
    pub origin: &'static str,
    pub created_at_ms: i64,
    /// A reference to a split or merge parent's file.
    pub reference: bool,
}

impl Engine {
    /// A snapshot of everything the engine reports.
    pub fn stats(&self) -> EngineStats {
        let shared = &self.shared;
        let mut regions: Vec<RegionStats> =
            shared.open_regions().iter().map(|r| r.stats()).collect();
        regions.sort_by_key(|r| r.id);
        let lanes = lane_stats(shared);
        let queued_flushes = lanes[0].queued;
        let queued_compactions = lanes[1].queued + lanes[2].queued;
        EngineStats {
            memory: MemoryStats {
                memstore_bytes: shared.memory.used(),
                memstore_limit: shared.options.memstore_limit,
                memstore_flush_size: shared.options.memstore_flush_size,
            },
            cache: shared.cache.stats(),
            cache_tiers: shared.cache.tier_stats(),
            wal: shared.wal.stats(),
            background: BackgroundStats {
                queued_flushes,
                queued_compactions,
                lanes,
                totals: shared.events.totals(),
                recent: shared.events.recent(),
            },
            volumes: volume_stats(shared, &regions),
            regions,
        }
    }

    /// The engine clock's wall-clock milliseconds (what stats timestamps use).
    pub fn clock_millis(&self) -> i64 {
        self.shared.clock.now_millis()
    }

    /// A snapshot of one open region.
    pub fn region_stats(&self, id: u64) -> Option<RegionStats> {
        self.shared.region(id).map(|r| r.stats())
    }
}

fn lane_stats(shared: &crate::engine::Shared) -> Vec<LaneStats> {
    let threads = shared.options.lane_threads();
    let background = shared.options.background_work;
    Lane::ALL
        .iter()
        .zip(shared.scheduler.load())
        .map(|(&lane, load)| LaneStats {
            lane: lane.label(),
            threads: if background {
                threads.of(lane) as u64
            } else {
                0
            },
            queued: load.queued,
            running: load.running,
        })
        .collect()
}

fn volume_stats(shared: &crate::engine::Shared, regions: &[RegionStats]) -> Vec<VolumeStats> {
    shared
        .volumes
        .list()
        .iter()
        .map(|v| {
            let files = regions
                .iter()
                .flat_map(|r| &r.stores)
                .flat_map(|s| &s.files)
                .filter(|f| f.volume == v.name && !f.reference);
            let (count, bytes) = files.fold((0, 0), |(n, b), f| (n + 1, b + f.size));
            VolumeStats {
                name: v.name.clone(),
                root: v.root.display().to_string(),
                storage_type: v.storage_type.to_string(),
                files: count,
                bytes,
            }
        })
        .collect()
}

impl Region {
    /// A snapshot of this region.
    pub fn stats(&self) -> RegionStats {
        let stores: Vec<StoreStats> = self.stores().values().map(|s| store_stats(s)).collect();
        let (read_requests, write_requests) = self.requests.counts();
        RegionStats {
            id: self.id(),
            memstore_bytes: stores.iter().map(|s| s.memstore_bytes).sum(),
            file_bytes: stores.iter().map(|s| s.file_bytes).sum(),
            file_count: stores.iter().map(|s| s.files.len() as u64).sum(),
            read_requests,
            write_requests,
            stores,
        }
    }
}

fn store_stats(store: &Store) -> StoreStats {
    let view = store.view();
    let files: Vec<FileStats> = view
        .files
        .iter()
        .map(|f| {
            let e = &f.entry;
            FileStats {
                file_number: e.file_number,
                volume: e.volume.clone(),
                path: e.relative_path.clone(),
                size: e.size,
                entries: e.entries,
                min_timestamp: e.min_ts,
                max_timestamp: e.max_ts,
                origin: match e.origin {
                    FileOrigin::Flush => "flush",
                    FileOrigin::Compaction => "compaction",
                },
                created_at_ms: e.created_at_ms,
                reference: f.is_reference(),
            }
        })
        .collect();
    StoreStats {
        family: String::from_utf8_lossy(store.family_name()).into_owned(),
        memstore_bytes: view.memstore_bytes(),
        file_bytes: files.iter().map(|f| f.size).sum(),
        files,
    }
}

#[cfg(test)]
mod tests;
