//! The memstore: a concurrent sorted map of one store's unflushed cells, with exact size
//! accounting so the engine can flush at a threshold and bound total memory.

mod iter;
mod key;
pub mod limiter;

pub use iter::MemstoreIter;
use key::MemKey;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use crossbeam_skiplist::SkipMap;

/// Bytes charged per entry on top of key and value: the skiplist node, its tower, the
/// `Vec`/`Bytes` headers and the key's inline head. An estimate, but a fixed one, so accounting stays exact relative to
/// itself (adding then flushing an entry returns the counter to where it was).
pub const ENTRY_OVERHEAD: u64 = 112;

/// One store's in-memory sorted cells.
#[derive(Debug)]
pub struct Memstore {
    map: SkipMap<MemKey, Bytes>,
    size: AtomicU64,
    min_seq: AtomicU64,
    max_seq: AtomicU64,
}

impl Default for Memstore {
    fn default() -> Self {
        Memstore {
            map: SkipMap::new(),
            size: AtomicU64::new(0),
            min_seq: AtomicU64::new(u64::MAX),
            max_seq: AtomicU64::new(0),
        }
    }
}

impl Memstore {
    /// An empty memstore.
    pub fn new() -> Arc<Memstore> {
        Arc::new(Memstore::default())
    }

    /// Inserts one cell by internal key; returns the bytes charged for it.
    pub fn insert(&self, key: Vec<u8>, value: Bytes, seq: u64) -> u64 {
        let charge = key.len() as u64 + value.len() as u64 + ENTRY_OVERHEAD;
        self.map.insert(MemKey::new(key), value);
        self.size.fetch_add(charge, Ordering::AcqRel);
        self.min_seq.fetch_min(seq, Ordering::AcqRel);
        self.max_seq.fetch_max(seq, Ordering::AcqRel);
        charge
    }

    /// Removes the entry with exactly this internal key (a write whose WAL record failed);
    /// returns the bytes charged for it, 0 if it is not here.
    pub fn remove(&self, key: &[u8]) -> u64 {
        match self.map.remove(&MemKey::probe(key)) {
            Some(entry) => {
                let charge = key.len() as u64 + entry.value().len() as u64 + ENTRY_OVERHEAD;
                self.size.fetch_sub(charge, Ordering::AcqRel);
                charge
            }
            None => 0,
        }
    }

    /// Bytes charged for every entry.
    pub fn size(&self) -> u64 {
        self.size.load(Ordering::Acquire)
    }

    /// Number of entries.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Smallest sequence id inserted, if any: the WAL must keep every edit from it on.
    pub fn min_seq(&self) -> Option<u64> {
        let seq = self.min_seq.load(Ordering::Acquire);
        (seq != u64::MAX).then_some(seq)
    }

    /// Largest sequence id inserted (0 when empty).
    pub fn max_seq(&self) -> u64 {
        self.max_seq.load(Ordering::Acquire)
    }

    /// A cursor over the entries.
    pub fn iter(self: &Arc<Self>) -> MemstoreIter {
        MemstoreIter::new(Arc::clone(self), None)
    }

    /// A cursor over the entries below `upper` (a point read's row end): it never copies
    /// entries past what the read wants.
    pub fn iter_below(self: &Arc<Self>, upper: &[u8]) -> MemstoreIter {
        MemstoreIter::new(Arc::clone(self), Some(upper))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_and_seq_accounting() {
        let m = Memstore::new();
        assert_eq!(m.min_seq(), None);
        let c1 = m.insert(b"key".to_vec(), Bytes::from_static(b"value"), 9);
        let c2 = m.insert(b"k2".to_vec(), Bytes::new(), 4);
        assert_eq!(c1, 3 + 5 + ENTRY_OVERHEAD);
        assert_eq!(m.size(), c1 + c2);
        assert_eq!(m.min_seq(), Some(4));
        assert_eq!(m.max_seq(), 9);
        assert_eq!(m.len(), 2);
    }
}
