//! Where entries go in the cache file: a ring over the entry area, written in order and
//! wrapping around, so the oldest entries are the ones overwritten (FIFO, like the regions
//! of flash caches: a write never needs a free-space search, and one writer never
//! fragments the file). The in-memory index maps each key to its slot; `by_pos` finds the
//! entries a new write overlaps.

use std::collections::{BTreeMap, HashMap};

use super::format::{Index, L2Key, Slot};

/// The index and the write position of a cache file's entry area `[start, end)`.
#[derive(Debug)]
pub struct Ring {
    start: u64,
    end: u64,
    /// Where the next entry goes (unless it does not fit before `end`).
    head: u64,
    slots: HashMap<L2Key, Slot>,
    by_pos: BTreeMap<u64, L2Key>,
    /// Bytes of all indexed entries (headers included).
    used: u64,
}

impl Ring {
    /// An empty ring over `[start, end)`.
    pub fn new(start: u64, end: u64) -> Ring {
        Ring {
            start,
            end,
            head: start,
            slots: HashMap::new(),
            by_pos: BTreeMap::new(),
            used: 0,
        }
    }

    /// A ring holding a persisted index's entries. An entry that overlaps one already
    /// taken, or repeats a key, is left out (a well-formed index has neither).
    pub fn restore(start: u64, end: u64, index: Index) -> Ring {
        let mut ring = Ring::new(start, end);
        ring.head = index.head.clamp(start, end);
        let mut entries = index.entries;
        entries.sort_by_key(|(_, slot)| slot.pos);
        let mut taken_to = start;
        for (key, slot) in entries {
            let fits = slot.pos >= taken_to && slot.pos + slot.entry_len() <= end;
            if fits && !ring.slots.contains_key(&key) {
                taken_to = slot.pos + slot.entry_len();
                ring.insert(key, slot);
            }
        }
        ring
    }

    /// What a clean close persists.
    pub fn index(&self) -> Index {
        Index {
            head: self.head,
            entries: self.slots.iter().map(|(k, s)| (*k, *s)).collect(),
        }
    }

    pub fn get(&self, key: &L2Key) -> Option<Slot> {
        self.slots.get(key).copied()
    }

    /// Reserves `len` bytes at the write position, wrapping to the start when they do not
    /// fit before the end; returns their position and the keys of the entries they
    /// overwrite (dropped from the index now, before the bytes change). `None` when `len`
    /// exceeds the whole area.
    pub fn allocate(&mut self, len: u64) -> Option<(u64, Vec<L2Key>)> {
        if len > self.end - self.start {
            return None;
        }
        if self.head + len > self.end {
            self.head = self.start;
        }
        let (from, to) = (self.head, self.head + len);
        let mut evicted = Vec::new();
        // The entry starting before `from` may reach into the range.
        if let Some((&pos, key)) = self.by_pos.range(..from).next_back() {
            let overlaps = self
                .slots
                .get(key)
                .is_some_and(|s| pos + s.entry_len() > from);
            if overlaps {
                evicted.push(*key);
            }
        }
        evicted.extend(self.by_pos.range(from..to).map(|(_, key)| *key));
        for key in &evicted {
            self.remove(key);
        }
        self.head = to;
        Some((from, evicted))
    }

    /// Indexes an entry written at `slot` (replacing any other entry for `key`).
    pub fn insert(&mut self, key: L2Key, slot: Slot) {
        self.remove(&key);
        self.used += slot.entry_len();
        self.by_pos.insert(slot.pos, key);
        self.slots.insert(key, slot);
    }

    /// Drops `key`'s entry if it is still the one at `pos`; true if it was.
    pub fn remove_at(&mut self, key: &L2Key, pos: u64) -> bool {
        if self.slots.get(key).is_some_and(|s| s.pos == pos) {
            self.remove(key);
            return true;
        }
        false
    }

    fn remove(&mut self, key: &L2Key) -> Option<Slot> {
        let slot = self.slots.remove(key)?;
        self.by_pos.remove(&slot.pos);
        self.used -= slot.entry_len();
        Some(slot)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Bytes of the indexed entries, headers included.
    pub fn used(&self) -> u64 {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::l2::format::ENTRY_HEADER_LEN;

    fn slot(pos: u64, len: u32) -> Slot {
        Slot { pos, len, crc: 7 }
    }

    /// Allocates and indexes an entry of `len` body bytes for `key`.
    fn put(ring: &mut Ring, key: L2Key, len: u32) -> (u64, Vec<L2Key>) {
        let (pos, evicted) = ring
            .allocate(ENTRY_HEADER_LEN as u64 + u64::from(len))
            .unwrap();
        ring.insert(key, slot(pos, len));
        (pos, evicted)
    }

    #[test]
    fn entries_are_written_in_order_and_the_oldest_are_overwritten() {
        // Room for three entries of 68 bytes (36 body + 32 header) in 210 bytes.
        let mut ring = Ring::new(10, 220);
        assert_eq!(put(&mut ring, (1, 0), 36), (10, vec![]));
        assert_eq!(put(&mut ring, (1, 1), 36), (78, vec![]));
        assert_eq!(put(&mut ring, (1, 2), 36), (146, vec![]));
        assert_eq!(ring.len(), 3);
        assert_eq!(ring.used(), 3 * 68);
        // The fourth does not fit before the end: it wraps and overwrites the first.
        assert_eq!(put(&mut ring, (1, 3), 36), (10, vec![(1, 0)]));
        assert_eq!(ring.get(&(1, 0)), None);
        assert_eq!(ring.get(&(1, 1)), Some(slot(78, 36)));
        // A larger one overwrites the two entries it overlaps, including one it only
        // partly covers.
        let (pos, mut evicted) = put(&mut ring, (2, 0), 60);
        evicted.sort_unstable();
        assert_eq!((pos, evicted), (78, vec![(1, 1), (1, 2)]));
        assert_eq!(ring.len(), 2);
        assert_eq!(ring.used(), 68 + 92);
    }

    #[test]
    fn an_entry_larger_than_the_area_is_refused() {
        let mut ring = Ring::new(0, 100);
        assert!(ring.allocate(101).is_none());
        assert!(ring.allocate(100).is_some());
    }

    #[test]
    fn removal_checks_the_position_and_restore_drops_overlaps() {
        let mut ring = Ring::new(0, 1000);
        put(&mut ring, (1, 0), 10);
        assert!(!ring.remove_at(&(1, 0), 5), "another position: kept");
        assert!(ring.remove_at(&(1, 0), 0));
        assert_eq!(ring.len(), 0);
        let index = Index {
            head: 300,
            entries: vec![
                ((1, 0), slot(100, 68)),
                ((1, 1), slot(150, 10)), // overlaps the first
                ((1, 2), slot(200, 10)),
                ((1, 3), slot(990, 10)), // runs past the end
            ],
        };
        let ring = Ring::restore(0, 1000, index);
        assert_eq!(ring.len(), 2);
        assert!(ring.get(&(1, 0)).is_some() && ring.get(&(1, 2)).is_some());
        assert_eq!(ring.index().head, 300);
    }
}
