//! Byte layout of a snapshot descriptor (version 1; spec in `docs/format.md`, "Snapshot
//! descriptor"). The same framing as a store manifest, with its own magic:
//!
//! ```text
//! 0   magic "STRATASN"              8 bytes
//! 8   format version                u32 LE (= 1)
//! 12  total file length             u32 LE (header + body + trailing CRC)
//! 16  header CRC32C of bytes 0..16  u32 LE
//! 20  body: tagged fields (manifest/fields.rs), nested for regions, stores and files
//! end-4  CRC32C of every preceding byte  u32 LE
//! ```
//!
//! A file entry inside is encoded exactly as in a store manifest.

use std::path::Path;

use super::{SnapshotDescriptor, SnapshotFile, SnapshotRegion, SnapshotStore};
use crate::error::{Error, Result};
use crate::manifest::fields::{
    put_bytes_field, put_i64_field, put_varint_field, require, Defect, FieldReader,
};
use crate::manifest::format::{decode_file, encode_file};
use crate::manifest::RowRange;
use crate::util::coding::{put_u32_le, Decoder};
use crate::util::crc::crc32c;

/// First bytes of every snapshot descriptor.
pub const MAGIC: &[u8; 8] = b"STRATASN";
/// The version this code writes and reads.
pub const VERSION: u32 = 1;
const HEADER_LEN: usize = 20;
const TRAILER_LEN: usize = 4;
/// A descriptor holds a few hundred bytes per file; this bounds what a damaged length can
/// make a reader allocate.
pub const MAX_DESCRIPTOR_LEN: u64 = 256 << 20;

// Body.
const T_NAME: u64 = 1;
const T_TABLE: u64 = 2;
const T_CREATED_AT: u64 = 3;
const T_REGION: u64 = 4;
const BODY_TAGS: &[u64] = &[T_NAME, T_TABLE, T_CREATED_AT, T_REGION];
// Inside a region.
const R_ID: u64 = 1;
const R_START: u64 = 2;
const R_END: u64 = 3;
const R_STORE: u64 = 4;
const REGION_TAGS: &[u64] = &[R_ID, R_START, R_END, R_STORE];
// Inside a store.
const S_FAMILY: u64 = 1;
const S_FILE: u64 = 2;
const STORE_TAGS: &[u64] = &[S_FAMILY, S_FILE];
// Inside a file.
const F_ENTRY: u64 = 1;
const F_ORIGIN_VOLUME: u64 = 2;
const F_ORIGIN_PATH: u64 = 3;
const FILE_TAGS: &[u64] = &[F_ENTRY, F_ORIGIN_VOLUME, F_ORIGIN_PATH];

/// Encodes a descriptor; fails only when it is larger than the format allows.
pub fn encode_descriptor(d: &SnapshotDescriptor) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    put_bytes_field(&mut body, T_NAME, d.name.as_bytes());
    put_bytes_field(&mut body, T_TABLE, &d.table);
    put_i64_field(&mut body, T_CREATED_AT, d.created_at_ms);
    for region in &d.regions {
        put_bytes_field(&mut body, T_REGION, &encode_region(region));
    }
    let total = (HEADER_LEN + body.len() + TRAILER_LEN) as u64;
    if total > MAX_DESCRIPTOR_LEN {
        return Err(Error::InvalidArgument(format!(
            "snapshot descriptor of {total} bytes exceeds the {MAX_DESCRIPTOR_LEN}-byte limit"
        )));
    }
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(MAGIC);
    put_u32_le(&mut out, VERSION);
    put_u32_le(&mut out, total as u32); // fits: at most MAX_DESCRIPTOR_LEN
    let header_crc = crc32c(&out);
    put_u32_le(&mut out, header_crc);
    out.extend_from_slice(&body);
    let crc = crc32c(&out);
    put_u32_le(&mut out, crc);
    Ok(out)
}

fn encode_region(r: &SnapshotRegion) -> Vec<u8> {
    let mut b = Vec::new();
    put_varint_field(&mut b, R_ID, r.id);
    put_bytes_field(&mut b, R_START, &r.rows.start);
    put_bytes_field(&mut b, R_END, &r.rows.end);
    for store in &r.stores {
        let mut s = Vec::new();
        put_bytes_field(&mut s, S_FAMILY, &store.family);
        for file in &store.files {
            let mut f = Vec::new();
            put_bytes_field(&mut f, F_ENTRY, &encode_file(&file.entry));
            put_bytes_field(&mut f, F_ORIGIN_VOLUME, file.origin_volume.as_bytes());
            put_bytes_field(&mut f, F_ORIGIN_PATH, file.origin_path.as_bytes());
            put_bytes_field(&mut s, S_FILE, &f);
        }
        put_bytes_field(&mut b, R_STORE, &s);
    }
    b
}

/// Decodes a whole descriptor; every defect (truncation included: a descriptor is renamed
/// into place complete) is [`Error::Corruption`] naming `path` and the offset.
pub fn decode_descriptor(path: &Path, bytes: &[u8]) -> Result<SnapshotDescriptor> {
    decode(bytes).map_err(|d| Error::corruption(path, d.offset, d.reason))
}

