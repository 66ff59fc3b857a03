//! The byte encoding of catalog records: a table's families, its enabled flag, its regions
//! and its DURABILITY. Stored as cell values in the catalog region, so the engine's checksums and WAL
//! protect them; this layer only has to be unambiguous and versioned. Layout and version
//! history: docs/format.md, "Catalog table record".

use bytes::Bytes;
use strata_engine::codec::{put_len_prefixed, put_varint, Decoder};
use strata_engine::options::{BloomType, Compression, DataBlockEncoding, KeepDeletedCells};
use strata_engine::FamilyOptions;

use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};

/// The version written. Versions 1 and 2 are still read: version 1 has no Bigtable GC rule
/// in family entries, and neither has the table's DURABILITY byte at the end.
const RECORD_VERSION: u8 = 3;
/// The first version whose family entries end with the Bigtable GC rule.
const FAMILY_GC_RULE_SINCE: u8 = 2;
/// The first version that ends with the table's DURABILITY byte.
const DURABILITY_SINCE: u8 = 3;

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
    /// The table's DURABILITY attribute (`USE_DEFAULT` when never set).
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
    // Empty means none: an encoded rule that says anything is never empty.
    put_len_prefixed(buf, f.bigtable_gc_rule.as_deref().unwrap_or_default());
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

/// Encodes a table record.
pub fn encode_table(record: &TableRecord) -> Vec<u8> {
    let mut buf = vec![RECORD_VERSION, u8::from(record.enabled)];
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
    buf.push(durability_code(record.durability));
    buf
}

fn bad(what: &str) -> ServiceError {
    ServiceError::CatalogCorrupt(format!("table record: {what}"))
}

fn get_family(d: &mut Decoder, version: u8) -> Option<FamilyOptions> {
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
    if version >= FAMILY_GC_RULE_SINCE {
        let rule = d.len_prefixed()?;
        f.bigtable_gc_rule = (!rule.is_empty()).then(|| Bytes::copy_from_slice(rule));
    }
    Some(f)
}

/// Decodes a table record; anything malformed is `CatalogCorrupt`.
pub fn decode_table(bytes: &[u8]) -> Result<TableRecord> {
    let mut d = Decoder::new(bytes);
    let version = match d.u8() {
        Some(v @ 1..=RECORD_VERSION) => v,
        _ => return Err(bad("unknown version")),
    };
    let enabled = d.u8().ok_or_else(|| bad("truncated"))? != 0;
    let count = d.varint().ok_or_else(|| bad("truncated"))?;
    let mut families = Vec::new();
    for _ in 0..count.min(1 << 16) {
        families.push(get_family(&mut d, version).ok_or_else(|| bad("bad family"))?);
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
    let durability = if version >= DURABILITY_SINCE {
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

    #[test]
    fn round_trip_keeps_the_bigtable_gc_rule() {
        let mut f = FamilyOptions::new("cf");
        f.bigtable_gc_rule = Some(Bytes::from_static(b"\x22\x04\x0a\x02\x08\x02"));
        let record = TableRecord {
            families: vec![FamilyOptions::new("plain"), f],
            enabled: true,
            regions: vec![],
            durability: WriteDurability::UseDefault,
        };
        let decoded = decode_table(&encode_table(&record)).unwrap();
        assert_eq!(decoded, record);
        assert_eq!(decoded.families[0].bigtable_gc_rule, None);
    }

    /// A version 1 record, written out by hand from docs/format.md: catalogs written before
    /// family entries had a GC rule must stay readable.
    #[test]
    fn version_1_records_are_read() {
        let v1: &[u8] = &[
            1, 1, // version 1, enabled
            1, // one family
            2, b'c', b'f', // name
            3, 0, 61, // VERSIONS 3, MIN_VERSIONS 0, TTL 60 (stored + 1)
            0, 0x80, 0x80, 0x04, // KEEP_DELETED_CELLS false, block size 65536
            2, 1, 2, 0, 1, // zstd, prefix encoding, ROWCOL bloom, no block cache, in memory
            1, 7, 0, 1, b'm', // one region: id 7, [ "", "m" )
        ];
        let record = decode_table(v1).unwrap();
        let f = &record.families[0];
        assert_eq!(f.name, b"cf");
        assert_eq!(
            (f.max_versions, f.min_versions, f.ttl_seconds),
            (3, 0, Some(60))
        );
        assert_eq!(f.block_size, 65536);
        assert_eq!(f.compression, Compression::Zstd);
        assert_eq!(f.bloom_type, BloomType::RowCol);
        assert!(!f.block_cache_enabled && f.in_memory);
        assert_eq!(f.bigtable_gc_rule, None);
        assert_eq!(record.regions[0].id, 7);
        assert_eq!(record.regions[0].end_key, Bytes::from_static(b"m"));
        assert_eq!(record.durability, WriteDurability::UseDefault);
        // The same record written today is the current version, and reads back the same.
        let current = encode_table(&record);
        assert_eq!(current[0], RECORD_VERSION);
        assert_eq!(decode_table(&current).unwrap(), record);
    }

    #[test]
    fn unknown_versions_are_corrupt() {
        let mut bytes = encode_table(&TableRecord {
            families: vec![FamilyOptions::new("cf")],
            enabled: true,
            regions: vec![],
            durability: WriteDurability::UseDefault,
        });
        for version in [0, RECORD_VERSION + 1, u8::MAX] {
            bytes[0] = version;
            assert!(decode_table(&bytes).is_err(), "version {version}");
        }
    }

    #[test]
    fn truncated_records_are_corrupt_not_panics() {
        let mut with_rule = FamilyOptions::new("cf");
        with_rule.bigtable_gc_rule = Some(Bytes::from_static(b"\x08\x03"));
        let bytes = encode_table(&TableRecord {
            families: vec![with_rule],
            enabled: true,
            regions: vec![],
            durability: WriteDurability::UseDefault,
        });
        for cut in 0..bytes.len() {
            assert!(decode_table(&bytes[..cut]).is_err(), "cut at {cut}");
        }
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

    #[test]
    fn every_durability_round_trips_in_the_last_byte() {
        for durability in [
            WriteDurability::UseDefault,
            WriteDurability::SkipWal,
            WriteDurability::AsyncWal,
            WriteDurability::SyncWal,
            WriteDurability::FsyncWal,
        ] {
            let record = one_region_table(durability);
            let bytes = encode_table(&record);
            assert_eq!(bytes[0], RECORD_VERSION);
            assert_eq!(bytes.last(), Some(&durability_code(durability)));
            assert_eq!(decode_table(&bytes).unwrap(), record);
        }
    }

    /// A version 2 record (GC rules, no durability byte) reads as USE_DEFAULT.
    #[test]
    fn version_2_records_read_as_use_default() {
        let record = one_region_table(WriteDurability::FsyncWal);
        let mut v2 = encode_table(&record);
        v2[0] = 2;
        v2.pop();
        let decoded = decode_table(&v2).unwrap();
        assert_eq!(decoded.durability, WriteDurability::UseDefault);
        assert_eq!(decoded.families, record.families);
    }

    #[test]
    fn bad_durability_codes_and_trailing_bytes_are_corrupt() {
        let mut bytes = encode_table(&one_region_table(WriteDurability::FsyncWal));
        *bytes.last_mut().unwrap() = 9;
        assert!(matches!(
            decode_table(&bytes),
            Err(ServiceError::CatalogCorrupt(m)) if m.contains("durability")
        ));
        let mut extra = encode_table(&one_region_table(WriteDurability::SyncWal));
        extra.push(2);
        assert!(decode_table(&extra).is_err());
    }
}
