//! The index block decoded once at open into flat arrays: keys in one buffer, handles beside
//! them. A point read binary-searches it with at most one cache miss per probe, instead of
//! following the block's restart array and decoding varints at every probe.

use std::path::Path;

use super::block::{Block, BlockIter};
use super::format::BlockHandle;
use crate::error::{Error, Result};

/// One index entry: where its key ends in the key buffer, and the data block it names.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key_end: usize,
    handle: BlockHandle,
}

/// A table's index: the exact last key of every data block, in order, with its handle.
#[derive(Debug, Default)]
pub struct DecodedIndex {
    keys: Vec<u8>,
    entries: Vec<Entry>,
}

impl DecodedIndex {
    /// Decodes every entry of the index `block`; a bad handle or key order is Corruption.
    pub fn decode(block: Block, path: &Path) -> Result<DecodedIndex> {
        let offset = block.offset();
        let mut iter = BlockIter::new(block);
        iter.seek_to_first()?;
        let mut index = DecodedIndex::default();
        while iter.valid() {
            let corrupt =
                |reason: &str| Error::corruption(path, offset, format!("index: {reason}"));
            let handle = BlockHandle::decode_varint(iter.value())
                .ok_or_else(|| corrupt("bad block handle"))?;
            if !index.is_empty() && iter.key() <= index.key(index.len() - 1) {
                return Err(corrupt("index keys out of order"));
            }
            index.keys.extend_from_slice(iter.key());
            index.entries.push(Entry {
                key_end: index.keys.len(),
                handle,
            });
            iter.advance()?;
        }
        Ok(index)
    }

    /// Number of data blocks.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True for a table without data blocks.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The last key of data block `i` (empty past the end).
    pub fn key(&self, i: usize) -> &[u8] {
        let start = i
            .checked_sub(1)
            .and_then(|p| self.entries.get(p))
            .map_or(0, |e| e.key_end);
        let end = self.entries.get(i).map_or(start, |e| e.key_end);
        self.keys.get(start..end).unwrap_or_default()
    }

    /// The handle of data block `i`.
    pub fn handle(&self, i: usize) -> Option<BlockHandle> {
        self.entries.get(i).map(|e| e.handle)
    }

    /// The first block whose last key is >= `target` (`len()` if none): the only block that
    /// can hold the first key >= `target`.
    pub fn lower_bound(&self, target: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.key(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Bytes held in memory.
    pub fn memory_bytes(&self) -> usize {
        self.keys.capacity() + self.entries.capacity() * std::mem::size_of::<Entry>()
    }
}