fn decode(bytes: &[u8]) -> std::result::Result<SnapshotDescriptor, Defect> {
    if bytes.len() < HEADER_LEN + TRAILER_LEN {
        return Err(Defect::corrupt(bytes.len() as u64, "shorter than a header"));
    }
    let mut d = Decoder::new(&bytes[..HEADER_LEN]);
    if d.bytes(MAGIC.len()) != Some(MAGIC.as_slice()) {
        return Err(Defect::corrupt(0, "bad magic: not a snapshot descriptor"));
    }
    let version = d.u32_le().unwrap_or(0);
    let total = d.u32_le().unwrap_or(0);
    let header_crc = d.u32_le().unwrap_or(0);
    if header_crc != crc32c(&bytes[..HEADER_LEN - 4]) {
        return Err(Defect::corrupt(16, "header checksum mismatch"));
    }
    if version != VERSION {
        return Err(Defect::corrupt(8, format!("unsupported version {version}")));
    }
    if u64::from(total) != bytes.len() as u64 {
        return Err(Defect::corrupt(
            12,
            format!("length {} is not the declared {total}", bytes.len()),
        ));
    }
    let crc_at = bytes.len() - TRAILER_LEN;
    if Decoder::new(&bytes[crc_at..]).u32_le() != Some(crc32c(&bytes[..crc_at])) {
        return Err(Defect::corrupt(crc_at as u64, "checksum mismatch"));
    }
    decode_body(&bytes[HEADER_LEN..crc_at], HEADER_LEN as u64)
}

fn decode_body(body: &[u8], base: u64) -> std::result::Result<SnapshotDescriptor, Defect> {
    let mut reader = FieldReader::new(body, base, BODY_TAGS).with_repeatable(&[T_REGION]);
    let (mut name, mut table, mut created_at, mut regions) = (None, None, None, Vec::new());
    while let Some(field) = reader.next_field()? {
        match field.tag {
            T_NAME => name = Some(field.string()?),
            T_TABLE => table = Some(field.payload.to_vec()),
            T_CREATED_AT => created_at = Some(field.i64()?),
            T_REGION => regions.push(decode_region(field.payload, field.offset)?),
            _ => {}
        }
    }
    let end = base + body.len() as u64;
    Ok(SnapshotDescriptor {
        name: require(name, "name", end)?,
        table: require(table, "table", end)?,
        created_at_ms: require(created_at, "created_at_ms", end)?,
        regions,
    })
}

fn decode_region(data: &[u8], base: u64) -> std::result::Result<SnapshotRegion, Defect> {
    let mut reader = FieldReader::new(data, base, REGION_TAGS).with_repeatable(&[R_STORE]);
    let (mut id, mut start, mut stop, mut stores) = (None, None, None, Vec::new());
    while let Some(field) = reader.next_field()? {
        match field.tag {
            R_ID => id = Some(field.varint()?),
            R_START => start = Some(field.payload.to_vec()),
            R_END => stop = Some(field.payload.to_vec()),
            R_STORE => stores.push(decode_store(field.payload, field.offset)?),
            _ => {}
        }
    }
    let end = base + data.len() as u64;
    Ok(SnapshotRegion {
        id: require(id, "region id", end)?,
        rows: RowRange {
            start: require(start, "region start", end)?,
            end: require(stop, "region end", end)?,
        },
        stores,
    })
}

fn decode_store(data: &[u8], base: u64) -> std::result::Result<SnapshotStore, Defect> {
    let mut reader = FieldReader::new(data, base, STORE_TAGS).with_repeatable(&[S_FILE]);
    let (mut family, mut files) = (None, Vec::new());
    while let Some(field) = reader.next_field()? {
        match field.tag {
            S_FAMILY => family = Some(field.payload.to_vec()),
            S_FILE => files.push(decode_snapshot_file(field.payload, field.offset)?),
            _ => {}
        }
    }
    Ok(SnapshotStore {
        family: require(family, "family", base + data.len() as u64)?,
        files,
    })
}

fn decode_snapshot_file(data: &[u8], base: u64) -> std::result::Result<SnapshotFile, Defect> {
    let mut reader = FieldReader::new(data, base, FILE_TAGS);
    let (mut entry, mut volume, mut path) = (None, None, None);
    while let Some(field) = reader.next_field()? {
        match field.tag {
            F_ENTRY => entry = Some(decode_file(field.payload, field.offset)?),
            F_ORIGIN_VOLUME => volume = Some(field.string()?),
            F_ORIGIN_PATH => path = Some(field.string()?),
            _ => {}
        }
    }
    let end = base + data.len() as u64;
    Ok(SnapshotFile {
        entry: require(entry, "file entry", end)?,
        origin_volume: require(volume, "origin volume", end)?,
        origin_path: require(path, "origin path", end)?,
    })
}
