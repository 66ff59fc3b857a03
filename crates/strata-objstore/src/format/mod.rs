//! WAL object format version 1 (the byte-level spec is `docs/format.md`, "WAL objects").
//!
//! ```text
//! object  := header section* footer trailer        (a batch object)
//! fence   := header                                (kind = fence, no sections)
//! header  := magic "STRATWLO" | version u32 | kind u8 | 0[3] | server_id u64
//!            | incarnation u64 | object_id u64 | writer_token [16] | created_at_ms i64
//!            | crc u32                             (68 bytes)
//! section := record*      one region's edits; a record is the engine's WAL v1 framing
//! footer  := count u32 | (region_id, offset, len, min_seq, max_seq u64 | records u32)*
//!            | crc u32
//! trailer := footer_offset u64 | footer_len u32 | magic "STRATWLT" | crc u32   (24 bytes)
//! ```
//!
//! Integers are little-endian; every CRC is CRC32C. A reader fetches the header and the
//! trailer, then the footer, then only the byte ranges of the regions it wants.

mod builder;
mod footer;
mod header;
mod section;

pub use builder::WalObjectBuilder;
pub use footer::{decode_footer, encode_footer, SectionEntry, Trailer, TRAILER_LEN};
pub use header::{ObjectHeader, ObjectKind, HEADER_LEN, OBJECT_FORMAT_VERSION};
pub use section::decode_section;

pub(crate) fn le_u32(bytes: &[u8]) -> u32 {
    let mut raw = [0u8; 4];
    raw.copy_from_slice(bytes);
    u32::from_le_bytes(raw)
}

pub(crate) fn le_u64(bytes: &[u8]) -> u64 {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(bytes);
    u64::from_le_bytes(raw)
}
