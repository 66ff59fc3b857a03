//! Opens a table: verifies the trailer and meta up front, then serves blocks through the
//! shared block cache.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::cache::{BlockCache, CacheCharge, Priority};
use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::key::{column_start, row_prefix};
use crate::options::BloomType;
use crate::util::crc::{crc32c, crc32c_parts};

use super::block::Block;
use super::bloom::BloomFilter;
use super::format::{BlockHandle, Trailer, FRAME_OVERHEAD, TRAILER_LEN};
use super::frame::decode_frame;
use super::index::DecodedIndex;
use super::meta::TableMeta;
use super::options::CachePolicy;

/// An open, immutable SSTable.
pub struct TableReader {
    file: Arc<dyn RandomAccessFile>,
    path: Arc<Path>,
    file_id: u64,
    /// The table's identity in the second cache level, which outlives the process: the
    /// per-process `file_id` cannot key it. Derived from the table's own bytes (see
    /// [`l2_identity`]), so the same bytes get the same id after a restart or a move, and
    /// other bytes another id.
    l2_id: u64,
    file_size: u64,
    cache: Option<Arc<BlockCache>>,
    policy: CachePolicy,
    trailer: Trailer,
    meta: TableMeta,
    /// The index and bloom blocks stay in memory while the file is open (RocksDB's default
    /// too): every point read needs both, so a cache lookup for them on each read would cost
    /// more than the memory they hold (about 1% of the data for the index at 64 KiB blocks,
    /// 1.25 bytes per key for the bloom). Their memory is charged to the block cache.
    index: DecodedIndex,
    pinned_bloom: Option<Bytes>,
    /// The index and bloom memory (and, for an IN_MEMORY family, the data blocks' raw
    /// bytes) charged to the block cache while the file is open.
    _charge: Option<CacheCharge>,
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
            l2_id: 0, // set once the index is read
            file_size,
            cache,
            policy: cache_policy,
            trailer,
            meta,
            index: DecodedIndex::default(),
            pinned_bloom: None,
            _charge: None,
        };
        let index_crc = reader.load_index_and_bloom()?;
        reader.l2_id = l2_identity(file_size, &trailer_bytes, &meta_bytes, index_crc);
        reader._charge = reader.cache.as_ref().map(|cache| {
            let in_memory = reader.policy.cache_data_blocks && reader.policy.in_memory;
            let raw = (reader.meta.raw_key_bytes).saturating_add(reader.meta.raw_value_bytes);
            cache.open_file(
                reader.file_id,
                reader.l2_id,
                reader.pinned_bytes() as u64,
                if in_memory { raw } else { 0 },
            )
        });
        Ok(Arc::new(reader))
    }

    /// Reads the index and bloom blocks from the file (not through the cache: they are
    /// pinned in the reader, so caching them too would only take room from data blocks).
    /// Returns the CRC32C of the index block's bytes (part of the table's `l2_id`).
    fn load_index_and_bloom(&mut self) -> Result<u32> {
        let handle = self.trailer.index;
        let index_bytes = self.read_from_disk(handle)?;
        let index_crc = crc32c(&index_bytes);
        let block = Block::new(index_bytes, self.path.clone(), handle.offset)?;
        let index = DecodedIndex::decode(block, &self.path)?;
        let bloom = match self.trailer.bloom {
            Some(handle) => Some(self.read_from_disk(handle)?),
            None => None,
        };
        if let Some(bytes) = &bloom {
            self.parse_bloom(bytes)?;
        }
        self.index = index;
        self.pinned_bloom = bloom;
        Ok(index_crc)
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
    #[cfg(test)]
    pub fn file_id(&self) -> u64 {
        self.file_id
    }

    /// The id this reader's blocks have in the second cache level.
    #[cfg(test)]
    pub fn l2_id(&self) -> u64 {
        self.l2_id
    }

    /// The last key of each data block, in file order: an evenly spread sample of the
    /// file's keys, which is how a split point is chosen.
    pub fn block_last_keys(&self) -> Vec<&[u8]> {
        (0..self.index.len()).map(|i| self.index.key(i)).collect()
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
        match &self.pinned_bloom {
            Some(bytes) => Ok(self.parse_bloom(bytes)?.may_contain(probe)),
            None => Ok(true),
        }
    }

    /// Bytes held in memory by the pinned index and bloom blocks.
    pub fn pinned_bytes(&self) -> usize {
        self.index.memory_bytes() + self.pinned_bloom.as_ref().map_or(0, Bytes::len)
    }

    fn parse_bloom<'a>(&self, bytes: &'a [u8]) -> Result<BloomFilter<'a>> {
        let offset = self.trailer.bloom.map_or(0, |h| h.offset);
        BloomFilter::parse(bytes).map_err(|reason| Error::corruption(&*self.path, offset, reason))
    }

    /// The decoded index.
    pub(super) fn index(&self) -> &DecodedIndex {
        &self.index
    }

    /// The data block at `handle` (decoded from an index entry).
    pub(super) fn data_block(&self, handle: BlockHandle, fill_cache: bool) -> Result<Block> {
        self.read_data_block(handle, fill_cache)
    }

    /// Reads a data block through the cache according to the cache policy. A block that
    /// enters the cache gets its prefix index, since it will be searched many times.
    fn read_data_block(&self, handle: BlockHandle, fill_cache: bool) -> Result<Block> {
        let priority = match (self.policy.cache_data_blocks, self.policy.in_memory) {
            (false, _) => None,
            (true, true) => Some(Priority::High),
            (true, false) => Some(Priority::Normal),
        };
        let parse = |bytes: Bytes| Block::new(bytes, self.path.clone(), handle.offset);
        let (Some(cache), Some(priority)) = (&self.cache, priority) else {
            return parse(self.read_from_disk(handle)?);
        };
        let key = (self.file_id, handle.offset);
        if let Some(block) = cache.get(&key) {
            return Ok(block);
        }
        if let Some(bytes) = cache.get_l2(&(self.l2_id, handle.offset)) {
            // The entry passed its CRC, so these are the bytes demoted under this table's
            // identity; should they still not parse, they are a miss, never an error.
            if let Ok(block) = parse(bytes).and_then(Block::with_prefix_index) {
                if fill_cache {
                    cache.promote(key, block.clone(), priority);
                }
                return Ok(block);
            }
        }
        if !fill_cache {
            return parse(self.read_from_disk(handle)?);
        }
        let block = parse(self.read_from_disk(handle)?)?.with_prefix_index()?;
        cache.insert(key, block.clone(), priority);
        Ok(block)
    }

    fn read_from_disk(&self, handle: BlockHandle) -> Result<Bytes> {
        let limit = self.file_size - TRAILER_LEN as u64;
        read_framed(&*self.file, &self.path, handle, limit)
    }
}

/// A table's identity in the second cache level: the CRC32C of its size, trailer and meta
/// block (which holds its key range, counts and newest sequence id) in the high half, the
/// CRC32C of its index block (every data block's last key and place) in the low half.
/// Sequence ids only grow within an engine, so a table rewritten at the same path (a
/// dropped and recreated table, or a file number reused) differs in its meta even when its
/// cells do not; the per-entry CRC guards the bytes themselves.
fn l2_identity(file_size: u64, trailer: &[u8], meta: &[u8], index_crc: u32) -> u64 {
    let high = crc32c_parts(&[&file_size.to_le_bytes(), trailer, meta]);
    (u64::from(high) << 32) | u64::from(index_crc)
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
