//! A byte-weighted cache of decoded SSTable data blocks, shared by every open table.
//!
//! Two `quick_cache` partitions (each sharded, each with the scan-resistant S3-FIFO-style
//! policy): a high-priority one for the data blocks of IN_MEMORY families, and a normal one
//! for the rest. Keeping them apart means a large scan can churn the normal partition
//! without evicting the blocks an IN_MEMORY family asked to keep.
//!
//! Index and bloom blocks are not in either partition: each open file keeps them decoded
//! (`table/reader.rs`), and their memory is charged to this cache's capacity. How the
//! capacity is divided between that memory and the two partitions is in `sizing.rs`.
//!
//! With a second level configured (`l2/`), data blocks evicted on insert go there, and a
//! miss here may be served from there (`levels.rs`). Blocks pushed out by a resize are
//! not demoted (resizes follow files opening and closing, and are rare).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use quick_cache::sync::Cache;
use quick_cache::{Lifecycle, Weighter};

use super::l2::{L2Cache, L2Stats};
use super::levels::SecondLevel;
use super::sizing::{at_floor, CacheCharge, Demand, Reserve, HIGH_PRIORITY_PERCENT};
use crate::table::block::Block;

/// (file id, block offset).
pub type CacheKey = (u64, u64);

/// Which partition a block goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// Data blocks of IN_MEMORY families (the normal partition takes them while no
    /// IN_MEMORY file has charged the cache).
    High,
    /// Ordinary data blocks.
    Normal,
}

/// Counters and sizes, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CacheStats {
    /// Lookups that found the block.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Blocks pushed out to make room (including blocks too large to be admitted).
    pub evictions: u64,
    /// Blocks inserted.
    pub inserts: u64,
    /// Bytes of blocks currently held (block bytes plus a fixed per-entry overhead).
    pub size_bytes: u64,
    /// Index and bloom memory of the open files, charged to the capacity.
    pub index_bloom_bytes: u64,
    /// Configured capacity: blocks and index and bloom memory together.
    pub capacity_bytes: u64,
    /// Blocks currently held.
    pub entries: u64,
    /// The second level, when one is configured.
    pub l2: Option<L2Stats>,
}

/// One partition's share of the counters and sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TierStats {
    /// "high" (IN_MEMORY families' data blocks) or "normal".
    pub tier: &'static str,
    pub hits: u64,
    pub evictions: u64,
    pub size_bytes: u64,
    /// The partition's current capacity (see `sizing.rs`).
    pub capacity_bytes: u64,
    pub entries: u64,
}

/// Accounting overhead per entry (key, handle, bookkeeping), so tiny blocks are not free.
pub(super) const ENTRY_OVERHEAD: u64 = 64;

/// Typical block size, used only to size the hash tables up front.
const TYPICAL_BLOCK: u64 = 16 * 1024;

/// Weighs an entry by its byte size.
#[derive(Debug, Clone, Copy)]
struct ByteWeighter;

impl Weighter<CacheKey, Block> for ByteWeighter {
    fn weight(&self, _key: &CacheKey, val: &Block) -> u64 {
        val.memory_bytes() as u64 + ENTRY_OVERHEAD
    }
}

/// Counts evictions and, with a second level, collects the evicted blocks into the
/// request's state: the hook runs under a shard lock, so they are demoted after the insert
/// returns (see [`BlockCache::insert`]).
#[derive(Debug, Clone)]
struct OnEvict {
    count: Arc<AtomicU64>,
    collect: bool,
}

impl Lifecycle<CacheKey, Block> for OnEvict {
    type RequestState = Vec<(CacheKey, Block)>;

    fn on_evict(&self, state: &mut Self::RequestState, key: CacheKey, val: Block) {
        self.count.fetch_add(1, Ordering::Relaxed);
        if self.collect {
            state.push((key, val));
        }
    }
}

type Partition = Cache<CacheKey, Block, ByteWeighter, quick_cache::DefaultHashBuilder, OnEvict>;

/// A partition of `capacity`, its hash tables sized for about `max_bytes` of blocks.
fn partition(max_bytes: u64, capacity: u64, on_evict: OnEvict) -> Partition {
    let items = usize::try_from(max_bytes / TYPICAL_BLOCK).unwrap_or(usize::MAX);
    Cache::with(
        items.max(16),
        capacity,
        ByteWeighter,
        quick_cache::DefaultHashBuilder::default(),
        on_evict,
    )
}

/// Sets a partition's capacity to at most `bytes`: quick_cache gives each shard an equal
/// share rounded up, so the share is rounded down here.
fn set_capacity(partition: &Partition, bytes: u64) {
    let shards = partition.num_shards() as u64;
    partition.set_capacity(bytes / shards * shards);
}

