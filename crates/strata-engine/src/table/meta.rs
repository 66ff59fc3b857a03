//! The meta block: what a table holds, for compaction and read planning without scanning it.
//!
//! Encoding: a sequence of fields `varint tag | varint len | value[len]`. Readers skip tags
//! they do not know, so later versions can add fields; every v1 tag is required. Integers are
//! varints, timestamps are 8-byte little-endian two's complement, keys are raw bytes.

use std::collections::BTreeMap;
use std::path::Path;

use crate::cell::CellType;
use crate::error::{Error, Result};
use crate::key::ParsedKey;
use crate::options::{BloomType, Compression, DataBlockEncoding};
use crate::util::coding::{put_len_prefixed, put_varint, Decoder};

use super::compression::{codec_byte, codec_from_byte};
use super::format::FORMAT_VERSION;

/// Field tags (stable on disk).
mod tag {
    pub const FORMAT_VERSION: u64 = 1;
    pub const FIRST_KEY: u64 = 2;
    pub const LAST_KEY: u64 = 3;
    pub const MIN_TIMESTAMP: u64 = 4;
    pub const MAX_TIMESTAMP: u64 = 5;
    pub const MAX_SEQ: u64 = 6;
    pub const ENTRY_COUNT: u64 = 7;
    pub const PUT_COUNT: u64 = 8;
    pub const DELETE_COUNT: u64 = 9;
    pub const FAMILY_DELETE_COUNT: u64 = 10;
    pub const RAW_KEY_BYTES: u64 = 11;
    pub const RAW_VALUE_BYTES: u64 = 12;
    pub const DATA_BLOCK_COUNT: u64 = 13;
    pub const BLOOM_TYPE: u64 = 14;
    pub const COMPRESSION: u64 = 15;
    pub const ENCODING: u64 = 16;
    pub const BLOCK_SIZE: u64 = 17;
}

/// Summary of a table, stored in its meta block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMeta {
    /// Format version the table was written with.
    pub format_version: u32,
    /// Smallest internal key.
    pub first_key: Vec<u8>,
    /// Largest internal key.
    pub last_key: Vec<u8>,
    /// Smallest cell timestamp.
    pub min_timestamp: i64,
    /// Largest cell timestamp.
    pub max_timestamp: i64,
    /// Largest MVCC sequence id.
    pub max_seq: u64,
    /// Number of entries.
    pub entry_count: u64,
    /// Entries of type Put.
    pub put_count: u64,
    /// Delete markers of any of the four kinds.
    pub delete_count: u64,
    /// DeleteFamily and DeleteFamilyVersion markers (a subset of `delete_count`).
    pub family_delete_count: u64,
    /// Sum of the internal key lengths.
    pub raw_key_bytes: u64,
    /// Sum of the value lengths.
    pub raw_value_bytes: u64,
    /// Number of data blocks.
    pub data_block_count: u64,
    /// What the bloom filter holds.
    pub bloom_type: BloomType,
    /// Codec requested for data and index blocks (each block records the one it used).
    pub compression: Compression,
    /// Key encoding of the data blocks.
    pub encoding: DataBlockEncoding,
    /// Target data block size.
    pub block_size: u64,
}

impl TableMeta {
    /// Meta of a table with no entries yet.
    pub(super) fn empty(
        bloom_type: BloomType,
        compression: Compression,
        encoding: DataBlockEncoding,
        block_size: u64,
    ) -> Self {
        TableMeta {
            format_version: FORMAT_VERSION,
            first_key: Vec::new(),
            last_key: Vec::new(),
            min_timestamp: i64::MAX,
            max_timestamp: i64::MIN,
            max_seq: 0,
            entry_count: 0,
            put_count: 0,
            delete_count: 0,
            family_delete_count: 0,
            raw_key_bytes: 0,
            raw_value_bytes: 0,
            data_block_count: 0,
            bloom_type,
            compression,
            encoding,
            block_size,
        }
    }

    /// Accounts for one entry (keys arrive in ascending order).
    pub(super) fn record(&mut self, key: &[u8], parsed: &ParsedKey, value_len: usize) {
        if self.entry_count == 0 {
            self.first_key = key.to_vec();
        }
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.min_timestamp = self.min_timestamp.min(parsed.timestamp);
        self.max_timestamp = self.max_timestamp.max(parsed.timestamp);
        self.max_seq = self.max_seq.max(parsed.seq);
        self.entry_count += 1;
        match parsed.cell_type {
            CellType::Put => self.put_count += 1,
            t => {
                self.delete_count += 1;
                self.family_delete_count += u64::from(t.is_family_marker());
            }
        }
        self.raw_key_bytes += key.len() as u64;
        self.raw_value_bytes += value_len as u64;
    }

