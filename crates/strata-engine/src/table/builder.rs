//! Writes a table sequentially: data blocks as they fill, then index, bloom, meta, trailer.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::fs::WritableFile;
use crate::key::{column_prefix_of, parse_key, row_prefix_of};
use crate::options::{BloomType, Compression, DataBlockEncoding};

use super::block::{BlockBuilder, PREFIX_RESTART_INTERVAL};
use super::bloom::BloomBuilder;
use super::format::{BlockHandle, Trailer};
use super::frame::encode_frame;
use super::meta::TableMeta;
use super::options::TableOptions;

/// Largest key + value accepted in one entry. With [`MAX_BLOCK_TARGET`] it bounds a block
/// below 2 GiB, so restart offsets always fit their u32 fields.
const MAX_ENTRY_LEN: usize = 1 << 30;

/// Largest effective target block size, whatever the options say.
const MAX_BLOCK_TARGET: usize = 1 << 30;

/// Builds one SSTable. Tables must not be empty: [`TableBuilder::finish`] refuses a table
/// with no entries (the caller should not create the file, or remove it).
pub struct TableBuilder {
    file: Box<dyn WritableFile>,
    path: PathBuf,
    opts: TableOptions,
    data: BlockBuilder,
    index: BlockBuilder,
    bloom: Option<BloomState>,
    meta: TableMeta,
    offset: u64,
}

/// The bloom builder and the last key it received, to skip consecutive duplicates.
struct BloomState {
    builder: BloomBuilder,
    kind: BloomType,
    last: Vec<u8>,
}

impl TableBuilder {
    /// Starts a table written to `file` (a freshly created file at `path`).
    pub fn new(file: Box<dyn WritableFile>, path: PathBuf, opts: TableOptions) -> Self {
        let interval = match opts.encoding {
            DataBlockEncoding::None => 1,
            DataBlockEncoding::Prefix => PREFIX_RESTART_INTERVAL,
        };
        let bloom = (opts.bloom_type != BloomType::None).then(|| BloomState {
            builder: BloomBuilder::new(opts.bloom_bits_per_key),
            kind: opts.bloom_type,
            last: Vec::new(),
        });
        let meta = TableMeta::empty(
            opts.bloom_type,
            opts.compression,
            opts.encoding,
            opts.block_size as u64,
        );
        TableBuilder {
            file,
            path,
            opts,
            data: BlockBuilder::new(interval),
            // Every index entry is a restart point so a seek is a pure binary search.
            index: BlockBuilder::new(1),
            bloom,
            meta,
            offset: 0,
        }
    }

    /// Appends an entry. Keys must be well-formed internal keys in strictly increasing order.
    pub fn add(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        if self.meta.entry_count > 0 && key <= self.meta.last_key.as_slice() {
            return Err(Error::InvalidArgument(format!(
                "{}: keys must be strictly increasing",
                self.path.display()
            )));
        }
        let parsed = parse_key(key).ok_or_else(|| {
            Error::InvalidArgument(format!("{}: malformed internal key", self.path.display()))
        })?;
        if key.len() + value.len() > MAX_ENTRY_LEN {
            return Err(Error::InvalidArgument("entry larger than 1 GiB".into()));
        }
        self.meta.record(key, &parsed, value.len());
        if let Some(bloom) = &mut self.bloom {
            bloom.add(key);
        }
        self.data.add(key, value);
        if self.data.estimated_size() >= self.opts.block_size.min(MAX_BLOCK_TARGET) {
            self.flush_data_block()?;
        }
        Ok(())
    }

    /// Approximate size of the file if it were finished now.
    #[cfg(test)]
    pub fn estimated_size(&self) -> u64 {
        self.offset + (self.data.estimated_size() + self.index.estimated_size()) as u64
    }

    /// Writes the remaining blocks and the trailer, syncs the file and returns the meta.
    pub fn finish(mut self) -> Result<TableMeta> {
        if self.meta.entry_count == 0 {
            return Err(Error::InvalidArgument(format!(
                "{}: an SSTable must hold at least one entry",
                self.path.display()
            )));
        }
        if !self.data.is_empty() {
            self.flush_data_block()?;
        }
        let index_raw = self.index.finish();
        let index = self.write_block(&index_raw, self.opts.compression)?;
        let bloom = match self.bloom.take() {
            Some(state) => Some(self.write_block(&state.builder.finish(), Compression::None)?),
            None => None,
        };
        let meta = self.write_block(&self.meta.encode(), Compression::None)?;
        let trailer = Trailer { index, bloom, meta }.encode();
        self.append(&trailer)?;
        self.file.sync()?;
        Ok(self.meta)
    }

    fn flush_data_block(&mut self) -> Result<()> {
        let last_key = self.data.last_key().to_vec();
        let raw = self.data.finish();
        let handle = self.write_block(&raw, self.opts.compression)?;
        let mut value = Vec::with_capacity(10);
        handle.encode_varint(&mut value);
        self.index.add(&last_key, &value);
        self.meta.data_block_count += 1;
        Ok(())
    }

    fn write_block(&mut self, raw: &[u8], codec: Compression) -> Result<BlockHandle> {
        let framed = encode_frame(raw, codec);
        let handle = BlockHandle {
            offset: self.offset,
            size: framed.len() as u64,
        };
        self.append(&framed)?;
        Ok(handle)
    }

    fn append(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.append(bytes)?;
        self.offset += bytes.len() as u64;
        Ok(())
    }
}

impl BloomState {
    fn add(&mut self, key: &[u8]) {
        let part = match self.kind {
            BloomType::Row => row_prefix_of(key),
            BloomType::RowCol => column_prefix_of(key),
            BloomType::None => None,
        };
        // `key` parsed successfully, so both prefixes exist.
        let Some(part) = part else { return };
        if part != self.last.as_slice() || self.builder.is_empty() {
            self.builder.add(part);
            self.last.clear();
            self.last.extend_from_slice(part);
        }
    }
}
