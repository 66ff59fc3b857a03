//! Engine-wide settings.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::lanes::Lane;
use crate::cache::L2Options;
use crate::compaction::policy::CompactionConfig;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, LocalFs, PlacementPolicy, TierSettingsMap, Volume};
use crate::manifest::ManifestPointers;
use crate::options::WalOptions;
use crate::region::RegionLimits;
use crate::store::MoveRules;
use crate::util::clock::{Clock, SystemClock};
use crate::wal::WalBackendOpener;

/// Settings for [`super::Engine::open`]. `EngineOptions::new(dir)` gives the standalone
/// defaults: one local directory, the system clock, background flush and compaction.
#[derive(Clone)]
pub struct EngineOptions {
    /// Root of the default volume (used when `volumes` is empty).
    pub data_dir: PathBuf,
    pub fs: Arc<dyn FileSystem>,
    /// Data volumes; empty means one SSD volume at `data_dir`.
    pub volumes: Vec<Volume>,
    /// Chooses a volume per file category; `None` puts everything on the first volume.
    pub placement: Option<Arc<dyn PlacementPolicy>>,
    /// Compression and block size per storage type, overriding the family's for files
    /// written on volumes of that type. Empty by default.
    pub tier_settings: TierSettingsMap,
    /// Which files the mover sends to another storage type beyond the storage policies
    /// (the age rule); see `Engine::move_misplaced_files`.
    pub move_rules: MoveRules,
    /// The mover's copy rate (default 32 MiB/s); `None` = unlimited.
    pub mover_bytes_per_sec: Option<u64>,
    pub clock: Arc<dyn Clock>,
    pub wal: WalOptions,
    /// Where the WAL stores its batches: `None` (the default) is local segment files in
    /// the WAL volume; cluster mode passes the object-store stream (`strata-objstore`).
    pub wal_backend: Option<Arc<dyn WalBackendOpener>>,
    /// Shared storage (cluster mode): where each store's current manifest is recorded.
    /// `None` (the default) is a local disk, where the newest manifest file is current.
    /// With pointers no file is ever deleted by the engine: `fs` must be one that leaves
    /// deletion to a garbage collector (`strata_objstore::ObjectFs`).
    pub manifest_pointers: Option<Arc<dyn ManifestPointers>>,
    /// Total memstore bytes of the process before writers wait (then fail with TooBusy).
    pub memstore_limit: u64,
    /// A region's memstores are flushed once they hold this many bytes.
    pub memstore_flush_size: u64,
    /// How long a writer waits for memory or compaction before TooBusy.
    pub write_wait_timeout: Duration,
    pub block_cache_bytes: u64,
    /// A second block-cache level in a file on a fast local device (HBase's file-backed
    /// BucketCache): data blocks evicted from the in-memory cache go there. `None` (the
    /// default): memory only.
    pub l2_cache: Option<L2Options>,
    /// Memory for the row cache (answers to repeated point reads of the families with
    /// `FamilyOptions::row_cache`); 0 (the default) turns it off.
    pub row_cache_bytes: u64,
    pub compaction: CompactionConfig,
    /// Writers to a store with this many SSTables wait for compaction (HBase's
    /// hbase.hstore.blockingStoreFiles), so reads cannot degrade without bound.
    pub blocking_store_files: usize,
    /// Writers to a region whose memstores hold this many times `memstore_flush_size` wait
    /// for its flush (HBase's hbase.hregion.memstore.block.multiplier, default 4), so one
    /// region whose flushes are slow cannot take the whole memstore limit from the others.
    pub memstore_block_multiplier: u64,
    /// Compaction bandwidth (default 512 MiB/s; lower it on shared or slow disks so
    /// compactions leave I/O to foreground work, at the price of compactions that take
    /// longer and keep more files around for reads); `None` = unlimited.
    pub compaction_bytes_per_sec: Option<u64>,
    /// Run flushes and compactions in background threads. Tests turn this off to decide
    /// themselves when flushes and compactions happen.
    pub background_work: bool,
    /// Threads that only flush (HBase's `hbase.hstore.flusher.count`), so a flush never
    /// waits behind a compaction.
    pub flush_threads: usize,
    /// Threads for compactions reading at most `compaction_throttle_bytes`
    /// (`hbase.regionserver.thread.compaction.small`).
    pub compaction_small_threads: usize,
    /// Threads for larger compactions (`hbase.regionserver.thread.compaction.large`), so a
    /// long compaction does not hold up the small ones behind it.
    pub compaction_large_threads: usize,
    /// Input bytes above which a compaction is large
    /// (`hbase.regionserver.thread.compaction.throttle`); `None` is HBase's default,
    /// 2 × `compaction.max_files` × `memstore_flush_size`.
    pub compaction_throttle_bytes: Option<u64>,
    /// With several volumes, new files pass over a volume whose recent syncs are much slower
    /// than its storage type's fastest (the latency-aware chooser; default true). False
    /// keeps plain turns, for comparison (`[engine] avoid_slow_volumes`).
    pub avoid_slow_volumes: bool,
    /// With volumes of several storage types, the background lanes exist once per type, so
    /// a slow device's flushes and compactions hold up only its own (default true). False
    /// shares one set of lanes, for comparison (`[engine] lanes_per_storage_type`).
    pub lanes_per_storage_type: bool,
}