    /// The meta block's raw bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        let num = |buf: &mut Vec<u8>, tag: u64, v: u64| {
            let mut val = Vec::new();
            put_varint(&mut val, v);
            field(buf, tag, &val);
        };
        num(
            &mut buf,
            tag::FORMAT_VERSION,
            u64::from(self.format_version),
        );
        field(&mut buf, tag::FIRST_KEY, &self.first_key);
        field(&mut buf, tag::LAST_KEY, &self.last_key);
        field(
            &mut buf,
            tag::MIN_TIMESTAMP,
            &self.min_timestamp.to_le_bytes(),
        );
        field(
            &mut buf,
            tag::MAX_TIMESTAMP,
            &self.max_timestamp.to_le_bytes(),
        );
        num(&mut buf, tag::MAX_SEQ, self.max_seq);
        num(&mut buf, tag::ENTRY_COUNT, self.entry_count);
        num(&mut buf, tag::PUT_COUNT, self.put_count);
        num(&mut buf, tag::DELETE_COUNT, self.delete_count);
        num(&mut buf, tag::FAMILY_DELETE_COUNT, self.family_delete_count);
        num(&mut buf, tag::RAW_KEY_BYTES, self.raw_key_bytes);
        num(&mut buf, tag::RAW_VALUE_BYTES, self.raw_value_bytes);
        num(&mut buf, tag::DATA_BLOCK_COUNT, self.data_block_count);
        num(&mut buf, tag::BLOOM_TYPE, bloom_code(self.bloom_type));
        num(
            &mut buf,
            tag::COMPRESSION,
            u64::from(codec_byte(self.compression)),
        );
        num(&mut buf, tag::ENCODING, encoding_code(self.encoding));
        num(&mut buf, tag::BLOCK_SIZE, self.block_size);
        buf
    }

    /// Decodes a meta block read from `offset` of `path`.
    pub fn decode(block: &[u8], path: &Path, offset: u64) -> Result<TableMeta> {
        let fields = Fields::parse(block)
            .ok_or_else(|| Error::corruption(path, offset, "meta: malformed field list"))?;
        fields
            .to_meta()
            .map_err(|reason| Error::corruption(path, offset, format!("meta: {reason}")))
    }
}

fn field(buf: &mut Vec<u8>, tag: u64, value: &[u8]) {
    put_varint(buf, tag);
    put_len_prefixed(buf, value);
}

fn bloom_code(b: BloomType) -> u64 {
    match b {
        BloomType::None => 0,
        BloomType::Row => 1,
        BloomType::RowCol => 2,
    }
}

fn encoding_code(e: DataBlockEncoding) -> u64 {
    match e {
        DataBlockEncoding::None => 0,
        DataBlockEncoding::Prefix => 1,
    }
}

/// The decoded field list, by tag.
struct Fields<'a>(BTreeMap<u64, &'a [u8]>);

impl<'a> Fields<'a> {
    fn parse(block: &'a [u8]) -> Option<Self> {
        let mut d = Decoder::new(block);
        let mut map = BTreeMap::new();
        while !d.is_empty() {
            let tag = d.varint()?;
            let value = d.len_prefixed()?;
            if map.insert(tag, value).is_some() {
                return None;
            }
        }
        Some(Fields(map))
    }

