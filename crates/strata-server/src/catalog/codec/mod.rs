//! The byte encoding of catalog records: a table's families, its enabled flag, its regions,
//! its DURABILITY and the metadata it keeps for clients. Stored as cell values in the catalog region, so the engine's checksums and WAL
//! protect them; this layer only has to be unambiguous and versioned. Layout and version
//! history: docs/format.md, "Catalog table record".

use bytes::Bytes;
use strata_engine::codec::{put_len_prefixed, put_varint, Decoder};
use strata_engine::fs::StoragePolicy;
use strata_engine::options::{BloomType, Compression, DataBlockEncoding, KeepDeletedCells};
use strata_engine::{FamilyOptions, SchemaMetadata};

pub use self::grants::{decode_grants, encode_grants};
pub(crate) use self::metadata::{get_metadata, put_metadata};
pub use self::namespace::{decode_namespace, encode_namespace, NamespaceConfig};

use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};

/// The version written. Versions 1 to 5 are still read: version 1 has no Bigtable GC rule
/// in family entries, neither 1 nor 2 has the table's DURABILITY byte at the end, no
/// version before 4 has the family's STORAGE_POLICY name, none before 5 its ROW_CACHE
/// flag, and none before 6 the metadata (attributes and configuration) of the table and
/// its families.
pub(crate) const RECORD_VERSION: u8 = 6;
/// The first version whose family entries end with the Bigtable GC rule.
const FAMILY_GC_RULE_SINCE: u8 = 2;
/// The first version that ends with the table's DURABILITY byte.
const DURABILITY_SINCE: u8 = 3;
/// The first version whose family entries end with the STORAGE_POLICY name.
const FAMILY_STORAGE_POLICY_SINCE: u8 = 4;
/// The first version whose family entries end with the ROW_CACHE flag.
const FAMILY_ROW_CACHE_SINCE: u8 = 5;
/// The first version whose family entries, and the record itself, end with metadata.
const METADATA_SINCE: u8 = 6;

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
    /// The table's attributes and configuration Strata keeps without acting on them.
    pub metadata: SchemaMetadata,
}

pub(crate) fn put_family(buf: &mut Vec<u8>, f: &FamilyOptions) {
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
    // By name, as HBase stores it, so policies defined in configuration can later be
    // recorded without a new version; empty means "follow the server's policy".
    put_len_prefixed(
        buf,
        f.storage_policy.map_or("", StoragePolicy::name).as_bytes(),
    );
    buf.push(u8::from(f.row_cache));
    put_metadata(buf, &f.metadata);
}

/// `Some(None)` for the empty name, `None` (corrupt) for bytes that cannot be a policy
/// name. A well-formed name this server's configuration does not define is kept (see
/// `StoragePolicy::named`): the catalog stays readable when a definition is removed.
fn storage_policy_of_name(name: &[u8]) -> Option<Option<StoragePolicy>> {
    if name.is_empty() {
        return Some(None);
    }
    let name = std::str::from_utf8(name).ok()?;
    StoragePolicy::named(name).ok().map(Some)
}

pub(crate) fn durability_code(d: WriteDurability) -> u8 {
    match d {
        WriteDurability::UseDefault => 0,
        WriteDurability::SkipWal => 1,
        WriteDurability::AsyncWal => 2,
        WriteDurability::SyncWal => 3,
        WriteDurability::FsyncWal => 4,
    }
}

pub(crate) fn durability_of_code(code: u8) -> Option<WriteDurability> {
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
    put_metadata(&mut buf, &record.metadata);
    buf
}

fn bad(what: &str) -> ServiceError {
    ServiceError::CatalogCorrupt(format!("table record: {what}"))
}

pub(crate) fn get_family(d: &mut Decoder, version: u8) -> Option<FamilyOptions> {
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
    if version >= FAMILY_STORAGE_POLICY_SINCE {
        f.storage_policy = storage_policy_of_name(d.len_prefixed()?)?;
    }
    if version >= FAMILY_ROW_CACHE_SINCE {
        f.row_cache = match d.u8()? {
            0 => false,
            1 => true,
            _ => return None,
        };
    }
    if version >= METADATA_SINCE {
        f.metadata = get_metadata(d)?;
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
    let metadata = if version >= METADATA_SINCE {
        get_metadata(&mut d).ok_or_else(|| bad("bad metadata"))?
    } else {
        SchemaMetadata::default()
    };
    if !d.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(TableRecord {
        families,
        enabled,
        regions,
        durability,
        metadata,
    })
}

mod grants;
mod metadata;
mod namespace;
#[cfg(test)]
mod tests;
