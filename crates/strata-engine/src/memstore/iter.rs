//! A cursor over a memstore that reads the skiplist a few entries at a time.

use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;

use super::{MemKey, Memstore};
use crate::error::Result;
use crate::iter::KvIter;

/// Entries copied by the first read after a seek: enough for a one-cell row and the key that
/// ends it, so a point read of one cell costs one skiplist search.
const FIRST_BATCH: usize = 2;
/// The same for a cursor bounded at a row's end: the bound ends the batch where the row ends,
/// so it can start larger (a row of ten columns in one batch), but not much larger: the
/// reader seeks past the old versions of a column after a few steps, and a row with many
/// versions would otherwise copy entries it then skips.
const FIRST_BOUNDED_BATCH: usize = 16;
/// Largest batch: each refill doubles the batch up to this.
const MAX_BATCH: usize = 64;

/// A [`KvIter`] over a memstore. crossbeam's entries borrow the map and cannot be stored beside
/// the `Arc` that keeps it alive, so the cursor copies entries out (keys by value, values by
/// reference count) and searches the skiplist again only when the copies run out.
///
/// Why batches: one search per `next` made a ten-column row cost eleven searches of a map of
/// millions of keys. A batch starts small after a seek (point reads stop after a row) and
/// doubles while the caller keeps stepping (scans, flushes).
///
/// Entries inserted after a batch was copied may be missed until the next refill. Readers never
/// need them: a write becomes visible (the region's read point passes it) only after it is in
/// the memstore, so a reader's read point was taken before any entry it could miss.
pub struct MemstoreIter {
    memstore: Arc<Memstore>,
    /// Keys at or above this are never shown (`None`: unbounded).
    upper: Option<MemKey>,
    batch: Vec<(Vec<u8>, Bytes)>,
    /// Index of the current entry in `batch`; `batch.len()` when exhausted.
    at: usize,
    /// How many entries the next refill copies.
    next_batch: usize,
    /// The last fill of a bounded cursor reached its bound: nothing is left to search for.
    complete: bool,
}

impl MemstoreIter {
    pub(super) fn new(memstore: Arc<Memstore>, upper: Option<&[u8]>) -> Self {
        MemstoreIter {
            memstore,
            upper: upper.map(MemKey::probe),
            batch: Vec::new(),
            at: 0,
            next_batch: FIRST_BATCH,
            complete: false,
        }
    }

    /// Copies up to `next_batch` entries from `bound` on.
    fn fill(&mut self, bound: Bound<&[u8]>) {
        self.batch.clear();
        self.at = 0;
        let probe = bound.map(MemKey::probe);
        let upper = self
            .upper
            .as_ref()
            .map_or(Bound::Unbounded, Bound::Excluded);
        let entries = self.memstore.map.range((probe.as_ref(), upper));
        self.batch.extend(
            entries
                .take(self.next_batch)
                .map(|e| (e.key().bytes().to_vec(), e.value().clone())),
        );
        self.complete = self.upper.is_some() && self.batch.len() < self.next_batch;
    }

    fn position(&mut self, bound: Bound<&[u8]>) {
        self.next_batch = if self.upper.is_some() {
            FIRST_BOUNDED_BATCH
        } else {
            FIRST_BATCH
        };
        self.fill(bound);
    }

    fn current(&self) -> Option<&(Vec<u8>, Bytes)> {
        self.batch.get(self.at)
    }
}

