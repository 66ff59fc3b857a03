//! Merges several sorted sources (memstores and SSTables) into one sorted stream.
//!
//! A store has few sources (the memstore, maybe a flushing snapshot, and at most the
//! blocking-file count of SSTables), so the smallest current key is found with a linear pass
//! rather than a heap: simpler, and as fast for a handful of sources.

use crate::error::Result;
use crate::iter::KvIter;

/// A [`KvIter`] over the union of its sources. Equal keys from different sources are all
/// yielded (the reader treats an identical key as the same cell).
pub struct MergingIter {
    sources: Vec<Box<dyn KvIter>>,
    current: Option<usize>,
}

impl MergingIter {
    /// Merges `sources`; call a seek before reading.
    pub fn new(sources: Vec<Box<dyn KvIter>>) -> Self {
        MergingIter {
            sources,
            current: None,
        }
    }

    fn pick_smallest(&mut self) {
        let mut best: Option<usize> = None;
        for (i, source) in self.sources.iter().enumerate() {
            if !source.valid() {
                continue;
            }
            best = match best {
                Some(b) if self.sources[b].key() <= source.key() => Some(b),
                _ => Some(i),
            };
        }
        self.current = best;
    }
}

impl KvIter for MergingIter {
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        for source in &mut self.sources {
            source.seek(target)?;
        }
        self.pick_smallest();
        Ok(())
    }

    /// Why: skipping a column with many versions seeks past them, and every SSTable source
    /// searched its block index again even when it was already beyond the target.
    fn seek_forward(&mut self, target: &[u8]) -> Result<()> {
        for source in &mut self.sources {
            // A source that is exhausted, or at or past the target, has no key below the target
            // that the pass has not shown yet: it was positioned by an earlier seek to a key
            // at most the merged position, which is below the target.
            if source.valid() && source.key() < target {
                source.seek_forward(target)?;
            }
        }
        self.pick_smallest();
        Ok(())
    }

    fn seek_to_first(&mut self) -> Result<()> {
        for source in &mut self.sources {
            source.seek_to_first()?;
        }
        self.pick_smallest();
        Ok(())
    }

    fn valid(&self) -> bool {
        self.current.is_some()
    }

    fn key(&self) -> &[u8] {
        self.current.map_or(&[], |i| self.sources[i].key())
    }

    fn value(&self) -> &[u8] {
        self.current.map_or(&[], |i| self.sources[i].value())
    }

    fn value_bytes(&self) -> bytes::Bytes {
        self.current
            .map_or_else(bytes::Bytes::new, |i| self.sources[i].value_bytes())
    }

    fn next(&mut self) -> Result<()> {
        if let Some(i) = self.current {
            self.sources[i].next()?;
            self.pick_smallest();
        }
        Ok(())
    }

    fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut best: Option<Vec<u8>> = None;
        for source in &mut self.sources {
            if let Some(key) = source.last_key_before(target)? {
                if best.as_ref().is_none_or(|b| key > *b) {
                    best = Some(key);
                }
            }
        }
        self.current = None;
        Ok(best)
    }
}

/// A [`KvIter`] over a sorted in-memory vector, for tests.
#[cfg(test)]
pub struct VecIter {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    pos: usize,
}

#[cfg(test)]
impl VecIter {
    /// Iterates `entries`, which must be sorted by key.
    pub fn new(entries: Vec<(Vec<u8>, Vec<u8>)>) -> Self {
        let pos = entries.len();
        VecIter { entries, pos }
    }
}