    fn raw(&self, tag: u64) -> std::result::Result<&'a [u8], String> {
        self.0
            .get(&tag)
            .copied()
            .ok_or_else(|| format!("missing field {tag}"))
    }

    fn num(&self, tag: u64) -> std::result::Result<u64, String> {
        let mut d = Decoder::new(self.raw(tag)?);
        match d.varint() {
            Some(v) if d.is_empty() => Ok(v),
            _ => Err(format!("field {tag} is not a varint")),
        }
    }

    fn ts(&self, tag: u64) -> std::result::Result<i64, String> {
        let raw = self.raw(tag)?;
        let bytes: [u8; 8] = raw
            .try_into()
            .map_err(|_| format!("field {tag} is not 8 bytes"))?;
        Ok(i64::from_le_bytes(bytes))
    }

    fn to_meta(&self) -> std::result::Result<TableMeta, String> {
        let version = self.num(tag::FORMAT_VERSION)?;
        let bloom_type = match self.num(tag::BLOOM_TYPE)? {
            0 => BloomType::None,
            1 => BloomType::Row,
            2 => BloomType::RowCol,
            other => return Err(format!("unknown bloom type {other}")),
        };
        let compression = u8::try_from(self.num(tag::COMPRESSION)?)
            .ok()
            .and_then(codec_from_byte)
            .ok_or("unknown compression")?;
        let encoding = match self.num(tag::ENCODING)? {
            0 => DataBlockEncoding::None,
            1 => DataBlockEncoding::Prefix,
            other => return Err(format!("unknown encoding {other}")),
        };
        let meta = TableMeta {
            format_version: u32::try_from(version).map_err(|_| "format version too large")?,
            first_key: self.raw(tag::FIRST_KEY)?.to_vec(),
            last_key: self.raw(tag::LAST_KEY)?.to_vec(),
            min_timestamp: self.ts(tag::MIN_TIMESTAMP)?,
            max_timestamp: self.ts(tag::MAX_TIMESTAMP)?,
            max_seq: self.num(tag::MAX_SEQ)?,
            entry_count: self.num(tag::ENTRY_COUNT)?,
            put_count: self.num(tag::PUT_COUNT)?,
            delete_count: self.num(tag::DELETE_COUNT)?,
            family_delete_count: self.num(tag::FAMILY_DELETE_COUNT)?,
            raw_key_bytes: self.num(tag::RAW_KEY_BYTES)?,
            raw_value_bytes: self.num(tag::RAW_VALUE_BYTES)?,
            data_block_count: self.num(tag::DATA_BLOCK_COUNT)?,
            bloom_type,
            compression,
            encoding,
            block_size: self.num(tag::BLOCK_SIZE)?,
        };
        if meta.entry_count == 0 || meta.first_key > meta.last_key {
            return Err("empty table or inverted key range".into());
        }
        Ok(meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{make_key, parse_key};

    fn sample() -> TableMeta {
        let mut m = TableMeta::empty(
            BloomType::RowCol,
            Compression::Zstd,
            DataBlockEncoding::Prefix,
            4096,
        );
        for (row, ts, t, seq) in [
            (&b"a"[..], 5, CellType::DeleteFamily, 3),
            (b"a", 5, CellType::Put, 3),
            (b"b", 9, CellType::Delete, 8),
            (b"c", 1, CellType::DeleteFamilyVersion, 2),
        ] {
            let key = make_key(row, b"", ts, t, seq);
            m.record(&key, &parse_key(&key).unwrap(), 3);
        }
        m
    }

    #[test]
    fn counts_and_round_trip() {
        let m = sample();
        assert_eq!((m.entry_count, m.put_count, m.delete_count), (4, 1, 3));
        assert_eq!(m.family_delete_count, 2);
        assert_eq!((m.min_timestamp, m.max_timestamp, m.max_seq), (1, 9, 8));
        assert_eq!(m.raw_value_bytes, 12);
        let decoded = TableMeta::decode(&m.encode(), Path::new("m"), 0).unwrap();
        assert_eq!(decoded, m);
    }

    #[test]
    fn unknown_tags_are_skipped() {
        let mut bytes = sample().encode();
        field(&mut bytes, 999, b"from the future");
        assert_eq!(
            TableMeta::decode(&bytes, Path::new("m"), 0).unwrap(),
            sample()
        );
    }

    #[test]
    fn missing_duplicate_or_bad_fields_are_corruption() {
        let good = sample().encode();
        let mut dup = good.clone();
        field(&mut dup, tag::MAX_SEQ, &[1]);
        let mut bad_ts = Vec::new();
        field(&mut bad_ts, tag::MIN_TIMESTAMP, &[1, 2]);
        for bytes in [&good[..good.len() - 3], &dup[..], &bad_ts[..], &[0x80][..]] {
            let err = TableMeta::decode(bytes, Path::new("m.sst"), 77).unwrap_err();
            assert!(
                matches!(&err, Error::Corruption { offset: 77, .. }),
                "{err}"
            );
        }
    }
}
