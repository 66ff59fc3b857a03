//! The row cache: answers to point reads of hot rows, for the families that ask for it
//! (`FamilyOptions::row_cache`, the shell's `ROW_CACHE`). Hypertable calls it the query
//! cache: it serves the repeated reads of a skewed (Zipfian) workload without merging
//! memstores and files again. Every write to a row drops the row's answers.
//!
//! One cache per process, bounded by `EngineOptions::row_cache_bytes` (0: off). Entries are
//! rows (a region incarnation and a row key), each holding the answers of up to
//! [`MAX_ANSWERS_PER_ROW`] distinct queries (columns, versions, time range): an answer is
//! served only to the very query it answers, so column selections, version counts and
//! time ranges never get another query's cells (and filters run over the answer, as they
//! do over a read). It is never stale: the write fences (`fences.rs`) keep a read racing a
//! write from caching what it read; an answer remembers the store views it was read from
//! (a flush or compaction makes it unusable), the region's family-settings epoch (an alter
//! moves it on) and when its first TTL'd cell expires; a region opened again gets a new
//! incarnation, so nothing cached before applies after.
//!
//! Eviction is `quick_cache`'s (already the block cache's): byte-weighted, sharded,
//! scan resistant.

mod answer;
mod doorkeeper;
mod fences;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use quick_cache::sync::Cache;
use quick_cache::{Lifecycle, Weighter};

pub use answer::{Answer, RowKey};
pub use fences::ReadTicket;

use crate::api::{Get, RowResult};
use doorkeeper::Doorkeeper;
use fences::Fences;

/// Distinct queries kept per row; a new one replaces the oldest.
pub const MAX_ANSWERS_PER_ROW: usize = 4;

/// Bookkeeping per cached row, beyond its answers.
const ROW_OVERHEAD: u64 = 96;

/// A cached row's answers, newest first.
#[derive(Debug, Clone, Default)]
struct CachedRow {
    answers: Vec<Arc<Answer>>,
}

#[derive(Debug, Clone, Copy)]
struct RowWeighter;

impl Weighter<RowKey, Arc<CachedRow>> for RowWeighter {
    fn weight(&self, key: &RowKey, row: &Arc<CachedRow>) -> u64 {
        let answers: u64 = row.answers.iter().map(|a| a.weight()).sum();
        ROW_OVERHEAD + key.row.len() as u64 + answers
    }
}

#[derive(Debug, Clone)]
struct CountEvictions(Arc<AtomicU64>);

impl Lifecycle<RowKey, Arc<CachedRow>> for CountEvictions {
    type RequestState = ();

    fn on_evict(&self, _state: &mut (), _key: RowKey, _row: Arc<CachedRow>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

type Rows =
    Cache<RowKey, Arc<CachedRow>, RowWeighter, quick_cache::DefaultHashBuilder, CountEvictions>;

/// Rows of this size are typical; it only sizes the hash tables up front.
const TYPICAL_ROW: u64 = 512;

/// Counters and sizes, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct RowCacheStats {
    /// Reads answered from the cache.
    pub hits: u64,
    /// Reads of row-cache families the cache could not answer.
    pub misses: u64,
    /// Answers added.
    pub inserts: u64,
    /// Rows pushed out to make room.
    pub evictions: u64,
    /// Cached rows dropped because a write changed them.
    pub invalidations: u64,
    /// Answers not cached because a write of their row began while they were read.
    pub stale_refused: u64,
    /// Bytes held (answers and bookkeeping).
    pub size_bytes: u64,
    pub capacity_bytes: u64,
    /// Rows held.
    pub entries: u64,
}

/// Source of region incarnations.
static NEXT_REGION_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh region incarnation: what a region's rows are cached under while it is open.
pub fn next_region_id() -> u64 {
    NEXT_REGION_ID.fetch_add(1, Ordering::Relaxed)
}

/// The process's row cache.
pub struct RowCache {
    /// `None` when the capacity is 0.
    rows: Option<Rows>,
    /// Rows are cached on their second miss only (`doorkeeper.rs`).
    doorkeeper: Doorkeeper,
    fences: Fences,
    capacity: u64,
    hits: AtomicU64,
    misses: AtomicU64,
    inserts: AtomicU64,
    evictions: Arc<AtomicU64>,
    invalidations: AtomicU64,
    stale_refused: AtomicU64,
}

impl std::fmt::Debug for RowCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowCache")
            .field("stats", &self.stats())
            .finish()
    }
}

impl RowCache {
    /// A cache of `capacity_bytes`; 0 turns it off (every family reads through).
    pub fn new(capacity_bytes: u64) -> Arc<RowCache> {
        let evictions = Arc::new(AtomicU64::new(0));
        let typical_rows = capacity_bytes / TYPICAL_ROW;
        let rows = (capacity_bytes > 0).then(|| {
            let items = usize::try_from(typical_rows).unwrap_or(usize::MAX);
            Cache::with(
                items.max(16),
                capacity_bytes,
                RowWeighter,
                quick_cache::DefaultHashBuilder::default(),
                CountEvictions(Arc::clone(&evictions)),
            )
        });
        Arc::new(RowCache {
            rows,
            doorkeeper: Doorkeeper::new(typical_rows),
            fences: Fences::new(),
            capacity: capacity_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            inserts: AtomicU64::new(0),
            evictions,
            invalidations: AtomicU64::new(0),
            stale_refused: AtomicU64::new(0),
        })
    }

