//! A decoded block: its bytes plus the position of the restart array. Every accessor checks
//! bounds, so a damaged block yields a corruption error naming the file and block offset.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use super::prefix_index::PrefixIndex;
use crate::error::{Error, Result};
use crate::util::coding::Decoder;

/// One entry's header, decoded.
#[derive(Debug, Clone, Copy)]
pub(super) struct EntryHeader {
    pub shared: usize,
    /// Range of the key suffix stored in this entry.
    pub unshared: (usize, usize),
    /// Range of the value.
    pub value: (usize, usize),
}

/// A block ready to be iterated. Cloning is cheap (the bytes are shared).
#[derive(Debug, Clone)]
pub struct Block {
    data: Bytes,
    /// Start of the restart array = end of the entries.
    restarts_at: usize,
    num_restarts: usize,
    path: Arc<Path>,
    offset: u64,
    /// Search aid built when the block enters the cache (see [`PrefixIndex`]).
    prefix_index: Option<Arc<PrefixIndex>>,
}

impl Block {
    /// Parses the restart array of `data`, a block read from `offset` of `path`.
    pub fn new(data: Bytes, path: Arc<Path>, offset: u64) -> Result<Block> {
        let len = data.len();
        let count_at = len
            .checked_sub(4)
            .ok_or_else(|| Error::corruption(&*path, offset, "block shorter than its footer"))?;
        let mut d = Decoder::new(&data[count_at..]);
        let n = d.u32_le().unwrap_or(0) as usize;
        let restarts_at = n
            .checked_mul(4)
            .and_then(|bytes| count_at.checked_sub(bytes))
            .ok_or_else(|| Error::corruption(&*path, offset, "restart count too large"))?;
        if n == 0 && restarts_at != 0 {
            return Err(Error::corruption(
                &*path,
                offset,
                "entries without restarts",
            ));
        }
        Ok(Block {
            data,
            restarts_at,
            num_restarts: n,
            path,
            offset,
            prefix_index: None,
        })
    }

    /// Adds the restart-key prefix index (worth it for a block that will be searched many
    /// times, i.e. a cached one). Fails like a read would if a restart entry is damaged.
    pub fn with_prefix_index(mut self) -> Result<Block> {
        let keys = (0..self.num_restarts)
            .map(|i| self.restart_key(i))
            .collect::<Result<Vec<&[u8]>>>()?;
        let index = PrefixIndex::build(keys.into_iter());
        self.prefix_index = Some(Arc::new(index));
        Ok(self)
    }

    /// The prefix index, if built.
    pub(super) fn prefix_index(&self) -> Option<&PrefixIndex> {
        self.prefix_index.as_deref()
    }

    /// Bytes held in memory: the block plus its prefix index.
    pub fn memory_bytes(&self) -> usize {
        self.data.len() + self.prefix_index.as_ref().map_or(0, |p| p.memory_bytes())
    }

    /// Number of restart points.
    pub(super) fn num_restarts(&self) -> usize {
        self.num_restarts
    }

    /// End of the entry area.
    pub(super) fn entries_end(&self) -> usize {
        self.restarts_at
    }

    /// Offset of restart point `i` (< `num_restarts`), checked to lie inside the entries.
    pub(super) fn restart(&self, i: usize) -> Result<usize> {
        let at = self.restarts_at + 4 * i;
        let pos = self
            .data
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| self.corrupt("restart index out of range"))? as usize;
        if pos >= self.restarts_at {
            return Err(self.corrupt("restart offset past the entries"));
        }
        Ok(pos)
    }

    /// Decodes the entry header at `pos`, checking every length against the entry area.
    pub(super) fn entry_at(&self, pos: usize) -> Result<EntryHeader> {
        let area = &self.data[..self.restarts_at];
        let rest = area
            .get(pos..)
            .ok_or_else(|| self.corrupt("entry offset"))?;
        let mut d = Decoder::new(rest);
        let (shared, unshared, value_len) = match (d.varint(), d.varint(), d.varint()) {
            (Some(s), Some(u), Some(v)) => (s, u, v),
            _ => return Err(self.corrupt("truncated entry header")),
        };
        let key_start = pos + d.position();
        let range = |start: usize, len: u64| -> Option<(usize, usize)> {
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            (end <= area.len()).then_some((start, end))
        };
        let key = range(key_start, unshared).ok_or_else(|| self.corrupt("key overruns block"))?;
        let value = range(key.1, value_len).ok_or_else(|| self.corrupt("value overruns block"))?;
        Ok(EntryHeader {
            shared: usize::try_from(shared).map_err(|_| self.corrupt("shared length"))?,
            unshared: key,
            value,
        })
    }

    /// The full key stored at restart point `i` (its `shared` must be 0).
    pub(super) fn restart_key(&self, i: usize) -> Result<&[u8]> {
        let entry = self.entry_at(self.restart(i)?)?;
        if entry.shared != 0 {
            return Err(self.corrupt("restart entry shares a prefix"));
        }
        Ok(self.slice(entry.unshared))
    }

    /// Bytes in `range` (produced by [`Block::entry_at`], so always in bounds).
    pub(super) fn slice(&self, range: (usize, usize)) -> &[u8] {
        self.data.get(range.0..range.1).unwrap_or_default()
    }

    /// Bytes in `range` as a shared slice of the block (no copy).
    pub(super) fn slice_bytes(&self, range: (usize, usize)) -> Bytes {
        if range.0 <= range.1 && range.1 <= self.data.len() {
            self.data.slice(range.0..range.1)
        } else {
            Bytes::new()
        }
    }

    /// A corruption error for this block.
    pub(super) fn corrupt(&self, reason: &str) -> Error {
        Error::corruption(&*self.path, self.offset, format!("block: {reason}"))
    }

    /// The block's offset in its file (for error messages).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The block's bytes (what the second cache level stores: `Block::new` parses them
    /// again when they come back).
    pub fn into_bytes(self) -> Bytes {
        self.data
    }

    /// The block's raw size in bytes.
    #[cfg(test)]
    pub fn size(&self) -> usize {
        self.data.len()
    }
}
