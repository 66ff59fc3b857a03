//! How the in-memory level and the second level (`l2/`) work together: blocks evicted
//! from memory are demoted to the second level, and blocks found there are promoted back.
//!
//! The memory level keys blocks by a per-process file id (`BlockCache::next_file_id`);
//! such ids restart with the process, so the second level, which outlives it, keys blocks
//! by each table's content identity instead (`TableReader`'s `l2_id`). Open files
//! register the pair here; a block of a file that is no longer open is not demoted (its
//! file was compacted away, so nothing will read it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;

use super::block_cache::{BlockCache, CacheKey, Priority};
use super::l2::{L2Cache, L2Key, L2Stats};
use super::sizing::CacheCharge;
use crate::error::Result;
use crate::table::block::Block;

/// The second level as the block cache drives it.
pub(super) struct SecondLevel {
    cache: Arc<L2Cache>,
    /// Open files: memory-level file id → second-level identity.
    ids: Mutex<HashMap<u64, u64>>,
    promotions: AtomicU64,
    demotions: AtomicU64,
}

impl SecondLevel {
    pub fn new(cache: Arc<L2Cache>) -> SecondLevel {
        SecondLevel {
            cache,
            ids: Mutex::new(HashMap::new()),
            promotions: AtomicU64::new(0),
            demotions: AtomicU64::new(0),
        }
    }

    /// A file opened: its blocks may be demoted under `l2_id`.
    pub fn register(&self, file_id: u64, l2_id: u64) {
        self.ids.lock().insert(file_id, l2_id);
    }

    /// A file closed.
    pub fn forget(&self, file_id: u64) {
        self.ids.lock().remove(&file_id);
    }

    /// Queues blocks evicted from memory for the second level (those of open files that
    /// it does not hold already). Called after the memory level released its locks.
    pub fn demote(&self, evicted: Vec<(CacheKey, Block)>) {
        if evicted.is_empty() {
            return;
        }
        let keys: Vec<Option<L2Key>> = {
            let ids = self.ids.lock();
            evicted
                .iter()
                .map(|((file, offset), _)| ids.get(file).map(|id| (*id, *offset)))
                .collect()
        };
        for (key, (_, block)) in keys.into_iter().zip(evicted) {
            let Some(key) = key else { continue };
            if !self.cache.contains(&key) && self.cache.offer(key, block.into_bytes()) {
                self.demotions.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    pub fn get(&self, key: &L2Key) -> Option<Bytes> {
        self.cache.get(key)
    }

    pub fn count_promotion(&self) {
        self.promotions.fetch_add(1, Ordering::Relaxed);
    }

    /// Waits until the demoted blocks queued so far are written.
    pub fn flush(&self) {
        self.cache.flush();
    }

    /// Persists the second level for the next open.
    pub fn close(&self) -> Result<()> {
        self.cache.close()
    }

    pub fn stats(&self) -> L2Stats {
        L2Stats {
            promotions: self.promotions.load(Ordering::Relaxed),
            demotions: self.demotions.load(Ordering::Relaxed),
            ..self.cache.stats()
        }
    }
}

/// The block cache's side of the two levels.
impl BlockCache {
    /// Charges a newly opened file as [`BlockCache::charge`] does, and registers its
    /// second-level identity `l2_id` (see the module comment) until the charge is dropped.
    pub fn open_file(
        self: &Arc<Self>,
        file_id: u64,
        l2_id: u64,
        index_bloom_bytes: u64,
        in_memory_bytes: u64,
    ) -> CacheCharge {
        if let Some(l2) = &self.l2 {
            l2.register(file_id, l2_id);
        }
        self.charge(index_bloom_bytes, in_memory_bytes)
            .for_file(file_id)
    }

    /// A file registered by `open_file` closed.
    pub(super) fn forget_file(&self, file_id: u64) {
        if let Some(l2) = &self.l2 {
            l2.forget(file_id);
        }
    }

    /// The second level's block for `key` (table identity, offset), if it has a valid one.
    pub fn get_l2(&self, key: &L2Key) -> Option<Bytes> {
        self.l2.as_ref().and_then(|l2| l2.get(key))
    }

    /// Puts a block found in the second level back into memory.
    pub fn promote(&self, key: CacheKey, block: Block, priority: Priority) {
        if let Some(l2) = &self.l2 {
            l2.count_promotion();
        }
        self.insert(key, block, priority);
    }

    /// Waits until the blocks demoted so far are written to the second level.
    pub fn flush_l2(&self) {
        if let Some(l2) = &self.l2 {
            l2.flush();
        }
    }

    /// Persists the second level so the next process serves its blocks again.
    pub fn close_l2(&self) -> Result<()> {
        self.l2.as_ref().map_or(Ok(()), SecondLevel::close)
    }
}
