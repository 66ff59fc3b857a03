//! The two-level table iterator: a cursor over the index block picks the data block, a
//! cursor over that block yields the entries.

use std::sync::Arc;

use super::block::BlockIter;
use super::format::BlockHandle;
use super::reader::TableReader;
use crate::error::Result;
use crate::iter::KvIter;

/// Iterates one table in key order. Created by [`TableReader::iter`].
pub struct TableIter {
    table: Arc<TableReader>,
    /// Loaded on first use, so creating an iterator never fails.
    index: Option<BlockIter>,
    /// The data block of the current index entry; `None` when unpositioned.
    data: Option<BlockIter>,
}

impl TableIter {
    pub(super) fn new(table: Arc<TableReader>) -> Self {
        TableIter {
            table,
            index: None,
            data: None,
        }
    }

    /// The index cursor, loading the index block the first time.
    fn index(&mut self) -> Result<&mut BlockIter> {
        let index = match self.index.take() {
            Some(index) => index,
            None => BlockIter::new(self.table.index_block()?),
        };
        Ok(self.index.insert(index))
    }

    /// Opens the data block the index cursor points at (or clears `data` past the end).
    fn open_data_block(&mut self) -> Result<()> {
        self.data = None;
        let Some(index) = self.index.as_ref().filter(|i| i.valid()) else {
            return Ok(());
        };
        let handle = BlockHandle::decode_varint(index.value()).ok_or_else(|| {
            self.table
                .corruption(index.offset(), "bad block handle in index")
        })?;
        self.data = Some(BlockIter::new(self.table.data_block(handle)?));
        Ok(())
    }

    /// Moves to later blocks while the current one is exhausted.
    fn skip_exhausted_blocks(&mut self) -> Result<()> {
        while self.data.as_ref().is_some_and(|d| !d.valid()) {
            self.index()?.advance()?;
            self.open_data_block()?;
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
            it.index()?.seek(target)?;
            it.open_data_block()?;
            if let Some(data) = &mut it.data {
                data.seek(target)?;
            }
            it.skip_exhausted_blocks()
        })
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.guarded(|it| {
            it.index()?.seek_to_first()?;
            it.open_data_block()?;
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
            // block's last key (the greatest index key < target) is the answer.
            it.index()?.seek(target)?;
            it.open_data_block()?;
            if let Some(data) = &mut it.data {
                found = data.last_key_before(target)?;
            }
            if found.is_none() {
                found = it.index()?.last_key_before(target)?;
            }
            it.data = None;
            Ok(())
        })?;
        Ok(found)
    }
}
