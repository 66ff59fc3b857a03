//! Offline inspection of one SSTable, for `strata check` and `strata sst dump`: every data
//! block is read from disk (checksum and decoding verified), and the index, bloom filter
//! and meta block are checked against what the data blocks actually hold.

use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::key::{parse_key, ParsedKey};
use crate::options::BloomType;

use super::block::BlockIter;
use super::format::{BlockHandle, Trailer, TRAILER_LEN};
use super::meta::TableMeta;
use super::options::CachePolicy;
use super::reader::TableReader;

/// What a full verification found in a sound table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCheck {
    pub file_size: u64,
    pub data_blocks: u64,
    pub entries: u64,
}

/// One index entry: the exact last key of a data block and the block's handle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub last_key: Vec<u8>,
    pub handle: BlockHandle,
}

/// One entry of a data block, with the offset of the block holding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    pub block_offset: u64,
    pub key: ParsedKey,
    pub value: Vec<u8>,
}

/// An SSTable opened for inspection (no block cache, every read goes to the file).
pub struct InspectedTable {
    reader: Arc<TableReader>,
    trailer: Trailer,
}

impl InspectedTable {
    /// Opens `path`, verifying the trailer, meta, index and bloom blocks.
    pub fn open(fs: &dyn FileSystem, path: &Path) -> Result<InspectedTable> {
        let file = fs.open_read(path)?;
        let reader = TableReader::open(
            Arc::clone(&file),
            path.to_path_buf(),
            None,
            CachePolicy::default(),
        )?;
        // `open` verified the trailer; decode it again here to show its handles.
        let trailer_at = file.len().saturating_sub(TRAILER_LEN as u64);
        let trailer = Trailer::decode(&file.read_at(trailer_at, TRAILER_LEN)?, path, trailer_at)?;
        Ok(InspectedTable { reader, trailer })
    }

    /// The decoded trailer.
    pub fn trailer(&self) -> Trailer {
        self.trailer
    }

    /// The decoded meta block.
    pub fn meta(&self) -> &TableMeta {
        self.reader.meta()
    }

    /// The file's size.
    pub fn file_size(&self) -> u64 {
        self.reader.file_size()
    }

    /// Every index entry, in file order.
    pub fn index_entries(&self) -> Result<Vec<IndexEntry>> {
        let index = self.reader.index();
        (0..index.len())
            .map(|i| {
                let handle = index.handle(i).ok_or_else(|| self.index_corruption(i))?;
                let last_key = index.key(i).to_vec();
                Ok(IndexEntry { last_key, handle })
            })
            .collect()
    }

    fn index_corruption(&self, i: usize) -> Error {
        let offset = self.trailer().index.offset;
        Error::corruption(
            self.reader.path(),
            offset,
            format!("index entry {i} has a bad block handle"),
        )
    }

    /// Reads every data block in order and calls `on_entry` for each entry; checks key
    /// order, index keys, bloom membership and the meta block's counts.
    pub fn verify(&self, on_entry: &mut dyn FnMut(TableEntry)) -> Result<TableCheck> {
        let mut walk = Walk::default();
        let entries = self.index_entries()?;
        for entry in &entries {
            self.verify_block(entry, &mut walk, on_entry)?;
        }
        self.check_meta(&walk, entries.len() as u64)?;
        Ok(TableCheck {
            file_size: self.file_size(),
            data_blocks: entries.len() as u64,
            entries: walk.entries,
        })
    }

    fn verify_block(
        &self,
        entry: &IndexEntry,
        walk: &mut Walk,
        on_entry: &mut dyn FnMut(TableEntry),
    ) -> Result<()> {
        let offset = entry.handle.offset;
        let block = self.reader.data_block(entry.handle, false)?;
        let mut iter = BlockIter::new(block);
        iter.seek_to_first()?;
        let mut last: Option<Vec<u8>> = None;
        while iter.valid() {
            let key = iter.key();
            let parsed = parse_key(key).ok_or_else(|| self.bad(offset, "malformed key"))?;
            if walk.previous.as_deref().is_some_and(|p| p >= key) {
                return Err(self.bad(offset, "keys out of order"));
            }
            self.check_bloom(&parsed, offset)?;
            walk.count(&parsed, key);
            on_entry(TableEntry {
                block_offset: offset,
                key: parsed,
                value: iter.value().to_vec(),
            });
            walk.previous = Some(key.to_vec());
            last = Some(key.to_vec());
            iter.advance()?;
        }
        match last {
            None => Err(self.bad(offset, "empty data block")),
            Some(k) if k != entry.last_key => {
                Err(self.bad(offset, "the block's last key differs from its index entry"))
            }
            Some(_) => Ok(()),
        }
    }

    /// Every row (or column) in the data must test positive in the bloom filter.
    fn check_bloom(&self, key: &ParsedKey, offset: u64) -> Result<()> {
        let present = match self.meta().bloom_type {
            BloomType::None => true,
            BloomType::Row => self.reader.may_contain_row(&key.row)?,
            BloomType::RowCol => self.reader.may_contain_column(&key.row, &key.qualifier)?,
        };
        if present {
            return Ok(());
        }
        let bloom_offset = self.trailer.bloom.map_or(0, |h| h.offset);
        let reason = format!("the bloom filter misses a key of the data block at offset {offset}");
        Err(Error::corruption(self.reader.path(), bloom_offset, reason))
    }

    fn check_meta(&self, walk: &Walk, blocks: u64) -> Result<()> {
        let meta = self.meta();
        let checks = [
            (walk.entries == meta.entry_count, "entry count"),
            (walk.puts == meta.put_count, "put count"),
            (walk.deletes == meta.delete_count, "delete count"),
            (walk.key_bytes == meta.raw_key_bytes, "raw key bytes"),
            (blocks == meta.data_block_count, "data block count"),
            (
                walk.first.as_deref() == Some(&meta.first_key[..]),
                "first key",
            ),
            (
                walk.previous.as_deref() == Some(&meta.last_key[..]),
                "last key",
            ),
            (walk.max_seq == meta.max_seq, "max sequence id"),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            None => Ok(()),
            Some((_, what)) => {
                let reason = format!("the meta block's {what} disagrees with the data blocks");
                Err(self.bad(self.trailer().meta.offset, &reason))
            }
        }
    }

    fn bad(&self, offset: u64, reason: &str) -> Error {
        Error::corruption(self.reader.path(), offset, reason)
    }
}

/// Running totals over the data blocks.
#[derive(Default)]
struct Walk {
    entries: u64,
    puts: u64,
    deletes: u64,
    key_bytes: u64,
    max_seq: u64,
    first: Option<Vec<u8>>,
    previous: Option<Vec<u8>>,
}

impl Walk {
    fn count(&mut self, parsed: &ParsedKey, key: &[u8]) {
        self.entries += 1;
        if parsed.cell_type.is_delete() {
            self.deletes += 1;
        } else {
            self.puts += 1;
        }
        self.key_bytes += key.len() as u64;
        self.max_seq = self.max_seq.max(parsed.seq);
        if self.first.is_none() {
            self.first = Some(key.to_vec());
        }
    }
}
