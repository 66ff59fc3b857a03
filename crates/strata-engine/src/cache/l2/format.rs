//! The bytes of the second cache level: the cache file's header, one entry per cached
//! block, and the index written at a clean close. `docs/format.md` describes the same
//! layout; [`VERSION`] changes whenever it does.
//!
//! Every multi-byte integer is little-endian. Each record carries a CRC32C, so a damaged
//! or foreign file is recognised and discarded, and a damaged entry is a miss.

use bytes::Bytes;

use crate::util::coding::Decoder;
use crate::util::crc::{crc32c, crc32c_parts};

/// (table identity, block offset): the key of a block in the second level. The identity
/// is stable across restarts (see `TableReader`'s `l2_id`), unlike the first level's
/// per-process file ids.
pub type L2Key = (u64, u64);

/// Version of the cache file and index layout.
pub const VERSION: u32 = 1;
/// First bytes of the cache file.
pub const FILE_MAGIC: [u8; 8] = *b"STRATAL2";
/// First bytes of the index file.
pub const INDEX_MAGIC: [u8; 8] = *b"STRL2IDX";
/// Bytes at the start of the cache file kept for its header; entries start after them.
pub const HEADER_REGION: u64 = 4096;
/// First four bytes of every entry ("SL2E").
const ENTRY_MAGIC: [u8; 4] = *b"SL2E";
/// Bytes of an entry's header: magic, body length, key (two u64), CRC, reserved.
pub const ENTRY_HEADER_LEN: usize = 32;
/// Bytes of the file header as encoded (the rest of `HEADER_REGION` is zero).
const FILE_HEADER_LEN: usize = 36;
/// Bytes of one index record: key (two u64), position, body length, CRC.
const INDEX_RECORD_LEN: usize = 32;

/// Why a cache file or index is not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    #[error("not a Strata L2 cache file (wrong magic)")]
    Magic,
    #[error("unsupported L2 format version {0} (this build reads {VERSION})")]
    Version(u32),
    #[error("checksum mismatch")]
    Checksum,
    #[error("truncated")]
    Truncated,
    #[error("the file is {stored} bytes but {configured} are configured")]
    Capacity { configured: u64, stored: u64 },
    #[error("the index belongs to another incarnation of the cache file")]
    Nonce,
    #[error("an index record lies outside the file")]
    Bounds,
}

/// The cache file's header: what it was created for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileHeader {
    /// Configured size, which is also the file's length.
    pub capacity: u64,
    /// Random, new each time the cache opens; an index is used only with the header it
    /// was written under.
    pub nonce: u64,
}

impl FileHeader {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_HEADER_LEN);
        out.extend_from_slice(&FILE_MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.capacity.to_le_bytes());
        out.extend_from_slice(&self.nonce.to_le_bytes());
        let crc = crc32c(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Decodes a header and checks it against the configured capacity.
    pub fn decode(bytes: &[u8], configured: u64) -> Result<FileHeader, FormatError> {
        let bytes = bytes.get(..FILE_HEADER_LEN).ok_or(FormatError::Truncated)?;
        let (body, crc) = bytes.split_at(FILE_HEADER_LEN - 4);
        let mut d = Decoder::new(body);
        let mut magic = [0u8; 8];
        magic.copy_from_slice(d.bytes(8).ok_or(FormatError::Truncated)?);
        if magic != FILE_MAGIC {
            return Err(FormatError::Magic);
        }
        let version = d.u32_le().ok_or(FormatError::Truncated)?;
        if version != VERSION {
            return Err(FormatError::Version(version));
        }
        if crc32c(body).to_le_bytes() != crc {
            return Err(FormatError::Checksum);
        }
        let _reserved = d.u32_le().ok_or(FormatError::Truncated)?;
        let capacity = d.u64_le().ok_or(FormatError::Truncated)?;
        let nonce = d.u64_le().ok_or(FormatError::Truncated)?;
        if capacity != configured {
            return Err(FormatError::Capacity {
                configured,
                stored: capacity,
            });
        }
        Ok(FileHeader { capacity, nonce })
    }
}

/// Where an entry lies and what its CRC must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Offset of the entry's header in the cache file.
    pub pos: u64,
    /// Length of the block's bytes (the entry is `ENTRY_HEADER_LEN` longer).
    pub len: u32,
    pub crc: u32,
}

