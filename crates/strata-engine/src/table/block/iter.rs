//! A cursor over one block: binary search over the restart points, then a linear scan.

use super::reader::Block;
use crate::error::Result;

/// Iterates a [`Block`] in key order.
#[derive(Debug, Clone)]
pub struct BlockIter {
    block: Block,
    /// Offset of the current entry; `entries_end` when not positioned.
    current: usize,
    /// Offset of the entry after the current one.
    next: usize,
    key: Vec<u8>,
    value: (usize, usize),
}

impl BlockIter {
    /// An unpositioned iterator over `block`.
    pub fn new(block: Block) -> Self {
        let end = block.entries_end();
        BlockIter {
            block,
            current: end,
            next: end,
            key: Vec::new(),
            value: (0, 0),
        }
    }

    /// True while positioned at an entry.
    pub fn valid(&self) -> bool {
        self.current < self.block.entries_end()
    }

    /// The current key (only while valid).
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The current value (only while valid).
    pub fn value(&self) -> &[u8] {
        self.block.slice(self.value)
    }

    /// The current value as a shared slice of the block (only while valid).
    pub fn value_bytes(&self) -> bytes::Bytes {
        self.block.slice_bytes(self.value)
    }

    /// Positions at the first entry (unpositioned if the block is empty).
    pub fn seek_to_first(&mut self) -> Result<()> {
        self.start_at_restart(0)?;
        self.decode_next()
    }

    /// Moves to the next entry; past the last one the iterator becomes invalid.
    pub fn advance(&mut self) -> Result<()> {
        self.decode_next()
    }

    /// Positions at the first entry whose key is >= `target`.
    pub fn seek(&mut self, target: &[u8]) -> Result<()> {
        let below = self.restarts_below(target)?;
        self.start_at_restart(below.saturating_sub(1))?;
        self.decode_next()?;
        while self.valid() && self.key.as_slice() < target {
            self.decode_next()?;
        }
        Ok(())
    }

    /// The greatest key strictly less than `target`, if the block has one. Leaves the
    /// iterator positioned at the first key >= `target` (or invalid).
    pub fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>> {
        let below = self.restarts_below(target)?;
        if below == 0 {
            // The first key of the block is already >= target.
            self.invalidate();
            return Ok(None);
        }
        self.start_at_restart(below - 1)?;
        self.decode_next()?;
        let mut found = None;
        while self.valid() && self.key.as_slice() < target {
            found = Some(self.key.clone());
            self.decode_next()?;
        }
        Ok(found)
    }

    /// Number of restart points whose key is < `target` (binary search).
    fn restarts_below(&self, target: &[u8]) -> Result<usize> {
        let (mut lo, mut hi) = match self.block.prefix_index() {
            Some(index) => index.candidates(target),
            None => (0, self.block.num_restarts()),
        };
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.block.restart_key(mid)? < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Prepares to decode from restart point `i` (the next `decode_next` reads it).
    fn start_at_restart(&mut self, i: usize) -> Result<()> {
        self.key.clear();
        self.current = self.block.entries_end();
        self.next = if i < self.block.num_restarts() {
            self.block.restart(i)?
        } else {
            self.block.entries_end()
        };
        Ok(())
    }

    fn invalidate(&mut self) {
        self.current = self.block.entries_end();
        self.next = self.current;
    }

    /// Decodes the entry at `self.next` and makes it current.
    fn decode_next(&mut self) -> Result<()> {
        if self.next >= self.block.entries_end() {
            self.invalidate();
            return Ok(());
        }
        let entry = match self.block.entry_at(self.next) {
            Ok(e) => e,
            Err(e) => {
                self.invalidate();
                return Err(e);
            }
        };
        if entry.shared > self.key.len() {
            self.invalidate();
            return Err(self
                .block
                .corrupt("shared prefix longer than the previous key"));
        }
        self.key.truncate(entry.shared);
        self.key.extend_from_slice(self.block.slice(entry.unshared));
        self.value = entry.value;
        self.current = self.next;
        self.next = entry.value.1;
        Ok(())
    }
}
