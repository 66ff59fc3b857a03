//! Byte layout of a manifest file (format version 1; spec in `docs/format.md`, "Store manifest").
//!
//! ```text
//! 0   magic "STRATAMF"            8 bytes
//! 8   format version              u32 LE (= 1)
//! 12  total file length           u32 LE (header + body + trailing CRC)
//! 16  manifest number             u64 LE (equals the number in the file name)
//! 24  header CRC32C of bytes 0..24  u32 LE
//! 28  body: tagged fields (see `fields.rs`)
//! end-4  CRC32C of every preceding byte  u32 LE
//! ```
//!
//! The header has its own CRC so that a flipped length field cannot make a complete file
//! look truncated (which would wrongly select the crash fallback in `Manifest::open`).

use super::fields::{
    put_bytes_field, put_i64_field, put_varint_field, require, Defect, FieldReader,
};
use super::state::{FileOrigin, ManifestState, RowRange, StoreFileEntry, FORMAT_VERSION};
use crate::error::{Error, Result};
use crate::util::coding::{put_u32_le, put_u64_le, Decoder};
use crate::util::crc::crc32c;

/// First bytes of every manifest file.
pub const MAGIC: &[u8; 8] = b"STRATAMF";
/// Length of the fixed header, including its CRC.
pub const HEADER_LEN: usize = 28;
/// Length of the trailing whole-file CRC.
const TRAILER_LEN: usize = 4;
/// Manifests hold tens of file entries; anything near this size is damage, and the cap
/// keeps a bad length from driving a huge read.
pub const MAX_MANIFEST_LEN: u64 = 64 << 20;

// Store-level body tags.
const TAG_FLUSHED_SEQ: u64 = 1;
const TAG_NEXT_FILE_NUMBER: u64 = 2;
const TAG_FILE: u64 = 3;
const STATE_TAGS: &[u64] = &[TAG_FLUSHED_SEQ, TAG_NEXT_FILE_NUMBER, TAG_FILE];

// Tags inside a TAG_FILE payload.
const F_NUMBER: u64 = 1;
const F_VOLUME: u64 = 2;
const F_PATH: u64 = 3;
const F_SIZE: u64 = 4;
const F_ENTRIES: u64 = 5;
const F_MIN_TS: u64 = 6;
const F_MAX_TS: u64 = 7;
const F_MAX_SEQ: u64 = 8;
const F_FIRST_KEY: u64 = 9;
const F_LAST_KEY: u64 = 10;
const F_ORIGIN: u64 = 11;
const F_CREATED_AT: u64 = 12;
// A reference's row range. Must-understand on purpose: a reader that skipped them would read
// the whole parent file and return the sibling daughter's rows as this region's.
const F_RANGE_START: u64 = 13;
const F_RANGE_END: u64 = 14;
const FILE_TAGS: &[u64] = &[
    F_NUMBER,
    F_VOLUME,
    F_PATH,
    F_SIZE,
    F_ENTRIES,
    F_MIN_TS,
    F_MAX_TS,
    F_MAX_SEQ,
    F_FIRST_KEY,
    F_LAST_KEY,
    F_ORIGIN,
    F_CREATED_AT,
    F_RANGE_START,
    F_RANGE_END,
];

/// A successfully decoded manifest file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedManifest {
    /// The manifest number from the header.
    pub manifest_number: u64,
    /// The store state the file records.
    pub state: ManifestState,
}

/// Encodes `state` as manifest number `number`. Fails only if the state is too large for
/// the format (over [`MAX_MANIFEST_LEN`]).
pub fn encode_manifest(number: u64, state: &ManifestState) -> Result<Vec<u8>> {
    frame(state.format_version, number, &encode_body(state))
}

/// Wraps an encoded body in the header and trailing CRC.
fn frame(version: u32, number: u64, body: &[u8]) -> Result<Vec<u8>> {
    let total = HEADER_LEN as u64 + body.len() as u64 + TRAILER_LEN as u64;
    if total > MAX_MANIFEST_LEN {
        return Err(Error::InvalidArgument(format!(
            "manifest of {total} bytes exceeds the {MAX_MANIFEST_LEN}-byte limit"
        )));
    }
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(MAGIC);
    put_u32_le(&mut out, version);
    put_u32_le(&mut out, total as u32); // fits: checked against MAX_MANIFEST_LEN above
    put_u64_le(&mut out, number);
    let header_crc = crc32c(&out);
    put_u32_le(&mut out, header_crc);
    out.extend_from_slice(body);
    let file_crc = crc32c(&out);
    put_u32_le(&mut out, file_crc);
    Ok(out)
}

