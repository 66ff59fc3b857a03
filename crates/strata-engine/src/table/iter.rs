//! The two-level table iterator: the decoded index picks the data block, a cursor over that
//! block yields the entries.

use std::sync::Arc;

use super::block::BlockIter;
use super::reader::TableReader;
use crate::error::Result;
use crate::iter::KvIter;

/// Iterates one table in key order. Created by [`TableReader::iter`].
pub struct TableIter {
    table: Arc<TableReader>,
    /// Index position of the current data block.
    block: usize,
    /// The data block at `block`; `None` when unpositioned.
    data: Option<BlockIter>,
    /// Insert blocks read from disk into the block cache (off for compaction reads).
    fill_cache: bool,
}

// A table's iterators are made here rather than in `reader.rs`: the reader serves blocks
// and knows nothing of how they are walked.
impl TableReader {
    /// A new iterator over the table.
    pub fn iter(self: &Arc<Self>) -> TableIter {
        TableIter::new(Arc::clone(self), true)
    }

    /// An iterator that uses cached blocks but does not add the blocks it reads to the
    /// cache: for compactions, whose one-off reads would otherwise evict blocks that point
    /// reads keep using.
    pub fn iter_without_cache_fill(self: &Arc<Self>) -> TableIter {
        TableIter::new(Arc::clone(self), false)
    }
}

impl TableIter {
    fn new(table: Arc<TableReader>, fill_cache: bool) -> Self {
        TableIter {
            table,
            block: 0,
            data: None,
            fill_cache,
        }
    }

    /// Opens data block `i` (or clears `data` past the last block).
    fn open_data_block(&mut self, i: usize) -> Result<()> {
        self.block = i;
        self.data = None;
        if let Some(handle) = self.table.index().handle(i) {
            self.data = Some(BlockIter::new(
                self.table.data_block(handle, self.fill_cache)?,
            ));
        }
        Ok(())
    }

    /// Moves to later blocks while the current one is exhausted.
    fn skip_exhausted_blocks(&mut self) -> Result<()> {
        while self.data.as_ref().is_some_and(|d| !d.valid()) {
            self.open_data_block(self.block + 1)?;
            if let Some(data) = &mut self.data {
                data.seek_to_first()?;
            }
        }
        Ok(())
    }

    /// Runs `f`, and on error leaves the iterator unpositioned rather than half-moved.
    fn guarded(&mut self, f: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        let result = f(self);
        if result.is_err() {
            self.data = None;
        }
        result
    }
}

impl KvIter for TableIter {
    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.guarded(|it| {
            // The first block whose last key is >= target holds the answer, if any does.
            it.open_data_block(it.table.index().lower_bound(target))?;
            if let Some(data) = &mut it.data {
                data.seek(target)?;
            }
            it.skip_exhausted_blocks()
        })
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.guarded(|it| {
            it.open_data_block(0)?;
            if let Some(data) = &mut it.data {
                data.seek_to_first()?;
            }
            it.skip_exhausted_blocks()
        })
    }

    fn valid(&self) -> bool {
        self.data.as_ref().is_some_and(BlockIter::valid)
    }

    fn key(&self) -> &[u8] {
        self.data.as_ref().map_or(&[], BlockIter::key)
    }

    fn value(&self) -> &[u8] {
        self.data.as_ref().map_or(&[], BlockIter::value)
    }

    fn value_bytes(&self) -> bytes::Bytes {
        self.data
            .as_ref()
            .map_or_else(bytes::Bytes::new, BlockIter::value_bytes)
    }

    fn next(&mut self) -> Result<()> {
        self.guarded(|it| {
            if let Some(data) = &mut it.data {
                data.advance()?;
            }
            it.skip_exhausted_blocks()
        })
    }

    fn last_key_before(&mut self, target: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut found = None;
        self.guarded(|it| {
            // Index keys are the exact last keys of their blocks. In the first block whose
            // last key is >= target, look for a smaller key; failing that, the previous
            // block's last key is the answer.
            let block = it.table.index().lower_bound(target);
            it.open_data_block(block)?;
            if let Some(data) = &mut it.data {
                found = data.last_key_before(target)?;
            }
            if found.is_none() && block > 0 {
                found = Some(it.table.index().key(block - 1).to_vec());
            }
            it.data = None;
            Ok(())
        })?;
        Ok(found)
    }
}