impl EngineOptions {
    /// Standalone defaults rooted at `data_dir`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        EngineOptions {
            data_dir: data_dir.into(),
            fs: Arc::new(LocalFs),
            volumes: Vec::new(),
            placement: None,
            tier_settings: TierSettingsMap::new(),
            move_rules: MoveRules::default(),
            mover_bytes_per_sec: Some(32 << 20),
            clock: Arc::new(SystemClock),
            wal: WalOptions::default(),
            wal_backend: None,
            manifest_pointers: None,
            memstore_limit: 1 << 30,
            memstore_flush_size: 128 << 20,
            write_wait_timeout: Duration::from_secs(30),
            block_cache_bytes: 256 << 20,
            l2_cache: None,
            row_cache_bytes: 0,
            compaction: CompactionConfig::default(),
            blocking_store_files: 16,
            memstore_block_multiplier: 4,
            compaction_bytes_per_sec: Some(512 << 20),
            background_work: true,
            flush_threads: 1,
            compaction_small_threads: 1,
            compaction_large_threads: 1,
            compaction_throttle_bytes: None,
            avoid_slow_volumes: true,
            lanes_per_storage_type: true,
        }
    }

    /// The background threads of each lane.
    pub(crate) fn lane_threads(&self) -> LaneThreads {
        LaneThreads {
            flush: self.flush_threads,
            small_compaction: self.compaction_small_threads,
            large_compaction: self.compaction_large_threads,
        }
    }

    /// When regions flush, compact and make writers wait.
    pub(crate) fn region_limits(&self) -> RegionLimits {
        RegionLimits {
            memstore_flush_size: self.memstore_flush_size,
            blocking_store_files: self.blocking_store_files,
            memstore_block_multiplier: self.memstore_block_multiplier,
            write_wait_timeout: self.write_wait_timeout,
            compaction: self.compaction,
        }
    }

    /// Input bytes above which a compaction goes to the large lane.
    pub fn compaction_throttle(&self) -> u64 {
        self.compaction_throttle_bytes.unwrap_or_else(|| {
            let max_files = self.compaction.max_files as u64;
            max_files
                .saturating_mul(2)
                .saturating_mul(self.memstore_flush_size)
        })
    }
}

impl std::fmt::Debug for EngineOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineOptions")
            .field("data_dir", &self.data_dir)
            .field("volumes", &self.volumes)
            .field("memstore_limit", &self.memstore_limit)
            .field("memstore_flush_size", &self.memstore_flush_size)
            .field("block_cache_bytes", &self.block_cache_bytes)
            .field("l2_cache", &self.l2_cache)
            .field("row_cache_bytes", &self.row_cache_bytes)
            .finish_non_exhaustive()
    }
}

/// Threads per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneThreads {
    pub flush: usize,
    pub small_compaction: usize,
    pub large_compaction: usize,
}

impl LaneThreads {
    /// The threads serving `lane`.
    pub fn of(&self, lane: Lane) -> usize {
        match lane {
            Lane::Flush => self.flush,
            Lane::SmallCompaction => self.small_compaction,
            Lane::LargeCompaction => self.large_compaction,
        }
    }

    /// Every lane needs a thread, or its work would never run.
    pub fn validate(&self) -> Result<()> {
        let named = [
            (self.flush, "flush_threads"),
            (self.small_compaction, "compaction_small_threads"),
            (self.large_compaction, "compaction_large_threads"),
        ];
        match named.iter().find(|(n, _)| *n == 0) {
            Some((_, name)) => Err(Error::InvalidArgument(format!("{name} must be at least 1"))),
            None => Ok(()),
        }
    }
}