impl Slot {
    /// Bytes the entry takes in the file.
    pub fn entry_len(&self) -> u64 {
        ENTRY_HEADER_LEN as u64 + u64::from(self.len)
    }
}

/// An entry for `body` under `key`, and its CRC. `body` is at most `u32::MAX` bytes (the
/// caller refuses larger blocks).
pub fn encode_entry(key: L2Key, body: &[u8]) -> (Vec<u8>, u32) {
    let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(ENTRY_HEADER_LEN + body.len());
    out.extend_from_slice(&ENTRY_MAGIC);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&key.0.to_le_bytes());
    out.extend_from_slice(&key.1.to_le_bytes());
    let crc = crc32c_parts(&[&out, body]);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(body);
    (out, crc)
}

/// The block in `entry` (read from `slot`), if the entry is the one the index expects for
/// `key` and its CRC matches; `None` for anything else (damaged, or overwritten since).
pub fn decode_entry(entry: Vec<u8>, key: L2Key, slot: &Slot) -> Option<Bytes> {
    let expected_len = ENTRY_HEADER_LEN + slot.len as usize;
    if entry.len() != expected_len {
        return None;
    }
    let (header, body) = entry.split_at(ENTRY_HEADER_LEN);
    let mut d = Decoder::new(header);
    let magic = d.bytes(4)?;
    let len = d.u32_le()?;
    let file = d.u64_le()?;
    let offset = d.u64_le()?;
    let crc = d.u32_le()?;
    let valid = magic == ENTRY_MAGIC
        && len == slot.len
        && (file, offset) == key
        && crc == slot.crc
        && crc32c_parts(&[&header[..24], body]) == crc;
    // The body is returned without a copy: the entry's buffer, past its header.
    valid.then(|| Bytes::from(entry).slice(ENTRY_HEADER_LEN..))
}

/// What a clean close leaves for the next open: where the write position was, and every
/// entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    pub head: u64,
    pub entries: Vec<(L2Key, Slot)>,
}

