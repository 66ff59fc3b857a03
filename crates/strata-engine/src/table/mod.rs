//! SSTables: immutable sorted files of (internal key, value) entries for one column family's
//! store. The byte-level spec is `docs/format.md` (section "SSTable format version 1").
//!
//! ```text
//! file    = data_block+ index_block [bloom_block] meta_block trailer
//! block   = payload codec:u8 crc32c(payload|codec):u32le          (frame)
//! payload = raw | varint(raw_len) compressed(raw)                  (compression)
//! raw data/index block = entry* restart:u32le* count:u32le         (block)
//! index entry = exact last key of a data block -> varint offset, varint size
//! bloom   = bits k:u8, double hashing over bloom_hash              (bloom)
//! meta    = (varint tag, varint len, value)*                       (meta)
//! trailer = index, bloom, meta handles (u64le pairs), version:u32le,
//!           magic "STRATSST", crc32c:u32le  -- 64 bytes            (format)
//! ```
//!
//! A table is written once by [`TableBuilder`] (which refuses to finish an empty table), then
//! read by [`TableReader`] with range reads only, so it can live on object storage. Every
//! byte read from disk is checked by a CRC before it is interpreted, and every length is
//! checked against the bytes that hold it, so damage surfaces as `Error::Corruption`.

pub mod block;
pub mod bloom;
pub mod builder;
pub mod compression;
pub mod format;
pub mod frame;
pub mod index;
pub mod inspect;
pub mod iter;
pub mod meta;
pub mod options;
pub mod reader;

pub use builder::TableBuilder;
pub use meta::TableMeta;
pub use options::{CachePolicy, TableOptions};
pub use reader::TableReader;

#[cfg(test)]
mod tests;