fn encode_body(state: &ManifestState) -> Vec<u8> {
    let mut body = Vec::new();
    put_varint_field(&mut body, TAG_FLUSHED_SEQ, state.flushed_seq);
    put_varint_field(&mut body, TAG_NEXT_FILE_NUMBER, state.next_file_number);
    for file in &state.files {
        put_bytes_field(&mut body, TAG_FILE, &encode_file(file));
    }
    body
}

pub(crate) fn encode_file(f: &StoreFileEntry) -> Vec<u8> {
    let mut b = Vec::new();
    put_varint_field(&mut b, F_NUMBER, f.file_number);
    put_bytes_field(&mut b, F_VOLUME, f.volume.as_bytes());
    put_bytes_field(&mut b, F_PATH, f.relative_path.as_bytes());
    put_varint_field(&mut b, F_SIZE, f.size);
    put_varint_field(&mut b, F_ENTRIES, f.entries);
    put_i64_field(&mut b, F_MIN_TS, f.min_ts);
    put_i64_field(&mut b, F_MAX_TS, f.max_ts);
    put_varint_field(&mut b, F_MAX_SEQ, f.max_seq);
    put_bytes_field(&mut b, F_FIRST_KEY, &f.first_key);
    put_bytes_field(&mut b, F_LAST_KEY, &f.last_key);
    put_varint_field(&mut b, F_ORIGIN, f.origin.code());
    put_i64_field(&mut b, F_CREATED_AT, f.created_at_ms);
    if let Some(range) = &f.range {
        put_bytes_field(&mut b, F_RANGE_START, &range.start);
        put_bytes_field(&mut b, F_RANGE_END, &range.end);
    }
    b
}

/// Decodes a whole manifest file. `path` only names the file in errors; every defect,
/// including truncation, is an [`Error::Corruption`] with the offset of the problem.
#[cfg(test)]
pub fn decode_manifest(path: &std::path::Path, bytes: &[u8]) -> Result<DecodedManifest> {
    inspect(bytes).map_err(|d| Error::corruption(path, d.offset, d.reason))
}

/// Decodes a manifest, telling torn writes (`Defect::torn`) apart from damage.
pub(crate) fn inspect(bytes: &[u8]) -> std::result::Result<DecodedManifest, Defect> {
    let len = bytes.len() as u64;
    if bytes.len() < HEADER_LEN {
        return Err(Defect::torn(
            len,
            format!("truncated: {len} bytes, header needs {HEADER_LEN}"),
        ));
    }
    // A crash can persist a file's size before its data, leaving only zeros.
    if bytes.iter().all(|&b| b == 0) {
        return Err(Defect::torn(0, "file is all zero bytes (unwritten)"));
    }
    let (number, total) = check_header(bytes)?;
    if len < total {
        return Err(Defect::torn(
            len,
            format!("truncated: {len} of {total} bytes"),
        ));
    }
    if len > total {
        return Err(Defect::corrupt(
            total,
            format!("{} bytes after the declared end", len - total),
        ));
    }
    let crc_at = bytes.len() - TRAILER_LEN;
    let stored = Decoder::new(&bytes[crc_at..]).u32_le();
    if stored != Some(crc32c(&bytes[..crc_at])) {
        return Err(Defect::corrupt(crc_at as u64, "manifest checksum mismatch"));
    }
    let state = decode_body(&bytes[HEADER_LEN..crc_at])?;
    if let Some(reason) = state.invariant_violation() {
        return Err(Defect::corrupt(HEADER_LEN as u64, reason));
    }
    Ok(DecodedManifest {
        manifest_number: number,
        state,
    })
}

/// Validates the fixed header, returning (manifest number, total length).
fn check_header(bytes: &[u8]) -> std::result::Result<(u64, u64), Defect> {
    let mut d = Decoder::new(&bytes[..HEADER_LEN]);
    let bad = |offset: u64, reason: &str| Defect::corrupt(offset, reason);
    if d.bytes(MAGIC.len()) != Some(MAGIC.as_slice()) {
        return Err(bad(0, "bad magic: not a manifest file"));
    }
    let version = d.u32_le().ok_or_else(|| bad(8, "short header"))?;
    let total = d.u32_le().ok_or_else(|| bad(12, "short header"))?;
    let number = d.u64_le().ok_or_else(|| bad(16, "short header"))?;
    let header_crc = d.u32_le().ok_or_else(|| bad(24, "short header"))?;
    if header_crc != crc32c(&bytes[..HEADER_LEN - 4]) {
        return Err(bad(24, "header checksum mismatch"));
    }
    if version != FORMAT_VERSION {
        return Err(Defect::corrupt(
            8,
            format!("unsupported format version {version}"),
        ));
    }
    let total = u64::from(total);
    if total < (HEADER_LEN + TRAILER_LEN) as u64 || total > MAX_MANIFEST_LEN {
        return Err(Defect::corrupt(
            12,
            format!("impossible total length {total}"),
        ));
    }
    Ok((number, total))
}