#[cfg(test)]
impl KvIter for VecIter {
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.pos = self.entries.partition_point(|(k, _)| k.as_slice() < target);
        Ok(())
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.pos = 0;
        Ok(())
    }

    fn valid(&self) -> bool {
        self.pos < self.entries.len()
    }

    fn key(&self) -> &[u8] {
        self.entries.get(self.pos).map_or(&[], |(k, _)| k)
    }

    fn value(&self) -> &[u8] {
        self.entries.get(self.pos).map_or(&[], |(_, v)| v)
    }

    fn next(&mut self) -> Result<()> {
        self.pos = (self.pos + 1).min(self.entries.len());
        Ok(())
    }

    fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>> {
        let idx = self.entries.partition_point(|(k, _)| k.as_slice() < target);
        Ok(idx
            .checked_sub(1)
            .and_then(|i| self.entries.get(i))
            .map(|(k, _)| k.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(keys: &[&str]) -> Box<dyn KvIter> {
        Box::new(VecIter::new(
            keys.iter()
                .map(|k| (k.as_bytes().to_vec(), k.as_bytes().to_vec()))
                .collect(),
        ))
    }

    fn drain(it: &mut MergingIter) -> Vec<String> {
        let mut out = Vec::new();
        while it.valid() {
            out.push(String::from_utf8(it.key().to_vec()).unwrap());
            it.next().unwrap();
        }
        out
    }

    #[test]
    fn merges_sorted_and_seeks() {
        let mut it = MergingIter::new(vec![src(&["a", "d", "f"]), src(&["b", "c", "g"]), src(&[])]);
        it.seek_to_first().unwrap();
        assert_eq!(drain(&mut it), vec!["a", "b", "c", "d", "f", "g"]);
        it.seek(b"cc").unwrap();
        assert_eq!(drain(&mut it), vec!["d", "f", "g"]);
    }

    /// Counts the seeks of a source.
    struct Counting {
        inner: VecIter,
        seeks: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl KvIter for Counting {
        fn seek(&mut self, target: &[u8]) -> Result<()> {
            self.seeks
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.seek(target)
        }
        fn seek_to_first(&mut self) -> Result<()> {
            self.inner.seek_to_first()
        }
        fn valid(&self) -> bool {
            self.inner.valid()
        }
        fn key(&self) -> &[u8] {
            self.inner.key()
        }
        fn value(&self) -> &[u8] {
            self.inner.value()
        }
        fn next(&mut self) -> Result<()> {
            self.inner.next()
        }
        fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>> {
            self.inner.last_key_before(target)
        }
    }

    #[test]
    fn seek_forward_leaves_sources_already_past_the_target_and_yields_what_seek_does() {
        let keys = |ks: &[&str]| -> Vec<(Vec<u8>, Vec<u8>)> {
            ks.iter()
                .map(|k| (k.as_bytes().to_vec(), Vec::new()))
                .collect()
        };
        let seeks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let far = Counting {
            inner: VecIter::new(keys(&["m", "n"])),
            seeks: seeks.clone(),
        };
        let mut it = MergingIter::new(vec![src(&["a", "b", "c", "x"]), Box::new(far)]);
        it.seek(b"a").unwrap();
        assert_eq!(seeks.load(std::sync::atomic::Ordering::Relaxed), 1);
        it.seek_forward(b"c").unwrap();
        assert_eq!(
            seeks.load(std::sync::atomic::Ordering::Relaxed),
            1,
            "already at m"
        );
        assert_eq!(drain(&mut it), vec!["c", "m", "n", "x"]);
        it.seek(b"a").unwrap();
        it.seek_forward(b"n").unwrap();
        assert_eq!(
            seeks.load(std::sync::atomic::Ordering::Relaxed),
            3,
            "m is below n"
        );
        assert_eq!(drain(&mut it), vec!["n", "x"]);
    }

    #[test]
    fn last_key_before_takes_the_max_over_sources() {
        let mut it = MergingIter::new(vec![src(&["a", "d"]), src(&["b", "c"])]);
        assert_eq!(it.last_key_before(b"d").unwrap(), Some(b"c".to_vec()));
        assert_eq!(it.last_key_before(b"zz").unwrap(), Some(b"d".to_vec()));
        assert_eq!(it.last_key_before(b"a").unwrap(), None);
    }
}
