//! The footer index (one entry per region section) and the fixed trailer that locates it.

use strata_engine::codec::crc32c;

use super::{le_u32, le_u64};
use crate::error::{Error, Result};

/// Last bytes of every batch object.
pub const TRAILER_MAGIC: [u8; 8] = *b"STRATWLT";
/// Bytes in the trailer.
pub const TRAILER_LEN: usize = 24;
const ENTRY_LEN: usize = 5 * 8 + 4;
/// A footer longer than this is damage, not data: checked before anything is allocated.
const MAX_FOOTER_LEN: u64 = 64 << 20;

/// Where one region's edits sit in an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionEntry {
    pub region_id: u64,
    /// Offset of the section from the start of the object.
    pub offset: u64,
    pub len: u64,
    /// The smallest and largest edit seq in the section.
    pub min_seq: u64,
    pub max_seq: u64,
    /// How many records the section holds.
    pub records: u32,
}

/// The footer's bytes, entries in the order given (the builder sorts them by region).
pub fn encode_footer(entries: &[SectionEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + entries.len() * ENTRY_LEN + 4);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        for v in [e.region_id, e.offset, e.len, e.min_seq, e.max_seq] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&e.records.to_le_bytes());
    }
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Decodes a footer read from `offset` of `object`, and checks that every section lies
/// between the header and the footer.
pub fn decode_footer(bytes: &[u8], object: &str, offset: u64) -> Result<Vec<SectionEntry>> {
    let bad = |at: usize, why: String| Error::corruption(object, offset + at as u64, why);
    if bytes.len() < 8 {
        return Err(bad(0, format!("footer is {} bytes", bytes.len())));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32c(body) != le_u32(crc) {
        return Err(bad(body.len(), "footer checksum mismatch".into()));
    }
    let count = le_u32(&body[..4]) as usize;
    if body.len() != 4 + count * ENTRY_LEN {
        return Err(bad(
            0,
            format!("footer of {count} entries is {} bytes", bytes.len()),
        ));
    }
    let entries: Vec<SectionEntry> = body[4..]
        .chunks_exact(ENTRY_LEN)
        .map(decode_entry)
        .collect();
    for (i, e) in entries.iter().enumerate() {
        let end = e.offset.checked_add(e.len);
        if e.offset < super::HEADER_LEN as u64 || end.is_none_or(|end| end > offset) {
            return Err(bad(
                4 + i * ENTRY_LEN,
                format!("section {i} is out of bounds"),
            ));
        }
    }
    Ok(entries)
}

fn decode_entry(raw: &[u8]) -> SectionEntry {
    SectionEntry {
        region_id: le_u64(&raw[0..8]),
        offset: le_u64(&raw[8..16]),
        len: le_u64(&raw[16..24]),
        min_seq: le_u64(&raw[24..32]),
        max_seq: le_u64(&raw[32..40]),
        records: le_u32(&raw[40..44]),
    }
}

/// Locates the footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    pub footer_offset: u64,
    pub footer_len: u32,
}

impl Trailer {
    /// The trailer's bytes.
    pub fn encode(&self) -> [u8; TRAILER_LEN] {
        let mut out = [0u8; TRAILER_LEN];
        out[0..8].copy_from_slice(&self.footer_offset.to_le_bytes());
        out[8..12].copy_from_slice(&self.footer_len.to_le_bytes());
        out[12..20].copy_from_slice(&TRAILER_MAGIC);
        let crc = crc32c(&out[..20]);
        out[20..24].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Decodes the last [`TRAILER_LEN`] bytes of an object of `object_len` bytes.
    pub fn decode(bytes: &[u8], object: &str, object_len: u64) -> Result<Trailer> {
        let at = object_len.saturating_sub(TRAILER_LEN as u64);
        let bad = |rel: u64, why: String| Error::corruption(object, at + rel, why);
        if bytes.len() != TRAILER_LEN {
            return Err(bad(0, format!("trailer is {} bytes", bytes.len())));
        }
        if bytes[12..20] != TRAILER_MAGIC {
            return Err(bad(12, "bad trailer magic".into()));
        }
        if crc32c(&bytes[..20]) != le_u32(&bytes[20..24]) {
            return Err(bad(20, "trailer checksum mismatch".into()));
        }
        let trailer = Trailer {
            footer_offset: le_u64(&bytes[0..8]),
            footer_len: le_u32(&bytes[8..12]),
        };
        let footer_end = trailer.footer_offset + u64::from(trailer.footer_len);
        if u64::from(trailer.footer_len) > MAX_FOOTER_LEN || footer_end != at {
            return Err(bad(0, "footer location does not end at the trailer".into()));
        }
        Ok(trailer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn footer_and_trailer_round_trip_and_detect_damage() {
        let entries = vec![SectionEntry {
            region_id: 5,
            offset: 68,
            len: 10,
            min_seq: 1,
            max_seq: 2,
            records: 2,
        }];
        let footer = encode_footer(&entries);
        assert_eq!(decode_footer(&footer, "o", 78).unwrap(), entries);
        assert!(
            decode_footer(&footer, "o", 77).is_err(),
            "section past the footer"
        );
        for i in 0..footer.len() {
            let mut bad = footer.clone();
            bad[i] ^= 1;
            assert!(decode_footer(&bad, "o", 78).is_err(), "flip at {i}");
        }
        let trailer = Trailer {
            footer_offset: 78,
            footer_len: footer.len() as u32,
        };
        let len = 78 + footer.len() as u64 + TRAILER_LEN as u64;
        assert_eq!(
            Trailer::decode(&trailer.encode(), "o", len).unwrap(),
            trailer
        );
        for i in 0..TRAILER_LEN {
            let mut bad = trailer.encode();
            bad[i] ^= 1;
            let err = Trailer::decode(&bad, "wal/o", len).unwrap_err().to_string();
            assert!(err.contains("wal/o"), "{err}");
        }
    }
}
