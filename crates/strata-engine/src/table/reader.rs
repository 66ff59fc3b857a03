//! Opens a table: verifies the trailer and meta up front, then serves blocks through the
//! shared block cache.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::cache::{BlockCache, Priority};
use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::key::{column_start, row_prefix};
use crate::options::BloomType;

use super::block::Block;
use super::bloom::BloomFilter;
use super::format::{BlockHandle, Trailer, FRAME_OVERHEAD, TRAILER_LEN};
use super::frame::decode_frame;
use super::iter::TableIter;
use super::meta::TableMeta;
use super::options::CachePolicy;

/// Which kind of block is being read, deciding how it is cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BlockKind {
    Index,
    Bloom,
    Data,
}

/// An open, immutable SSTable.
pub struct TableReader {
    file: Arc<dyn RandomAccessFile>,
    path: Arc<Path>,
    file_id: u64,
    file_size: u64,
    cache: Option<Arc<BlockCache>>,
    policy: CachePolicy,
    trailer: Trailer,
    meta: TableMeta,
    /// Index and bloom blocks kept here when there is no cache to hold them.
    pinned_index: Option<Bytes>,
    pinned_bloom: Option<Bytes>,
}

impl std::fmt::Debug for TableReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableReader")
            .field("path", &self.path)
            .field("file_id", &self.file_id)
            .field("file_size", &self.file_size)
            .finish_non_exhaustive()
    }
}

impl TableReader {
    /// Opens the table in `file`, checking its trailer, meta, index and bloom blocks.
    pub fn open(
        file: Arc<dyn RandomAccessFile>,
        path: PathBuf,
        cache: Option<Arc<BlockCache>>,
        cache_policy: CachePolicy,
    ) -> Result<Arc<TableReader>> {
        let path: Arc<Path> = Arc::from(path);
        let file_size = file.len();
        let trailer_at = file_size
            .checked_sub(TRAILER_LEN as u64)
            .ok_or_else(|| Error::corruption(&*path, 0, "file shorter than the trailer"))?;
        let trailer_bytes = read(&*file, &path, trailer_at, TRAILER_LEN)?;
        let trailer = Trailer::decode(&trailer_bytes, &path, trailer_at)?;
        let meta_bytes = read_framed(&*file, &path, trailer.meta, trailer_at)?;
        let meta = TableMeta::decode(&meta_bytes, &path, trailer.meta.offset)?;
        if (meta.bloom_type == BloomType::None) != trailer.bloom.is_none() {
            return Err(Error::corruption(
                &*path,
                trailer_at,
                "bloom block presence disagrees with the meta bloom type",
            ));
        }
        let mut reader = TableReader {
            file,
            path,
            file_id: BlockCache::next_file_id(),
            file_size,
            cache,
            policy: cache_policy,
            trailer,
            meta,
            pinned_index: None,
            pinned_bloom: None,
        };
        reader.load_index_and_bloom()?;
        Ok(Arc::new(reader))
    }

    /// Reads (and so verifies) the index and bloom blocks, keeping them when uncached.
    fn load_index_and_bloom(&mut self) -> Result<()> {
        let index = self.index_block()?;
        let bloom = match self.trailer.bloom {
            Some(handle) => Some(self.read_block(handle, BlockKind::Bloom)?),
            None => None,
        };
        if let Some(bytes) = &bloom {
            self.parse_bloom(bytes)?;
        }
        if self.cache.is_none() {
            self.pinned_index = Some(index.into_bytes());
            self.pinned_bloom = bloom;
        }
        Ok(())
    }