fn decode_body(body: &[u8]) -> std::result::Result<ManifestState, Defect> {
    let base = HEADER_LEN as u64;
    let mut reader = FieldReader::new(body, base, STATE_TAGS).with_repeatable(&[TAG_FILE]);
    let (mut flushed_seq, mut next_file_number, mut files) = (None, None, Vec::new());
    while let Some(field) = reader.next_field()? {
        match field.tag {
            TAG_FLUSHED_SEQ => flushed_seq = Some(field.varint()?),
            TAG_NEXT_FILE_NUMBER => next_file_number = Some(field.varint()?),
            TAG_FILE => files.push(decode_file(field.payload, field.offset)?),
            _ => {} // FieldReader yields only the tags listed in STATE_TAGS
        }
    }
    let end = base + body.len() as u64;
    Ok(ManifestState {
        format_version: FORMAT_VERSION,
        flushed_seq: require(flushed_seq, "flushed_seq", end)?,
        next_file_number: require(next_file_number, "next_file_number", end)?,
        files,
    })
}

/// Every file-entry field, as read; all are required in version 1.
#[derive(Default)]
struct FileFields {
    number: Option<u64>,
    volume: Option<String>,
    path: Option<String>,
    size: Option<u64>,
    entries: Option<u64>,
    min_ts: Option<i64>,
    max_ts: Option<i64>,
    max_seq: Option<u64>,
    first_key: Option<Vec<u8>>,
    last_key: Option<Vec<u8>>,
    origin: Option<FileOrigin>,
    created_at: Option<i64>,
    range_start: Option<Vec<u8>>,
    range_end: Option<Vec<u8>>,
}

pub(crate) fn decode_file(data: &[u8], base: u64) -> std::result::Result<StoreFileEntry, Defect> {
    let mut reader = FieldReader::new(data, base, FILE_TAGS);
    let mut f = FileFields::default();
    while let Some(field) = reader.next_field()? {
        match field.tag {
            F_NUMBER => f.number = Some(field.varint()?),
            F_VOLUME => f.volume = Some(field.string()?),
            F_PATH => f.path = Some(field.string()?),
            F_SIZE => f.size = Some(field.varint()?),
            F_ENTRIES => f.entries = Some(field.varint()?),
            F_MIN_TS => f.min_ts = Some(field.i64()?),
            F_MAX_TS => f.max_ts = Some(field.i64()?),
            F_MAX_SEQ => f.max_seq = Some(field.varint()?),
            F_FIRST_KEY => f.first_key = Some(field.payload.to_vec()),
            F_LAST_KEY => f.last_key = Some(field.payload.to_vec()),
            F_ORIGIN => f.origin = Some(decode_origin(field.varint()?, field.offset)?),
            F_CREATED_AT => f.created_at = Some(field.i64()?),
            F_RANGE_START => f.range_start = Some(field.payload.to_vec()),
            F_RANGE_END => f.range_end = Some(field.payload.to_vec()),
            _ => {} // FieldReader yields only the tags listed in FILE_TAGS
        }
    }
    let end = base + data.len() as u64;
    let range = match (f.range_start, f.range_end) {
        (None, None) => None,
        (Some(start), Some(stop)) => Some(RowRange { start, end: stop }),
        _ => return Err(Defect::corrupt(end, "a reference needs both range bounds")),
    };
    Ok(StoreFileEntry {
        file_number: require(f.number, "file_number", end)?,
        volume: require(f.volume, "volume", end)?,
        relative_path: require(f.path, "relative_path", end)?,
        size: require(f.size, "size", end)?,
        entries: require(f.entries, "entries", end)?,
        min_ts: require(f.min_ts, "min_ts", end)?,
        max_ts: require(f.max_ts, "max_ts", end)?,
        max_seq: require(f.max_seq, "max_seq", end)?,
        first_key: require(f.first_key, "first_key", end)?,
        last_key: require(f.last_key, "last_key", end)?,
        origin: require(f.origin, "origin", end)?,
        created_at_ms: require(f.created_at, "created_at_ms", end)?,
        range,
    })
}

fn decode_origin(code: u64, offset: u64) -> std::result::Result<FileOrigin, Defect> {
    FileOrigin::from_code(code)
        .ok_or_else(|| Defect::corrupt(offset, format!("unknown file origin {code}")))
}

#[cfg(test)]
mod tests;
