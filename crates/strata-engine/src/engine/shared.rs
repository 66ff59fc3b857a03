//! State every region of an engine shares: the WAL, the sequence counter, the memory limit,
//! the block cache, and the queue of background work.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::lanes::{Lane, Scheduler};
use super::options::EngineOptions;
use crate::cache::BlockCache;
use crate::fs::Volumes;
use crate::memstore::limiter::MemoryLimiter;
use crate::region::Region;
use crate::util::clock::Clock;
use crate::util::rate_limiter::RateLimiter;
use crate::wal::{Wal, WalEdit};

/// Shared engine state (regions hold an `Arc` of it).
pub struct Shared {
    pub options: EngineOptions,
    pub volumes: Arc<Volumes>,
    pub cache: Arc<BlockCache>,
    pub wal: Arc<Wal>,
    pub clock: Arc<dyn Clock>,
    pub memory: MemoryLimiter,
    pub rate_limiter: RateLimiter,
    /// The last sequence id handed out.
    seq: AtomicU64,
    /// Open regions. The engine owns them until `close_region` or `close`.
    pub(crate) regions: RwLock<HashMap<u64, Arc<Region>>>,
    /// WAL edits of regions not opened since the restart, by region id.
    pub(crate) recovered: Mutex<HashMap<u64, Vec<WalEdit>>>,
    pub(crate) scheduler: Arc<Scheduler>,
    /// Regions retired by a split or merge whose files may still be referenced.
    pub(crate) retired: Mutex<std::collections::HashSet<u64>>,
    /// The references of regions closed but not dropped (a schema change reopens them), by
    /// region id: their parents' files must outlive the close.
    pub(crate) closed_refs: Mutex<HashMap<u64, Vec<String>>>,
    /// Finished flushes and compactions, for operators.
    pub events: crate::stats::EventLog,
}

impl Shared {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        options: EngineOptions,
        volumes: Arc<Volumes>,
        cache: Arc<BlockCache>,
        wal: Arc<Wal>,
        last_seq: u64,
        recovered: HashMap<u64, Vec<WalEdit>>,
        scheduler: Arc<Scheduler>,
    ) -> Shared {
        Shared {
            clock: Arc::clone(&options.clock),
            memory: MemoryLimiter::new(options.memstore_limit, options.write_wait_timeout),
            rate_limiter: RateLimiter::new(
                options.compaction_bytes_per_sec,
                Arc::clone(&options.clock),
            ),
            options,
            volumes,
            cache,
            wal,
            seq: AtomicU64::new(last_seq),
            regions: RwLock::new(HashMap::new()),
            recovered: Mutex::new(recovered),
            scheduler,
            retired: Mutex::new(std::collections::HashSet::new()),
            closed_refs: Mutex::new(HashMap::new()),
            events: crate::stats::EventLog::default(),
        }
    }

    /// Hands out the next sequence id.
    pub fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// The last sequence id handed out.
    pub fn last_seq(&self) -> u64 {
        self.seq.load(Ordering::Acquire)
    }

    /// Makes sure future sequence ids are above `seq` (an opened region's files may hold
    /// ids newer than anything left in the WAL).
    pub fn bump_seq(&self, seq: u64) {
        self.seq.fetch_max(seq, Ordering::AcqRel);
    }

    pub(crate) fn region(&self, id: u64) -> Option<Arc<Region>> {
        self.regions.read().get(&id).cloned()
    }

    pub(crate) fn open_regions(&self) -> Vec<Arc<Region>> {
        self.regions.read().values().cloned().collect()
    }

    /// Asks the flush lane to flush a region (ignored without background work).
    pub fn request_flush(&self, region: u64) {
        self.scheduler.push(Lane::Flush, region);
    }

    /// Asks a compaction lane to consider compacting a region: the large lane if what it
    /// would compact now is over the throttle, else the small one.
    pub fn request_compaction(&self, id: u64) {
        if !self.scheduler.wants_compaction(id) {
            return;
        }
        let input = self.region(id).map_or(0, |r| r.compaction_input_bytes());
        let lane = if input > self.options.compaction_throttle() {
            Lane::LargeCompaction
        } else {
            Lane::SmallCompaction
        };
        self.scheduler.push(lane, id);
    }

    /// Under memory pressure: flush the region holding the most memstore bytes.
    pub fn request_flush_of_largest(&self) {
        let largest = self
            .open_regions()
            .into_iter()
            .max_by_key(|r| r.memstore_bytes());
        if let Some(region) = largest {
            self.request_flush(region.id());
        }
    }

    /// After a flush: delete WAL segments no region needs, and queue compactions.
    pub fn after_flush(&self) {
        // Read before the regions: a write that gets its sequence id later is above it.
        let next_seq = self.last_seq() + 1;
        let regions = self.open_regions();
        let pending_recovered = self
            .recovered
            .lock()
            .values()
            .flat_map(|edits| edits.iter().map(|e| e.seq))
            .min();
        let min_unflushed = regions
            .iter()
            .filter_map(|r| r.min_unflushed_seq())
            .chain(pending_recovered)
            .min()
            .unwrap_or(next_seq);
        if let Err(e) = self.wal.mark_flushed(min_unflushed) {
            tracing::warn!(error = %e, "could not delete flushed WAL segments");
        }
        self.flush_region_pinning_the_wal(&regions);
        for region in regions.iter().filter(|r| r.needs_compaction()) {
            self.request_compaction(region.id());
        }
    }
}