    /// The table's meta block.
    pub fn meta(&self) -> &TableMeta {
        &self.meta
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size in bytes.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The id this reader's blocks are cached under.
    pub fn file_id(&self) -> u64 {
        self.file_id
    }

    /// A new iterator over the table.
    pub fn iter(self: &Arc<Self>) -> TableIter {
        TableIter::new(Arc::clone(self))
    }

    /// False only if the table certainly holds no cell of `row`. Always true without a
    /// row bloom filter.
    pub fn may_contain_row(&self, row: &[u8]) -> Result<bool> {
        match self.meta.bloom_type {
            BloomType::Row => self.bloom_check(&row_prefix(row)),
            BloomType::None | BloomType::RowCol => Ok(true),
        }
    }

    /// False only if the table certainly holds no cell of column (`row`, `qualifier`).
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> Result<bool> {
        match self.meta.bloom_type {
            BloomType::Row => self.bloom_check(&row_prefix(row)),
            BloomType::RowCol => self.bloom_check(&column_start(row, qualifier)),
            BloomType::None => Ok(true),
        }
    }

    fn bloom_check(&self, probe: &[u8]) -> Result<bool> {
        let bytes = match (&self.pinned_bloom, self.trailer.bloom) {
            (Some(b), _) => b.clone(),
            (None, Some(handle)) => self.read_block(handle, BlockKind::Bloom)?,
            (None, None) => return Ok(true),
        };
        Ok(self.parse_bloom(&bytes)?.may_contain(probe))
    }

    fn parse_bloom<'a>(&self, bytes: &'a [u8]) -> Result<BloomFilter<'a>> {
        let offset = self.trailer.bloom.map_or(0, |h| h.offset);
        BloomFilter::parse(bytes).map_err(|reason| Error::corruption(&*self.path, offset, reason))
    }

    /// The index block.
    pub(super) fn index_block(&self) -> Result<Block> {
        let handle = self.trailer.index;
        let bytes = match &self.pinned_index {
            Some(b) => b.clone(),
            None => self.read_block(handle, BlockKind::Index)?,
        };
        Block::new(bytes, self.path.clone(), handle.offset)
    }

    /// The data block at `handle` (decoded from an index entry).
    pub(super) fn data_block(&self, handle: BlockHandle) -> Result<Block> {
        let bytes = self.read_block(handle, BlockKind::Data)?;
        Block::new(bytes, self.path.clone(), handle.offset)
    }

    /// A corruption error for this file.
    pub(super) fn corruption(&self, offset: u64, reason: &str) -> Error {
        Error::corruption(&*self.path, offset, reason)
    }

    /// Reads a block through the cache according to its kind and the cache policy.
    fn read_block(&self, handle: BlockHandle, kind: BlockKind) -> Result<Bytes> {
        let priority = match kind {
            BlockKind::Index | BlockKind::Bloom => Some(Priority::High),
            BlockKind::Data if !self.policy.cache_data_blocks => None,
            BlockKind::Data if self.policy.in_memory => Some(Priority::High),
            BlockKind::Data => Some(Priority::Normal),
        };
        let (Some(cache), Some(priority)) = (&self.cache, priority) else {
            return self.read_from_disk(handle);
        };
        let key = (self.file_id, handle.offset);
        if let Some(bytes) = cache.get(&key) {
            return Ok(bytes);
        }
        let bytes = self.read_from_disk(handle)?;
        cache.insert(key, bytes.clone(), priority);
        Ok(bytes)
    }

    fn read_from_disk(&self, handle: BlockHandle) -> Result<Bytes> {
        let limit = self.file_size - TRAILER_LEN as u64;
        read_framed(&*self.file, &self.path, handle, limit)
    }
}

/// Reads and unframes the block at `handle`, which must end at or before `limit`.
fn read_framed(
    file: &dyn RandomAccessFile,
    path: &Path,
    handle: BlockHandle,
    limit: u64,
) -> Result<Bytes> {
    let in_bounds = handle.size >= FRAME_OVERHEAD && handle.end().is_some_and(|end| end <= limit);
    let len = usize::try_from(handle.size).ok().filter(|_| in_bounds);
    let len =
        len.ok_or_else(|| Error::corruption(path, handle.offset, "block handle outside the file"))?;
    let framed = read(file, path, handle.offset, len)?;
    decode_frame(framed, path, handle.offset)
}

/// A range read; the caller has checked the range against the file size.
fn read(file: &dyn RandomAccessFile, path: &Path, offset: u64, len: usize) -> Result<Vec<u8>> {
    let bytes = file.read_at(offset, len)?;
    if bytes.len() != len {
        return Err(Error::corruption(path, offset, "short read"));
    }
    Ok(bytes)
}
