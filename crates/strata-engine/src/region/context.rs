//! What a region runs on, handed to it by whoever hosts it: the WAL its writes are logged
//! to, the sequence ids they take, the memory limit they are charged to, the clock, the
//! limits and rate limiter of its flushes and compactions, the log they are recorded in,
//! and where its stores' files live. Nothing here reaches another region: the host decides
//! what the region's notifications mean ([`super::RegionHost`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use crate::cache::{BlockCache, RowCache};
use crate::compaction::policy::CompactionConfig;
use crate::fs::Volumes;
use crate::manifest::{ManifestPointers, StorePointer};
use crate::memstore::limiter::MemoryLimiter;
use crate::stats::EventLog;
use crate::store::{family_dir_name, HeldFiles, StoreContext};
use crate::util::clock::Clock;
use crate::util::rate_limiter::RateLimiter;
use crate::wal::WalGroups;

/// The surroundings of a region. One is shared by every region of a host.
pub struct RegionContext {
    /// The WALs; a region logs to its own group ([`WalGroups::for_region`]).
    pub wal: Arc<WalGroups>,
    pub sequence: SequenceIds,
    pub memory: MemoryLimiter,
    pub clock: Arc<dyn Clock>,
    pub limits: RegionLimits,
    /// Paces compactions' reads and writes.
    pub rate_limiter: RateLimiter,
    /// Finished flushes and compactions, for operators.
    pub events: EventLog,
    pub stores: StoreContextFactory,
    /// Answers to repeated point reads of row-cache families (off at capacity 0).
    pub row_cache: Arc<RowCache>,
}

/// When a region flushes, compacts and makes writers wait.
#[derive(Debug, Clone, Copy)]
pub struct RegionLimits {
    /// A region's memstores are flushed once they hold this many bytes.
    pub memstore_flush_size: u64,
    /// Writers to a store with this many files wait for a compaction.
    pub blocking_store_files: usize,
    /// Writers to a region whose memstores hold this many times the flush size wait for
    /// its flush (HBase's `hbase.hregion.memstore.block.multiplier`).
    pub memstore_block_multiplier: u64,
    /// How long a writer waits for memory or compaction before TooBusy.
    pub write_wait_timeout: Duration,
    pub compaction: CompactionConfig,
}

/// Hands out sequence ids: one counter for every region writing to the same WAL, so the
/// WAL's order is the ids' order.
#[derive(Debug, Default)]
pub struct SequenceIds {
    /// The last id handed out.
    last: AtomicU64,
}

impl SequenceIds {
    /// A counter whose next id is `last + 1` (`last` is the newest id the WAL replayed).
    pub fn starting_after(last: u64) -> Self {
        SequenceIds {
            last: AtomicU64::new(last),
        }
    }

    /// Hands out the next sequence id.
    pub fn next(&self) -> u64 {
        self.last.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// The last sequence id handed out.
    pub fn last(&self) -> u64 {
        self.last.load(Ordering::Acquire)
    }

    /// Makes sure future ids are above `seq` (an opened region's files may hold ids newer
    /// than anything left in the WAL).
    pub fn skip_past(&self, seq: u64) {
        self.last.fetch_max(seq, Ordering::AcqRel);
    }
}

/// Makes the context a region's store opens with: the volumes its files go to, the block
/// cache they are read through, and the store's directory.
#[derive(Clone)]
pub struct StoreContextFactory {
    volumes: Arc<Volumes>,
    cache: Arc<BlockCache>,
    /// Shared storage: where each store's current manifest is recorded.
    pointers: Option<Arc<dyn ManifestPointers>>,
    /// Obsolete files readers still hold, over every store.
    held: HeldFiles,
}

impl StoreContextFactory {
    /// Stores on `volumes`, read through `cache`.
    pub fn new(volumes: Arc<Volumes>, cache: Arc<BlockCache>) -> Self {
        StoreContextFactory {
            volumes,
            cache,
            pointers: None,
            held: HeldFiles::default(),
        }
    }

    /// The obsolete files readers still hold, over every store made here.
    pub fn held(&self) -> &HeldFiles {
        &self.held
    }

    /// Stores on shared storage, whose current manifests `pointers` records.
    pub fn with_pointers(mut self, pointers: Option<Arc<dyn ManifestPointers>>) -> Self {
        self.pointers = pointers;
        self
    }

    /// The context of the store of `family` in region `region`.
    pub fn for_store(&self, region: u64, family: &[u8]) -> StoreContext {
        StoreContext {
            volumes: Arc::clone(&self.volumes),
            cache: Arc::clone(&self.cache),
            relative_dir: region_dir(region).join(family_dir_name(family)),
            pointer: self.pointers.as_ref().map(|pointers| StorePointer {
                pointers: Arc::clone(pointers),
                region,
                family: Bytes::copy_from_slice(family),
            }),
            held: self.held.clone(),
        }
    }
}

/// A region's directory relative to a volume root.
pub fn region_dir(id: u64) -> PathBuf {
    PathBuf::from("regions").join(format!("{id:016x}"))
}
