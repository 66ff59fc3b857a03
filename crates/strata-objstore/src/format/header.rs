//! The fixed 68-byte header that opens every WAL object, and the whole of a fence object.

use strata_engine::codec::crc32c;

use super::{le_u32, le_u64};
use crate::error::{Error, Result};
use crate::token::WriterToken;

/// First bytes of every WAL object.
pub const HEADER_MAGIC: [u8; 8] = *b"STRATWLO";
/// The object format version this code writes and reads.
pub const OBJECT_FORMAT_VERSION: u32 = 1;
/// Bytes in a header, its checksum included.
pub const HEADER_LEN: usize = 68;
const CRC_AT: usize = HEADER_LEN - 4;

/// What an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// A group-commit batch: sections, footer and trailer follow the header.
    Batch,
    /// A fence: the header alone, written by whoever sealed the stream.
    Fence,
}

impl ObjectKind {
    fn code(self) -> u8 {
        match self {
            ObjectKind::Batch => 1,
            ObjectKind::Fence => 2,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(ObjectKind::Batch),
            2 => Some(ObjectKind::Fence),
            _ => None,
        }
    }
}

/// Who wrote an object, where it sits in its stream, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectHeader {
    pub kind: ObjectKind,
    /// The server whose stream this is (a fence carries the fenced stream's server).
    pub server_id: u64,
    pub incarnation: u64,
    /// The object's position in its stream; equals the id in its key.
    pub object_id: u64,
    /// The writer's token for this object: compared after an ambiguous PUT.
    pub token: WriterToken,
    /// Wall-clock time of writing, from the injected clock; informational (GC ages).
    pub created_at_ms: i64,
}

impl ObjectHeader {
    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0..8].copy_from_slice(&HEADER_MAGIC);
        out[8..12].copy_from_slice(&OBJECT_FORMAT_VERSION.to_le_bytes());
        out[12] = self.kind.code();
        out[16..24].copy_from_slice(&self.server_id.to_le_bytes());
        out[24..32].copy_from_slice(&self.incarnation.to_le_bytes());
        out[32..40].copy_from_slice(&self.object_id.to_le_bytes());
        out[40..56].copy_from_slice(&self.token.0);
        out[56..64].copy_from_slice(&self.created_at_ms.to_le_bytes());
        let crc = crc32c(&out[..CRC_AT]);
        out[CRC_AT..].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Decodes the header at the start of `bytes`; `object` names the object in errors.
    pub fn decode(bytes: &[u8], object: &str) -> Result<ObjectHeader> {
        let bad = |offset: u64, why: String| Error::corruption(object, offset, why);
        let header = bytes.get(..HEADER_LEN).ok_or_else(|| {
            bad(
                0,
                format!("header is {} bytes, expected {HEADER_LEN}", bytes.len()),
            )
        })?;
        if header[0..8] != HEADER_MAGIC {
            return Err(bad(0, "bad WAL object magic".into()));
        }
        if crc32c(&header[..CRC_AT]) != le_u32(&header[CRC_AT..]) {
            return Err(bad(CRC_AT as u64, "header checksum mismatch".into()));
        }
        let version = le_u32(&header[8..12]);
        if version != OBJECT_FORMAT_VERSION {
            return Err(bad(8, format!("unsupported WAL object version {version}")));
        }
        let kind = ObjectKind::from_code(header[12])
            .ok_or_else(|| bad(12, format!("unknown object kind {}", header[12])))?;
        let mut token = [0u8; 16];
        token.copy_from_slice(&header[40..56]);
        Ok(ObjectHeader {
            kind,
            server_id: le_u64(&header[16..24]),
            incarnation: le_u64(&header[24..32]),
            object_id: le_u64(&header[32..40]),
            token: WriterToken(token),
            created_at_ms: le_u64(&header[56..64]) as i64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ObjectHeader {
        ObjectHeader {
            kind: ObjectKind::Fence,
            server_id: 3,
            incarnation: 9,
            object_id: 42,
            token: WriterToken([7; 16]),
            created_at_ms: 1_700_000_000_000,
        }
    }

    #[test]
    fn round_trips() {
        let header = sample();
        assert_eq!(ObjectHeader::decode(&header.encode(), "o").unwrap(), header);
    }

    #[test]
    fn every_bit_flip_and_truncation_is_corruption_naming_the_object() {
        let bytes = sample().encode();
        for i in 0..HEADER_LEN {
            let mut bad = bytes;
            bad[i] ^= 0x04;
            let err = ObjectHeader::decode(&bad, "wal/obj").unwrap_err();
            assert!(err.to_string().contains("wal/obj"), "{err}");
            assert!(err.kind() == crate::ErrorKind::Corruption);
        }
        assert!(ObjectHeader::decode(&bytes[..HEADER_LEN - 1], "o").is_err());
    }
}