/// Source of [`BlockCache::next_file_id`].
static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(1);

/// The shared block cache. A capacity of 0 disables it (every lookup misses, inserts are
/// dropped); open files' index and bloom memory is still counted.
pub struct BlockCache {
    /// Both present, or neither (capacity 0).
    partitions: Option<(Partition, Partition)>,
    capacity: u64,
    /// What the open files charged, and the reservation the partitions are sized from;
    /// both change under the lock.
    demand: Mutex<(Demand, Reserve)>,
    /// Mirrors of the demand's index and bloom bytes and of the high partition's capacity
    /// (0 while it is closed), read without the lock (stats, every lookup and insert).
    index_bloom: AtomicU64,
    high_capacity: AtomicU64,
    /// Set while data blocks are held at their floor (logged once per episode).
    at_floor: AtomicBool,
    hits: AtomicU64,
    misses: AtomicU64,
    inserts: AtomicU64,
    /// High-priority partition: hits and evictions (the rest are the normal partition's).
    high_hits: AtomicU64,
    high_evictions: Arc<AtomicU64>,
    normal_evictions: Arc<AtomicU64>,
    /// The second level, if configured (driven from `levels.rs`).
    pub(super) l2: Option<SecondLevel>,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("stats", &self.stats())
            .finish()
    }
}

impl BlockCache {
    /// A cache of `capacity_bytes` for blocks and the open files' index and bloom memory.
    #[cfg(test)]
    pub fn new(capacity_bytes: u64) -> Arc<BlockCache> {
        BlockCache::with_l2(capacity_bytes, None)
    }

    /// A cache as [`BlockCache::new`] whose evicted data blocks go to `l2`.
    pub fn with_l2(capacity_bytes: u64, l2: Option<Arc<L2Cache>>) -> Arc<BlockCache> {
        let high_evictions = Arc::new(AtomicU64::new(0));
        let normal_evictions = Arc::new(AtomicU64::new(0));
        let on_evict = |count: &Arc<AtomicU64>| OnEvict {
            count: Arc::clone(count),
            collect: l2.is_some(),
        };
        let partitions = (capacity_bytes > 0).then(|| {
            let high_max = capacity_bytes / 100 * HIGH_PRIORITY_PERCENT;
            (
                // Created at capacity 0: it opens with the first IN_MEMORY file.
                partition(high_max, 0, on_evict(&high_evictions)),
                partition(capacity_bytes, capacity_bytes, on_evict(&normal_evictions)),
            )
        });
        Arc::new(BlockCache {
            partitions,
            capacity: capacity_bytes,
            demand: Mutex::new((Demand::default(), Reserve::default())),
            index_bloom: AtomicU64::new(0),
            high_capacity: AtomicU64::new(0),
            at_floor: AtomicBool::new(false),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            inserts: AtomicU64::new(0),
            high_hits: AtomicU64::new(0),
            high_evictions,
            normal_evictions,
            l2: l2.map(SecondLevel::new),
        })
    }

    /// A cache that holds nothing.
    #[cfg(test)]
    pub fn disabled() -> Arc<BlockCache> {
        BlockCache::new(0)
    }

