//! A byte-weighted cache of decoded SSTable blocks, shared by every open table.
//!
//! Two `quick_cache` partitions (each sharded, each with the scan-resistant S3-FIFO-style
//! policy): a high-priority one (a quarter of the capacity) for index, bloom and in-memory
//! family blocks, and a normal one for other data blocks. Keeping them apart means a large
//! scan can churn the normal partition without evicting the small blocks every read needs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use quick_cache::sync::Cache;

use crate::table::block::Block;
use quick_cache::{Lifecycle, Weighter};

/// (file id, block offset).
pub type CacheKey = (u64, u64);

/// Which partition a block goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// Index, bloom and in-memory family blocks.
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
    /// Bytes currently held (block bytes plus a fixed per-entry overhead).
    pub size_bytes: u64,
    /// Configured capacity.
    pub capacity_bytes: u64,
    /// Blocks currently held.
    pub entries: u64,
}

/// One partition's share of the counters and sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TierStats {
    /// "high" (index, bloom, in-memory families) or "normal".
    pub tier: &'static str,
    pub hits: u64,
    pub evictions: u64,
    pub size_bytes: u64,
    pub capacity_bytes: u64,
    pub entries: u64,
}

/// Share of the capacity given to the high-priority partition.
const HIGH_PRIORITY_PERCENT: u64 = 25;

/// Accounting overhead per entry (key, handle, bookkeeping), so tiny blocks are not free.
const ENTRY_OVERHEAD: u64 = 64;

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

/// Counts evictions.
#[derive(Debug, Clone)]
struct CountEvictions(Arc<AtomicU64>);

impl Lifecycle<CacheKey, Block> for CountEvictions {
    type RequestState = ();

    fn on_evict(&self, _state: &mut (), _key: CacheKey, _val: Block) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

type Partition =
    Cache<CacheKey, Block, ByteWeighter, quick_cache::DefaultHashBuilder, CountEvictions>;

/// Source of [`BlockCache::next_file_id`].
static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(1);

/// The shared block cache. A capacity of 0 disables it (every lookup misses, inserts are
/// dropped).
pub struct BlockCache {
    high: Option<Partition>,
    normal: Option<Partition>,
    capacity: u64,
    hits: AtomicU64,
    misses: AtomicU64,
    inserts: AtomicU64,
    /// High-priority partition: hits and evictions (the rest are the normal partition's).
    high_hits: AtomicU64,
    high_evictions: Arc<AtomicU64>,
    normal_evictions: Arc<AtomicU64>,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("stats", &self.stats())
            .finish()
    }
}

impl BlockCache {
    /// A cache holding about `capacity_bytes` of blocks.
    pub fn new(capacity_bytes: u64) -> Arc<BlockCache> {
        let high_evictions = Arc::new(AtomicU64::new(0));
        let normal_evictions = Arc::new(AtomicU64::new(0));
        let high_cap = capacity_bytes * HIGH_PRIORITY_PERCENT / 100;
        let partition = |cap: u64, evictions: &Arc<AtomicU64>| {
            (cap > 0).then(|| {
                let items = usize::try_from(cap / TYPICAL_BLOCK).unwrap_or(usize::MAX);
                Cache::with(
                    items.max(16),
                    cap,
                    ByteWeighter,
                    quick_cache::DefaultHashBuilder::default(),
                    CountEvictions(evictions.clone()),
                )
            })
        };
        Arc::new(BlockCache {
            high: partition(high_cap, &high_evictions),
            normal: partition(capacity_bytes - high_cap, &normal_evictions),
            capacity: capacity_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            inserts: AtomicU64::new(0),
            high_hits: AtomicU64::new(0),
            high_evictions,
            normal_evictions,
        })
    }

    /// A cache that holds nothing.
    pub fn disabled() -> Arc<BlockCache> {
        BlockCache::new(0)
    }