impl KvIter for MemstoreIter {
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.position(Bound::Included(target));
        Ok(())
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.position(Bound::Unbounded);
        Ok(())
    }

    fn valid(&self) -> bool {
        self.at < self.batch.len()
    }

    fn key(&self) -> &[u8] {
        self.current().map_or(&[], |(k, _)| k)
    }

    fn value(&self) -> &[u8] {
        self.current().map_or(&[], |(_, v)| v)
    }

    fn value_bytes(&self) -> Bytes {
        self.current().map_or_else(Bytes::new, |(_, v)| v.clone())
    }

    fn next(&mut self) -> Result<()> {
        if self.at + 1 < self.batch.len() {
            self.at += 1;
            return Ok(());
        }
        // The last copied entry: continue after it with a larger batch. An unbounded batch
        // shorter than asked for reached the end of the map then; searching again still finds
        // what came since, as a fresh search would. A bounded one (a point read) skips that
        // search, which would only find writes its read point cannot see.
        if self.complete {
            self.at = self.batch.len();
            return Ok(());
        }
        if let Some((last, _)) = self.batch.pop() {
            self.next_batch = (self.next_batch * 2).min(MAX_BATCH);
            self.fill(Bound::Excluded(&last));
        }
        Ok(())
    }

    fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self
            .memstore
            .map
            .upper_bound(Bound::Excluded(&MemKey::probe(target)))
            .map(|e| e.key().bytes().to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memstore_of(keys: impl IntoIterator<Item = Vec<u8>>) -> Arc<Memstore> {
        let m = Memstore::new();
        for k in keys {
            m.insert(k.clone(), Bytes::from(k), 7);
        }
        m
    }

    fn rest(it: &mut MemstoreIter) -> Vec<Vec<u8>> {
        let mut seen = Vec::new();
        while it.valid() {
            assert_eq!(it.value(), it.key(), "value follows its key");
            seen.push(it.key().to_vec());
            it.next().unwrap();
        }
        seen
    }

    #[test]
    fn iterates_in_key_order_and_seeks() {
        let m = memstore_of([b"c".to_vec(), b"a".to_vec(), b"b".to_vec()]);
        let mut it = m.iter();
        it.seek_to_first().unwrap();
        assert_eq!(
            rest(&mut it),
            vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]
        );
        it.seek(b"bb").unwrap();
        assert_eq!(it.key(), b"c");
        assert_eq!(it.last_key_before(b"b").unwrap(), Some(b"a".to_vec()));
        assert_eq!(it.last_key_before(b"a").unwrap(), None);
    }

    #[test]
    fn walks_many_batches_without_losing_or_repeating_keys() {
        let keys: Vec<Vec<u8>> = (0..500u32).map(|i| i.to_be_bytes().to_vec()).collect();
        let m = memstore_of(keys.iter().rev().cloned());
        let mut it = m.iter();
        it.seek_to_first().unwrap();
        assert_eq!(rest(&mut it), keys);
        // A seek in the middle of a long walk starts over from the target.
        it.seek(&300u32.to_be_bytes()).unwrap();
        assert_eq!(rest(&mut it), keys[300..].to_vec());
    }

    #[test]
    fn finds_keys_inserted_after_the_end_was_reached() {
        let m = memstore_of([b"a".to_vec()]);
        let mut it = m.iter();
        it.seek_to_first().unwrap();
        m.insert(b"b".to_vec(), Bytes::from_static(b"b"), 8);
        // The batch copied before the insert ends at "a"; the refill after it sees "b".
        assert_eq!(rest(&mut it), vec![b"a".to_vec(), b"b".to_vec()]);
    }

    #[test]
    fn an_upper_bound_hides_the_keys_at_and_above_it() {
        let keys: Vec<Vec<u8>> = (0..200u32).map(|i| i.to_be_bytes().to_vec()).collect();
        let m = memstore_of(keys.iter().cloned());
        let mut it = m.iter_below(&150u32.to_be_bytes());
        it.seek(&10u32.to_be_bytes()).unwrap();
        assert_eq!(rest(&mut it), keys[10..150].to_vec());
        it.seek(&150u32.to_be_bytes()).unwrap();
        assert!(!it.valid());
        // Lookups backwards are not bounded.
        assert_eq!(
            it.last_key_before(&199u32.to_be_bytes()).unwrap(),
            Some(198u32.to_be_bytes().to_vec())
        );
    }

    #[test]
    fn an_empty_memstore_is_never_valid() {
        let m = Memstore::new();
        let mut it = m.iter();
        it.seek_to_first().unwrap();
        assert!(!it.valid());
        it.next().unwrap();
        assert!(!it.valid());
        assert_eq!(it.key(), b"");
    }
}
