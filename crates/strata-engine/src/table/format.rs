//! The fixed parts of the file layout: block handles, the trailer, the magic number and the
//! format version.

use std::path::Path;

use crate::error::{Error, Result};
use crate::util::coding::{put_u32_le, put_u64_le, put_varint, Decoder};
use crate::util::crc::crc32c;

/// The format version this code writes and the only one it reads.
pub const FORMAT_VERSION: u32 = 1;

/// The last bytes of the trailer's fixed fields, spelling "STRATSST" in file order.
pub const MAGIC: [u8; 8] = *b"STRATSST";

/// Size of the trailer: three handles (16 bytes each), version, magic, CRC.
pub const TRAILER_LEN: usize = 3 * 16 + 4 + 8 + 4;

/// Codec byte plus CRC32C that follow every block's payload.
pub const FRAME_OVERHEAD: u64 = 5;

/// Where a framed block lives: its offset and its full size on disk, frame included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockHandle {
    /// Offset of the block's first payload byte.
    pub offset: u64,
    /// Payload + codec byte + CRC, in bytes.
    pub size: u64,
}

impl BlockHandle {
    /// Appends the handle as two varints (the form used inside index blocks).
    pub fn encode_varint(&self, buf: &mut Vec<u8>) {
        put_varint(buf, self.offset);
        put_varint(buf, self.size);
    }

    /// Decodes a varint handle that must fill `bytes` exactly.
    pub fn decode_varint(bytes: &[u8]) -> Option<BlockHandle> {
        let mut d = Decoder::new(bytes);
        let handle = BlockHandle {
            offset: d.varint()?,
            size: d.varint()?,
        };
        d.is_empty().then_some(handle)
    }

    /// Offset one past the block's last byte; `None` if it overflows.
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.size)
    }
}

/// The fixed-size record at the very end of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    /// The index block.
    pub index: BlockHandle,
    /// The bloom block; `None` when the table has no bloom filter (stored as size 0).
    pub bloom: Option<BlockHandle>,
    /// The meta block.
    pub meta: BlockHandle,
}

impl Trailer {
    /// The trailer's exact bytes (fixed-width fields so a reader finds it by seeking to
    /// `file_size - TRAILER_LEN`).
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(TRAILER_LEN);
        let bloom = self.bloom.unwrap_or_default();
        for handle in [self.index, bloom, self.meta] {
            put_u64_le(&mut buf, handle.offset);
            put_u64_le(&mut buf, handle.size);
        }
        put_u32_le(&mut buf, FORMAT_VERSION);
        buf.extend_from_slice(&MAGIC);
        let crc = crc32c(&buf);
        put_u32_le(&mut buf, crc);
        buf
    }

    /// Decodes and verifies a trailer read from `offset` of `path`.
    pub fn decode(bytes: &[u8], path: &Path, offset: u64) -> Result<Trailer> {
        let bad = |reason: &str| Error::corruption(path, offset, format!("trailer: {reason}"));
        if bytes.len() != TRAILER_LEN {
            return Err(bad("wrong length"));
        }
        let (body, crc) = bytes.split_at(TRAILER_LEN - 4);
        let stored = u32::from_le_bytes(crc.try_into().map_err(|_| bad("wrong length"))?);
        if crc32c(body) != stored {
            return Err(bad("checksum mismatch"));
        }
        let mut d = Decoder::new(body);
        let mut handle = || -> Option<BlockHandle> {
            Some(BlockHandle {
                offset: d.u64_le()?,
                size: d.u64_le()?,
            })
        };
        let (index, bloom, meta) = match (handle(), handle(), handle()) {
            (Some(i), Some(b), Some(m)) => (i, b, m),
            _ => return Err(bad("truncated")),
        };
        let version = d.u32_le().ok_or_else(|| bad("truncated"))?;
        let magic = d.bytes(MAGIC.len()).ok_or_else(|| bad("truncated"))?;
        if magic != MAGIC {
            return Err(bad("bad magic number (not a Strata SSTable)"));
        }
        if version != FORMAT_VERSION {
            return Err(bad(&format!("unsupported format version {version}")));
        }
        let bloom = (bloom.size != 0).then_some(bloom);
        Ok(Trailer { index, bloom, meta })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailer_round_trip_and_checksum() {
        let t = Trailer {
            index: BlockHandle { offset: 7, size: 9 },
            bloom: None,
            meta: BlockHandle {
                offset: 16,
                size: 30,
            },
        };
        let bytes = t.encode();
        assert_eq!(bytes.len(), TRAILER_LEN);
        assert_eq!(Trailer::decode(&bytes, Path::new("f"), 0).unwrap(), t);
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            let err = Trailer::decode(&bad, Path::new("f"), 5).unwrap_err();
            assert!(err.is_corruption(), "byte {i}: {err}");
        }
    }

    #[test]
    fn varint_handle_rejects_trailing_bytes() {
        let mut buf = Vec::new();
        BlockHandle {
            offset: 300,
            size: 5,
        }
        .encode_varint(&mut buf);
        assert_eq!(
            BlockHandle::decode_varint(&buf),
            Some(BlockHandle {
                offset: 300,
                size: 5
            })
        );
        buf.push(0);
        assert_eq!(BlockHandle::decode_varint(&buf), None);
    }
}
