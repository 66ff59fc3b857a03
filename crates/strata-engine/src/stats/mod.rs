//! What the engine reports to operators: the shapes of its snapshot (memory, block cache,
//! WAL, background work, volumes, and every open region with its stores and files) and the
//! recorders that regions write to as they work (crate-private: callers read snapshots). A leaf: the engine and its regions fill
//! these in (`engine/stats.rs`, `region/stats.rs`); nothing here reaches back to them.

mod events;

use serde::Serialize;

pub use events::{BackgroundEvent, BackgroundTotals, EventKind};
// The recorders are written by regions and read into the snapshot; not for callers.
pub(crate) use events::{EventLog, RegionRequests};

// The cache and the WAL keep their counters next to the code that bumps them; their report
// shapes are named here, with the rest of the snapshot.
pub use crate::cache::{CacheStats, L2Stats, RowCacheStats, TierStats};
pub use crate::wal::stats::SYNC_LATENCY_BUCKETS;
pub use crate::wal::{WalGroupStats, WalStats};

/// Everything the engine reports.
#[derive(Debug, Clone, Serialize)]
pub struct EngineStats {
    pub memory: MemoryStats,
    pub cache: CacheStats,
    pub cache_tiers: Vec<TierStats>,
    pub row_cache: RowCacheStats,
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
    /// Each lane (flush, small_compaction, large_compaction) of each tier.
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
    /// The tier's storage type: the lanes exist once per storage type of the volumes, and
    /// work runs in the tier of the type its files are written on.
    pub storage_type: &'static str,
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
    /// `ok`, `slow` or `failed` (placement passes over the last two); `ok` when not
    /// measured (a single volume).
    pub state: String,
    /// Average recent sync time in µs, once measured.
    pub sync_latency_us: Option<u64>,
    /// I/O errors seen writing there, and the last one.
    pub errors: u64,
    pub last_error: Option<String>,
}

/// One open region.
#[derive(Debug, Clone, Default, Serialize)]
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