    /// A process-wide unique id for a newly opened table file (its half of every cache key).
    pub fn next_file_id() -> u64 {
        NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed)
    }

    /// Charges an open file's index and bloom memory, and the raw bytes of its data blocks
    /// if they are to be cached at high priority, until the returned charge is dropped.
    pub fn charge(self: &Arc<Self>, index_bloom_bytes: u64, in_memory_bytes: u64) -> CacheCharge {
        let charged = Demand {
            index_bloom: index_bloom_bytes,
            in_memory: in_memory_bytes,
        };
        let mut state = self.demand.lock();
        let (demand, reserve) = &mut *state;
        demand.index_bloom = demand.index_bloom.saturating_add(charged.index_bloom);
        demand.in_memory = demand.in_memory.saturating_add(charged.in_memory);
        self.resize(demand, reserve);
        CacheCharge::new(Arc::clone(self), charged)
    }

    /// Takes back a charge (its file closed).
    pub(super) fn release(&self, charged: Demand) {
        let mut state = self.demand.lock();
        let (demand, reserve) = &mut *state;
        demand.index_bloom = demand.index_bloom.saturating_sub(charged.index_bloom);
        demand.in_memory = demand.in_memory.saturating_sub(charged.in_memory);
        self.resize(demand, reserve);
    }

    /// Moves the reservation towards `demand` and resizes the partitions if it changed. The
    /// caller holds the demand lock, so resizes apply in the order the demand changed.
    fn resize(&self, demand: &Demand, reserve: &mut Reserve) {
        self.index_bloom
            .store(demand.index_bloom, Ordering::Relaxed);
        self.warn_at_floor(demand);
        let Some((high, normal)) = &self.partitions else {
            return;
        };
        let next = reserve.follow(self.capacity, *demand, high.num_shards() as u64);
        if next == *reserve {
            return;
        }
        *reserve = next;
        let split = next.split(self.capacity);
        if split.high == 0 {
            // Closed: emptied and bypassed, but not sized to 0 (see `sizing.rs`). An insert
            // that saw it open just before may still land in it: a few blocks at most, aged
            // out once it opens again.
            self.high_capacity.store(0, Ordering::Relaxed);
            high.clear();
            set_capacity(normal, split.normal);
            return;
        }
        // Shrink first, so the two never hold more than the capacity together.
        if split.high < high.capacity() {
            set_capacity(high, split.high);
            set_capacity(normal, split.normal);
        } else {
            set_capacity(normal, split.normal);
            set_capacity(high, split.high);
        }
        self.high_capacity.store(high.capacity(), Ordering::Relaxed);
    }

    fn warn_at_floor(&self, demand: &Demand) {
        let floor = at_floor(self.capacity, *demand);
        if floor && !self.at_floor.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                index_bloom_bytes = demand.index_bloom,
                capacity_bytes = self.capacity,
                "the open files' index and bloom memory leaves data blocks only their floor \
                 of the block cache; memory use exceeds block_cache_mb (raise it)"
            );
        }
        if !floor {
            self.at_floor.store(false, Ordering::Relaxed);
        }
    }

    /// Looks a block up in both partitions.
    pub fn get(&self, key: &CacheKey) -> Option<Block> {
        let found = self.partitions.as_ref().and_then(|(high, normal)| {
            let in_high = (self.high_capacity.load(Ordering::Relaxed) > 0)
                .then(|| high.get(key))
                .flatten();
            if in_high.is_some() {
                self.high_hits.fetch_add(1, Ordering::Relaxed);
            }
            in_high.or_else(|| normal.get(key))
        });
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Caches a block in the partition for `priority`.
    pub fn insert(&self, key: CacheKey, block: Block, priority: Priority) {
        let Some((high, normal)) = &self.partitions else {
            return;
        };
        let high_open = self.high_capacity.load(Ordering::Relaxed) > 0;
        let partition = match priority {
            Priority::High if high_open => high,
            Priority::High | Priority::Normal => normal,
        };
        self.inserts.fetch_add(1, Ordering::Relaxed);
        let mut evicted = Vec::new();
        partition.insert_with_lifecycle(key, block, &mut evicted);
        // The partition's locks are released: the blocks it evicted can be demoted.
        if let Some(l2) = &self.l2 {
            l2.demote(evicted);
        }
    }

    /// Current counters and sizes.
    pub fn stats(&self) -> CacheStats {
        let sum = |f: fn(&Partition) -> u64| {
            self.partitions
                .as_ref()
                .map_or(0, |(high, normal)| f(high) + f(normal))
        };
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.high_evictions.load(Ordering::Relaxed)
                + self.normal_evictions.load(Ordering::Relaxed),
            inserts: self.inserts.load(Ordering::Relaxed),
            size_bytes: sum(|p| p.weight()),
            index_bloom_bytes: self.index_bloom.load(Ordering::Relaxed),
            capacity_bytes: self.capacity,
            entries: sum(|p| p.len() as u64),
            l2: self.l2.as_ref().map(SecondLevel::stats),
        }
    }

    /// Counters and sizes per partition (high first).
    pub fn tier_stats(&self) -> Vec<TierStats> {
        let hits = self.hits.load(Ordering::Relaxed);
        let high_hits = self.high_hits.load(Ordering::Relaxed);
        let (high, normal) = match &self.partitions {
            Some((high, normal)) => (Some(high), Some(normal)),
            None => (None, None),
        };
        let tier = |tier, part: Option<&Partition>, hits, evictions: &AtomicU64| TierStats {
            tier,
            hits,
            evictions: evictions.load(Ordering::Relaxed),
            size_bytes: part.map_or(0, |p| p.weight()),
            capacity_bytes: part.map_or(0, |p| p.capacity()),
            entries: part.map_or(0, |p| p.len() as u64),
        };
        let mut high = tier("high", high, high_hits, &self.high_evictions);
        // A closed high partition keeps its last size inside quick_cache, but holds nothing.
        high.capacity_bytes = self.high_capacity.load(Ordering::Relaxed);
        vec![
            high,
            tier(
                "normal",
                normal,
                hits.saturating_sub(high_hits),
                &self.normal_evictions,
            ),
        ]
    }

    /// Number of cached blocks.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.stats().entries as usize
    }

    /// True when no block is cached.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
