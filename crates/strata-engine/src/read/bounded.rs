//! A cursor restricted to a row range: how a region reads a *reference* (a parent region's
//! SSTable after a split or merge) as if it held only the region's own rows.

use crate::error::Result;
use crate::iter::KvIter;
use crate::key;
use crate::manifest::RowRange;

/// Wraps a source so that it shows only keys of rows in `[start, end)`.
pub struct BoundedIter<I> {
    inner: I,
    /// Every key of a row `>= start` is `>=` this (the escaped start row).
    lower: Vec<u8>,
    /// Every key of a row `< end` is `<` this; `None` when unbounded.
    upper: Option<Vec<u8>>,
}

impl<I: KvIter> BoundedIter<I> {
    /// Restricts `inner` to the rows of `range`.
    pub fn new(inner: I, range: &RowRange) -> Self {
        BoundedIter {
            inner,
            lower: key::row_prefix(&range.start),
            upper: (!range.end.is_empty()).then(|| key::row_prefix(&range.end)),
        }
    }
}

impl<I: KvIter> KvIter for BoundedIter<I> {
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        // Seeking below the range lands on its first key instead.
        let target = if target < self.lower.as_slice() {
            self.lower.as_slice()
        } else {
            target
        };
        self.inner.seek(target)
    }

    fn seek_forward(&mut self, target: &[u8]) -> Result<()> {
        if target < self.lower.as_slice() {
            return self.seek(target);
        }
        self.inner.seek_forward(target)
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.inner.seek(&self.lower)
    }

    fn valid(&self) -> bool {
        self.inner.valid()
            && self
                .upper
                .as_ref()
                .is_none_or(|upper| self.inner.key() < upper.as_slice())
    }

    fn key(&self) -> &[u8] {
        self.inner.key()
    }

    fn value(&self) -> &[u8] {
        self.inner.value()
    }

    fn value_bytes(&self) -> bytes::Bytes {
        self.inner.value_bytes()
    }

    fn next(&mut self) -> Result<()> {
        self.inner.next()
    }

    fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>> {
        // Above the range, the answer is the range's last key: ask below its upper bound.
        let target = match &self.upper {
            Some(upper) if target > upper.as_slice() => upper.clone(),
            _ => target.to_vec(),
        };
        let found = self.inner.last_key_before(&target)?;
        Ok(found.filter(|k| k.as_slice() >= self.lower.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellType;
    use crate::memstore::Memstore;

    fn source(rows: &[&str]) -> std::sync::Arc<Memstore> {
        let m = Memstore::new();
        for (i, row) in rows.iter().enumerate() {
            let key = key::make_key(row.as_bytes(), b"q", 1, CellType::Put, i as u64 + 1);
            m.insert(key, bytes::Bytes::from_static(b"v"), i as u64 + 1);
        }
        m
    }

    fn rows_of(it: &mut dyn KvIter) -> Vec<String> {
        let mut out = Vec::new();
        while it.valid() {
            let row = key::parse_key(it.key()).map(|k| k.row).unwrap_or_default();
            out.push(String::from_utf8_lossy(&row).into_owned());
            it.next().unwrap();
        }
        out
    }

    #[test]
    fn iteration_seek_and_reverse_stay_inside_the_range() {
        let m = source(&["a", "b", "b\0", "c", "d", "e"]);
        let range = RowRange {
            start: b"b".to_vec(),
            end: b"d".to_vec(),
        };
        let mut it = BoundedIter::new(m.iter(), &range);
        it.seek_to_first().unwrap();
        assert_eq!(rows_of(&mut it), vec!["b", "b\0", "c"]);
        it.seek(&key::row_prefix(b"a")).unwrap();
        assert_eq!(rows_of(&mut it), vec!["b", "b\0", "c"]);
        it.seek(&key::row_prefix(b"c")).unwrap();
        assert_eq!(rows_of(&mut it), vec!["c"]);
        it.seek(&key::row_prefix(b"d")).unwrap();
        assert!(!it.valid());
        let last = it.last_key_before(&key::row_prefix(b"z")).unwrap().unwrap();
        assert_eq!(key::parse_key(&last).unwrap().row.as_slice(), b"c");
        assert!(it
            .last_key_before(&key::row_prefix(b"b"))
            .unwrap()
            .is_none());

        let open_end = RowRange {
            start: b"d".to_vec(),
            end: Vec::new(),
        };
        let mut it = BoundedIter::new(m.iter(), &open_end);
        it.seek_to_first().unwrap();
        assert_eq!(rows_of(&mut it), vec!["d", "e"]);
        let last = it.last_key_before(&key::row_prefix(b"z")).unwrap().unwrap();
        assert_eq!(key::parse_key(&last).unwrap().row.as_slice(), b"e");
    }
}