    /// True when the cache has room for anything.
    pub fn is_enabled(&self) -> bool {
        self.rows.is_some()
    }

    /// Fences the rows a write is about to change (see `fences.rs`); dropping the fence,
    /// once the write is visible or abandoned, drops the rows' answers. `None` when the
    /// cache is off.
    pub fn fence_write<'a>(
        self: &Arc<Self>,
        region: u64,
        rows: impl IntoIterator<Item = &'a Bytes>,
    ) -> Option<WriteFence> {
        self.rows.as_ref()?;
        let mut fenced: Vec<(usize, RowKey)> = Vec::new();
        for row in rows {
            if fenced.iter().any(|(_, k)| k.row == *row) {
                continue;
            }
            let key = RowKey {
                region,
                row: row.clone(),
            };
            let shard = self.fences.shard_of(&key);
            self.fences.enter(shard);
            fenced.push((shard, key));
        }
        Some(WriteFence {
            cache: Arc::clone(self),
            rows: fenced,
        })
    }

    /// A ticket for a read of `key`, or `None` when the read must bypass the cache (the
    /// cache is off, or a write of the row's shard is in flight).
    pub fn start_read(&self, key: &RowKey) -> Option<ReadTicket> {
        self.rows.as_ref()?;
        self.fences.start_read(key)
    }

    /// The cached answer to `get` under `sources` (the region's family-settings epoch and
    /// its store views' ids) at `now_ms`, if there is one: `Some(None)` is a cached
    /// "nothing visible". Counts a hit or a miss.
    pub fn lookup(
        &self,
        key: &RowKey,
        get: &Get,
        sources: (u64, &[u64]),
        now_ms: i64,
    ) -> Option<Option<RowResult>> {
        let found = self.rows.as_ref().and_then(|rows| {
            let row = rows.get(key)?;
            let answer = row
                .answers
                .iter()
                .find(|a| a.serves(get, sources, now_ms))?;
            Some(answer.result.clone())
        });
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// True when a row that just missed should be read into the cache: it missed before,
    /// recently (`doorkeeper.rs`). A caller told no skips building the answer.
    pub fn admits(&self, key: &RowKey) -> bool {
        self.doorkeeper.admits(key)
    }

    /// Caches `answer` for `key` if no write of the row began since `ticket` was taken;
    /// returns whether it did.
    pub fn insert(&self, ticket: ReadTicket, key: RowKey, answer: Answer) -> bool {
        let Some(rows) = &self.rows else {
            return false;
        };
        let answer = Arc::new(answer);
        let inserted = self.fences.if_unwritten(ticket, || {
            let mut answers = vec![Arc::clone(&answer)];
            if let Some(cached) = rows.get(&key) {
                let others = cached
                    .answers
                    .iter()
                    .filter(|a| a.query != answer.query)
                    .take(MAX_ANSWERS_PER_ROW - 1);
                answers.extend(others.cloned());
            }
            rows.insert(key, Arc::new(CachedRow { answers }));
        });
        let counter = if inserted {
            &self.inserts
        } else {
            &self.stale_refused
        };
        counter.fetch_add(1, Ordering::Relaxed);
        inserted
    }

    /// Drops every row of region incarnation `region` (it closed): they would never be
    /// read again, only wait for eviction. Walks the whole cache, so only for closes.
    pub fn forget_region(&self, region: u64) {
        if let Some(rows) = &self.rows {
            rows.retain(|key, _| key.region != region);
        }
    }

    pub fn stats(&self) -> RowCacheStats {
        let (size_bytes, entries) = self
            .rows
            .as_ref()
            .map_or((0, 0), |rows| (rows.weight(), rows.len() as u64));
        RowCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            inserts: self.inserts.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            invalidations: self.invalidations.load(Ordering::Relaxed),
            stale_refused: self.stale_refused.load(Ordering::Relaxed),
            size_bytes,
            capacity_bytes: self.capacity,
            entries,
        }
    }

    /// Drops `key`'s answers as its write leaves the fence.
    fn forget_row(&self, shard: usize, key: &RowKey) {
        let Some(rows) = &self.rows else { return };
        self.fences.leave(shard, || {
            if rows.remove(key).is_some() {
                self.invalidations.fetch_add(1, Ordering::Relaxed);
            }
        });
    }
}

/// The fence of one write (see [`RowCache::fence_write`]).
#[must_use = "the fence must live until the write is visible"]
pub struct WriteFence {
    cache: Arc<RowCache>,
    rows: Vec<(usize, RowKey)>,
}

impl Drop for WriteFence {
    fn drop(&mut self) {
        for (shard, key) in &self.rows {
            self.cache.forget_row(*shard, key);
        }
    }
}

#[cfg(test)]
mod tests;
