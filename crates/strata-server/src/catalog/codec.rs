//! The byte encoding of catalog records: a table's families, its enabled flag, its regions
//! and (from version 2) its DURABILITY. Stored as cell values in the catalog region, so the
//! engine's checksums and WAL protect them; this layer only has to be unambiguous and
//! versioned (the layout is in docs/format.md).

use bytes::Bytes;
use strata_engine::options::{BloomType, Compression, DataBlockEncoding, KeepDeletedCells};
use strata_engine::util::coding::{put_len_prefixed, put_varint, Decoder};
use strata_engine::FamilyOptions;

use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};

/// Families, enabled flag and regions.
const VERSION_1: u8 = 1;
/// Version 1 followed by the table's DURABILITY byte.
const VERSION_2: u8 = 2;

/// One region of a table: its id in the engine and its row range `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionEntry {
    pub id: u64,
    pub start_key: Bytes,
    /// Empty means "to the end of the table".
    pub end_key: Bytes,
}

/// Everything the catalog stores about a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRecord {
    pub families: Vec<FamilyOptions>,
    pub enabled: bool,
    pub regions: Vec<RegionEntry>,
    /// The table's DURABILITY attribute (`USE_DEFAULT` in records written before it existed).
    pub durability: WriteDurability,
}

fn put_family(buf: &mut Vec<u8>, f: &FamilyOptions) {
    put_len_prefixed(buf, &f.name);
    put_varint(buf, u64::from(f.max_versions));
    put_varint(buf, u64::from(f.min_versions));
    put_varint(buf, f.ttl_seconds.map_or(0, |s| s.saturating_add(1)));
    buf.push(match f.keep_deleted_cells {
        KeepDeletedCells::False => 0,
        KeepDeletedCells::True => 1,
        KeepDeletedCells::Ttl => 2,
    });
    put_varint(buf, f.block_size as u64);
    buf.push(match f.compression {
        Compression::None => 0,
        Compression::Lz4 => 1,
        Compression::Zstd => 2,
        Compression::Snappy => 3,
        Compression::Gz => 4,
    });
    buf.push(match f.data_block_encoding {
        DataBlockEncoding::None => 0,
        DataBlockEncoding::Prefix => 1,
    });
    buf.push(match f.bloom_type {
        BloomType::None => 0,
        BloomType::Row => 1,
        BloomType::RowCol => 2,
    });
    buf.push(u8::from(f.block_cache_enabled));
    buf.push(u8::from(f.in_memory));
}

fn durability_code(d: WriteDurability) -> u8 {
    match d {
        WriteDurability::UseDefault => 0,
        WriteDurability::SkipWal => 1,
        WriteDurability::AsyncWal => 2,
        WriteDurability::SyncWal => 3,
        WriteDurability::FsyncWal => 4,
    }
}

fn durability_of_code(code: u8) -> Option<WriteDurability> {
    Some(match code {
        0 => WriteDurability::UseDefault,
        1 => WriteDurability::SkipWal,
        2 => WriteDurability::AsyncWal,
        3 => WriteDurability::SyncWal,
        4 => WriteDurability::FsyncWal,
        _ => return None,
    })
}

/// Encodes a table record. A table without a DURABILITY keeps the version 1 layout, so a
/// Strata that predates the attribute can still read its catalog.
pub fn encode_table(record: &TableRecord) -> Vec<u8> {
    let version = if record.durability == WriteDurability::UseDefault {
        VERSION_1
    } else {
        VERSION_2
    };
    let mut buf = vec![version, u8::from(record.enabled)];
    put_varint(&mut buf, record.families.len() as u64);
    for f in &record.families {
        put_family(&mut buf, f);
    }
    put_varint(&mut buf, record.regions.len() as u64);
    for r in &record.regions {
        put_varint(&mut buf, r.id);
        put_len_prefixed(&mut buf, &r.start_key);
        put_len_prefixed(&mut buf, &r.end_key);
    }
    if version == VERSION_2 {
        buf.push(durability_code(record.durability));
    }
    buf
}

fn bad(what: &str) -> ServiceError {
    ServiceError::CatalogCorrupt(format!("table record: {what}"))
}

fn get_family(d: &mut Decoder) -> Option<FamilyOptions> {
    let mut f = FamilyOptions::new(d.len_prefixed()?.to_vec());
    f.max_versions = u32::try_from(d.varint()?).ok()?;
    f.min_versions = u32::try_from(d.varint()?).ok()?;
    f.ttl_seconds = d.varint()?.checked_sub(1);
    f.keep_deleted_cells = match d.u8()? {
        0 => KeepDeletedCells::False,
        1 => KeepDeletedCells::True,
        2 => KeepDeletedCells::Ttl,
        _ => return None,
    };
    f.block_size = usize::try_from(d.varint()?).ok()?;
    f.compression = match d.u8()? {
        0 => Compression::None,
        1 => Compression::Lz4,
        2 => Compression::Zstd,
        3 => Compression::Snappy,
        4 => Compression::Gz,
        _ => return None,
    };
    f.data_block_encoding = match d.u8()? {
        0 => DataBlockEncoding::None,
        1 => DataBlockEncoding::Prefix,
        _ => return None,
    };
    f.bloom_type = match d.u8()? {
        0 => BloomType::None,
        1 => BloomType::Row,
        2 => BloomType::RowCol,
        _ => return None,
    };
    f.block_cache_enabled = d.u8()? != 0;
    f.in_memory = d.u8()? != 0;
    Some(f)
}