/// The index file for a cache file of `capacity` whose header carries `nonce`.
pub fn encode_index(capacity: u64, nonce: u64, index: &Index) -> Vec<u8> {
    let mut out = Vec::with_capacity(48 + index.entries.len() * INDEX_RECORD_LEN + 4);
    out.extend_from_slice(&INDEX_MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&capacity.to_le_bytes());
    out.extend_from_slice(&nonce.to_le_bytes());
    out.extend_from_slice(&index.head.to_le_bytes());
    out.extend_from_slice(&(index.entries.len() as u64).to_le_bytes());
    for ((file, offset), slot) in &index.entries {
        out.extend_from_slice(&file.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&slot.pos.to_le_bytes());
        out.extend_from_slice(&slot.len.to_le_bytes());
        out.extend_from_slice(&slot.crc.to_le_bytes());
    }
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Decodes an index file, checking it against the cache file it must belong to. Records
/// must lie inside the entry area; whether they overlap is the ring's to check.
pub fn decode_index(bytes: &[u8], capacity: u64, nonce: u64) -> Result<Index, FormatError> {
    let split = bytes.len().checked_sub(4).ok_or(FormatError::Truncated)?;
    let (body, crc) = bytes.split_at(split);
    let mut d = Decoder::new(body);
    if d.bytes(8).ok_or(FormatError::Truncated)? != INDEX_MAGIC {
        return Err(FormatError::Magic);
    }
    let version = d.u32_le().ok_or(FormatError::Truncated)?;
    if version != VERSION {
        return Err(FormatError::Version(version));
    }
    if crc32c(body).to_le_bytes() != crc {
        return Err(FormatError::Checksum);
    }
    let _reserved = d.u32_le().ok_or(FormatError::Truncated)?;
    let stored = d.u64_le().ok_or(FormatError::Truncated)?;
    if stored != capacity {
        return Err(FormatError::Capacity {
            configured: capacity,
            stored,
        });
    }
    if d.u64_le().ok_or(FormatError::Truncated)? != nonce {
        return Err(FormatError::Nonce);
    }
    let head = d.u64_le().ok_or(FormatError::Truncated)?;
    let count = d.u64_le().ok_or(FormatError::Truncated)?;
    if !(HEADER_REGION..=capacity).contains(&head) {
        return Err(FormatError::Bounds);
    }
    let mut entries = Vec::new();
    for _ in 0..count {
        let key = (
            d.u64_le().ok_or(FormatError::Truncated)?,
            d.u64_le().ok_or(FormatError::Truncated)?,
        );
        let slot = Slot {
            pos: d.u64_le().ok_or(FormatError::Truncated)?,
            len: d.u32_le().ok_or(FormatError::Truncated)?,
            crc: d.u32_le().ok_or(FormatError::Truncated)?,
        };
        let end = slot.pos.checked_add(slot.entry_len());
        if slot.pos < HEADER_REGION || end.is_none_or(|end| end > capacity) {
            return Err(FormatError::Bounds);
        }
        entries.push((key, slot));
    }
    if !d.is_empty() {
        return Err(FormatError::Truncated);
    }
    Ok(Index { head, entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_names_what_does_not_match() {
        let header = FileHeader {
            capacity: 1 << 20,
            nonce: 9,
        };
        let bytes = header.encode();
        assert_eq!(FileHeader::decode(&bytes, 1 << 20), Ok(header));
        assert_eq!(
            FileHeader::decode(&bytes, 2 << 20),
            Err(FormatError::Capacity {
                configured: 2 << 20,
                stored: 1 << 20
            })
        );
        let mut other_version = bytes.clone();
        other_version[8] = 2;
        assert_eq!(
            FileHeader::decode(&other_version, 1 << 20),
            Err(FormatError::Version(2))
        );
        let mut flipped = bytes.clone();
        flipped[30] ^= 1;
        assert_eq!(
            FileHeader::decode(&flipped, 1 << 20),
            Err(FormatError::Checksum)
        );
        assert_eq!(
            FileHeader::decode(&bytes[..20], 1 << 20),
            Err(FormatError::Truncated)
        );
        assert_eq!(
            FileHeader::decode(&[0u8; 40], 1 << 20),
            Err(FormatError::Magic)
        );
    }

    #[test]
    fn an_entry_is_returned_only_for_its_own_key_and_bytes() {
        let (entry, crc) = encode_entry((5, 64), b"block bytes");
        let slot = Slot {
            pos: HEADER_REGION,
            len: 11,
            crc,
        };
        assert_eq!(
            decode_entry(entry.clone(), (5, 64), &slot).as_deref(),
            Some(&b"block bytes"[..])
        );
        assert_eq!(
            decode_entry(entry.clone(), (5, 65), &slot),
            None,
            "other key"
        );
        assert_eq!(
            decode_entry(entry.clone(), (6, 64), &slot),
            None,
            "other table"
        );
        let mut flipped = entry.clone();
        flipped[ENTRY_HEADER_LEN + 3] ^= 1;
        assert_eq!(decode_entry(flipped, (5, 64), &slot), None, "damaged body");
        let stale = Slot {
            crc: crc ^ 1,
            ..slot
        };
        assert_eq!(
            decode_entry(entry, (5, 64), &stale),
            None,
            "another write's CRC"
        );
    }

    #[test]
    fn an_index_round_trips_and_is_refused_for_another_file() {
        let index = Index {
            head: HEADER_REGION + 100,
            entries: vec![(
                (1, 2),
                Slot {
                    pos: HEADER_REGION,
                    len: 68,
                    crc: 3,
                },
            )],
        };
        let bytes = encode_index(1 << 20, 7, &index);
        assert_eq!(decode_index(&bytes, 1 << 20, 7), Ok(index.clone()));
        assert_eq!(decode_index(&bytes, 1 << 20, 8), Err(FormatError::Nonce));
        assert!(matches!(
            decode_index(&bytes, 2 << 20, 7),
            Err(FormatError::Capacity { .. })
        ));
        assert_eq!(
            decode_index(&bytes[..bytes.len() - 1], 1 << 20, 7),
            Err(FormatError::Checksum)
        );
        let outside = encode_index(HEADER_REGION + 50, 7, &index);
        assert_eq!(
            decode_index(&outside, HEADER_REGION + 50, 7),
            Err(FormatError::Bounds)
        );
    }
}