    /// A process-wide unique id for a newly opened table file (its half of every cache key).
    pub fn next_file_id() -> u64 {
        NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed)
    }

    /// Looks a block up in both partitions.
    pub fn get(&self, key: &CacheKey) -> Option<Block> {
        let high = self.high.as_ref().and_then(|c| c.get(key));
        if high.is_some() {
            self.high_hits.fetch_add(1, Ordering::Relaxed);
        }
        let found = high.or_else(|| self.normal.as_ref().and_then(|c| c.get(key)));
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
        let partition = match priority {
            Priority::High => &self.high,
            Priority::Normal => &self.normal,
        };
        if let Some(cache) = partition {
            self.inserts.fetch_add(1, Ordering::Relaxed);
            cache.insert(key, block);
        }
    }

    /// Current counters and sizes.
    pub fn stats(&self) -> CacheStats {
        let parts = [&self.high, &self.normal];
        let sum = |f: fn(&Partition) -> u64| parts.iter().filter_map(|p| p.as_ref()).map(f).sum();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.high_evictions.load(Ordering::Relaxed)
                + self.normal_evictions.load(Ordering::Relaxed),
            inserts: self.inserts.load(Ordering::Relaxed),
            size_bytes: sum(|p| p.weight()),
            capacity_bytes: self.capacity,
            entries: sum(|p| p.len() as u64),
        }
    }

    /// Counters and sizes per partition (high first).
    pub fn tier_stats(&self) -> Vec<TierStats> {
        let hits = self.hits.load(Ordering::Relaxed);
        let high_hits = self.high_hits.load(Ordering::Relaxed);
        let tier = |tier, part: &Option<Partition>, hits, evictions: &AtomicU64| TierStats {
            tier,
            hits,
            evictions: evictions.load(Ordering::Relaxed),
            size_bytes: part.as_ref().map_or(0, |p| p.weight()),
            capacity_bytes: part.as_ref().map_or(0, |p| p.capacity()),
            entries: part.as_ref().map_or(0, |p| p.len() as u64),
        };
        vec![
            tier("high", &self.high, high_hits, &self.high_evictions),
            tier(
                "normal",
                &self.normal,
                hits.saturating_sub(high_hits),
                &self.normal_evictions,
            ),
        ]
    }

    /// Number of cached blocks.
    pub fn len(&self) -> usize {
        self.stats().entries as usize
    }

    /// True when no block is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A structurally valid block of exactly `n` bytes (n a multiple of 4, at least 4): no
    /// entries, and restart slots filling the space.
    fn block(n: usize) -> Block {
        let slots = (n - 4) / 4;
        let mut data = vec![0u8; n];
        data[n - 4..].copy_from_slice(&(slots as u32).to_le_bytes());
        let path: std::sync::Arc<std::path::Path> = std::sync::Arc::from(std::path::Path::new("t"));
        Block::new(bytes::Bytes::from(data), path, 0).unwrap()
    }

    #[test]
    fn hits_misses_and_inserts_are_counted() {
        let cache = BlockCache::new(1 << 20);
        assert_eq!(cache.get(&(1, 0)).map(Block::into_bytes), None);
        cache.insert((1, 0), block(100), Priority::Normal);
        cache.insert((1, 200), block(50), Priority::High);
        assert_eq!(
            cache.get(&(1, 0)).map(Block::into_bytes),
            Some(block(100).into_bytes())
        );
        assert_eq!(
            cache.get(&(1, 200)).map(Block::into_bytes),
            Some(block(50).into_bytes())
        );
        assert_eq!(
            cache.get(&(2, 0)).map(Block::into_bytes),
            None,
            "another file's block"
        );
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.inserts, s.entries), (2, 2, 2, 2));
        assert_eq!(s.size_bytes, 150 + 2 * ENTRY_OVERHEAD);
        assert_eq!(s.capacity_bytes, 1 << 20);
        assert_eq!(s.evictions, 0);
    }

    #[test]
    fn priority_blocks_survive_a_flood_and_evictions_are_counted() {
        let cache = BlockCache::new(400 * 1024);
        for i in 0..20 {
            cache.insert((1, i), block(2048), Priority::High);
        }
        for i in 0..2000 {
            cache.insert((2, i), block(4096), Priority::Normal);
        }
        for i in 0..20 {
            assert!(
                cache.get(&(1, i)).map(Block::into_bytes).is_some(),
                "high-priority block {i} evicted"
            );
        }
        let s = cache.stats();
        assert!(s.size_bytes <= s.capacity_bytes, "{s:?}");
        assert!(s.evictions >= 1900, "{s:?}");
        assert_eq!(s.evictions + s.entries, s.inserts, "{s:?}");
    }

    #[test]
    fn disabled_cache_holds_nothing() {
        let cache = BlockCache::disabled();
        cache.insert((1, 0), block(10), Priority::High);
        assert!(cache.is_empty());
        assert_eq!(cache.get(&(1, 0)).map(Block::into_bytes), None);
        assert_eq!(cache.stats().misses, 1);
    }

    #[test]
    fn file_ids_are_unique() {
        let a = BlockCache::next_file_id();
        let b = BlockCache::next_file_id();
        assert_ne!(a, b);
    }
}