/// Decodes a table record; anything malformed is `CatalogCorrupt`.
pub fn decode_table(bytes: &[u8]) -> Result<TableRecord> {
    let mut d = Decoder::new(bytes);
    let version = d.u8().ok_or_else(|| bad("truncated"))?;
    if version != VERSION_1 && version != VERSION_2 {
        return Err(bad("unknown version"));
    }
    let enabled = d.u8().ok_or_else(|| bad("truncated"))? != 0;
    let count = d.varint().ok_or_else(|| bad("truncated"))?;
    let mut families = Vec::new();
    for _ in 0..count.min(1 << 16) {
        families.push(get_family(&mut d).ok_or_else(|| bad("bad family"))?);
    }
    let count = d.varint().ok_or_else(|| bad("truncated"))?;
    let mut regions = Vec::new();
    for _ in 0..count.min(1 << 20) {
        let id = d.varint().ok_or_else(|| bad("bad region"))?;
        let start = d.len_prefixed().ok_or_else(|| bad("bad region"))?;
        let end = d.len_prefixed().ok_or_else(|| bad("bad region"))?;
        regions.push(RegionEntry {
            id,
            start_key: Bytes::copy_from_slice(start),
            end_key: Bytes::copy_from_slice(end),
        });
    }
    let durability = if version == VERSION_2 {
        let code = d.u8().ok_or_else(|| bad("truncated"))?;
        durability_of_code(code).ok_or_else(|| bad("unknown durability"))?
    } else {
        WriteDurability::UseDefault
    };
    if !d.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(TableRecord {
        families,
        enabled,
        regions,
        durability,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_every_setting() {
        let mut f = FamilyOptions::new("cf");
        f.max_versions = 3;
        f.min_versions = 1;
        f.ttl_seconds = Some(0);
        f.keep_deleted_cells = KeepDeletedCells::Ttl;
        f.compression = Compression::Zstd;
        f.data_block_encoding = DataBlockEncoding::None;
        f.bloom_type = BloomType::RowCol;
        f.block_cache_enabled = false;
        f.in_memory = true;
        let record = TableRecord {
            families: vec![f, FamilyOptions::new("other")],
            enabled: false,
            regions: vec![RegionEntry {
                id: 7,
                start_key: Bytes::new(),
                end_key: Bytes::from_static(b"m"),
            }],
            durability: WriteDurability::AsyncWal,
        };
        assert_eq!(decode_table(&encode_table(&record)).unwrap(), record);
    }

    fn one_region_table(durability: WriteDurability) -> TableRecord {
        TableRecord {
            families: vec![FamilyOptions::new("cf")],
            enabled: true,
            regions: vec![RegionEntry {
                id: 5,
                start_key: Bytes::new(),
                end_key: Bytes::new(),
            }],
            durability,
        }
    }

    /// A version 1 record as Strata wrote it before DURABILITY existed.
    const VERSION_1_RECORD: &[u8] = &[
        1, 1, // version 1, enabled
        1, 2, b'c', b'f', // one family, "cf"
        1, 0, 0, 0, // 1 version, 0 min versions, no TTL, KEEP_DELETED_CELLS false
        0x80, 0x80, 0x04, // 65536-byte blocks
        0, 1, 1, 1,
        0, // no compression, prefix encoding, row bloom, block cache, not in memory
        1, 5, 0, 0, // one region: id 5, from "" to ""
    ];

    #[test]
    fn version_1_records_read_as_use_default_and_stay_version_1() {
        let record = one_region_table(WriteDurability::UseDefault);
        assert_eq!(decode_table(VERSION_1_RECORD).unwrap(), record);
        assert_eq!(encode_table(&record), VERSION_1_RECORD);
    }

    #[test]
    fn every_durability_but_use_default_is_written_as_version_2() {
        for durability in [
            WriteDurability::SkipWal,
            WriteDurability::AsyncWal,
            WriteDurability::SyncWal,
            WriteDurability::FsyncWal,
        ] {
            let record = one_region_table(durability);
            let bytes = encode_table(&record);
            assert_eq!(bytes[0], VERSION_2);
            assert_eq!(&bytes[1..bytes.len() - 1], &VERSION_1_RECORD[1..]);
            assert_eq!(decode_table(&bytes).unwrap(), record);
        }
    }

    #[test]
    fn bad_versions_and_durability_codes_are_corrupt() {
        let mut bytes = encode_table(&one_region_table(WriteDurability::FsyncWal));
        *bytes.last_mut().unwrap() = 9;
        assert!(matches!(
            decode_table(&bytes),
            Err(ServiceError::CatalogCorrupt(m)) if m.contains("durability")
        ));
        let mut v3 = VERSION_1_RECORD.to_vec();
        v3[0] = 3;
        assert!(decode_table(&v3).is_err());
        // A version 1 record with a durability byte has trailing bytes.
        let mut extra = VERSION_1_RECORD.to_vec();
        extra.push(2);
        assert!(decode_table(&extra).is_err());
    }

    #[test]
    fn truncated_records_are_corrupt_not_panics() {
        for durability in [WriteDurability::UseDefault, WriteDurability::SkipWal] {
            let bytes = encode_table(&one_region_table(durability));
            for cut in 0..bytes.len() {
                assert!(decode_table(&bytes[..cut]).is_err(), "cut at {cut}");
            }
        }
    }
}
