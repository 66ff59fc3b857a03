//! ColumnDescriptor (Thrift) to and from FamilyOptions (engine), following what HBase's Thrift1
//! server accepts and reports.

use bytes::Bytes;
use pilota::FastStr;
use strata_engine::{BloomType, Compression, FamilyOptions};

use crate::columns::ColumnSpec;
use crate::failure::{CallResult, Failure};
use crate::gen::volo_gen::hbase::{ColumnDescriptor, Text};

/// HBase's "no TTL" (Integer.MAX_VALUE seconds).
pub const FOREVER: i32 = i32::MAX;

/// The values HBase's IDL gives a ColumnDescriptor whose fields were not sent.
const DEFAULT_MAX_VERSIONS: i32 = 3;

/// Builds a family from a client's descriptor. The name may carry the trailing ':' (HBase keeps
/// only the part before the first colon). Unset fields take the IDL defaults, which differ from
/// the engine's own (3 versions, no bloom filter, no block cache).
pub fn family_from_thrift(d: &ColumnDescriptor) -> CallResult<FamilyOptions> {
    let name = d.name.clone().map(|t| t.0).unwrap_or_default();
    if name.is_empty() {
        return Err(Failure::illegal("column family name is empty"));
    }
    let family = ColumnSpec::parse(&name).family().clone();
    if family.is_empty() {
        return Err(Failure::illegal(format!(
            "column family name {:?} has nothing before the ':'",
            String::from_utf8_lossy(&name)
        )));
    }
    let mut options = FamilyOptions::new(family.to_vec());

    let max_versions = d.max_versions.unwrap_or(DEFAULT_MAX_VERSIONS);
    options.max_versions = u32::try_from(max_versions)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| {
            Failure::illegal(format!(
                "maxVersions must be positive, got {max_versions} for family {}",
                String::from_utf8_lossy(&family)
            ))
        })?;
    options.compression = compression_from_name(d.compression.as_deref().unwrap_or("NONE"))?;
    options.in_memory = d.in_memory.unwrap_or(false);
    options.bloom_type = bloom_from_name(d.bloom_filter_type.as_deref().unwrap_or("NONE"))?;
    options.block_cache_enabled = d.block_cache_enabled.unwrap_or(false);
    // HBase treats zero, negative (older IDLs default to -1) and Integer.MAX_VALUE as "forever".
    let ttl = d.time_to_live.unwrap_or(FOREVER);
    options.ttl_seconds = if ttl <= 0 || ttl == FOREVER {
        None
    } else {
        Some(u64::from(ttl.unsigned_abs()))
    };
    Ok(options)
}

/// Describes a family as HBase's Thrift1 server does: the name with a trailing ':', HBase's
/// upper-case enum names, and the TTL in seconds (Integer.MAX_VALUE for none).
pub fn family_to_thrift(f: &FamilyOptions) -> ColumnDescriptor {
    let mut name = f.name.clone();
    name.push(b':');
    let ttl = f
        .ttl_seconds
        .map_or(FOREVER, |s| i32::try_from(s).unwrap_or(FOREVER));
    ColumnDescriptor {
        name: Some(Text(Bytes::from(name))),
        max_versions: Some(i32::try_from(f.max_versions).unwrap_or(i32::MAX)),
        compression: Some(FastStr::from_static_str(compression_name(f.compression))),
        in_memory: Some(f.in_memory),
        bloom_filter_type: Some(FastStr::from_static_str(bloom_name(f.bloom_type))),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(f.block_cache_enabled),
        time_to_live: Some(ttl),
    }
}

/// HBase looks compression names up case-insensitively.
pub(crate) fn compression_from_name(name: &str) -> CallResult<Compression> {
    match name.to_ascii_lowercase().as_str() {
        "lzo" | "bzip2" | "lzma" => Err(Failure::illegal(format!(
            "compression {name} is not supported by Strata (use NONE, GZ, LZ4, ZSTD or SNAPPY)"
        ))),
        _ => name
            .parse()
            .map_err(|_| Failure::illegal(format!("unknown compression {name:?}"))),
    }
}

pub(crate) fn compression_name(c: Compression) -> &'static str {
    c.name()
}

/// HBase's bloom type names are exact, upper-case enum names.
pub(crate) fn bloom_from_name(name: &str) -> CallResult<BloomType> {
    match name {
        "NONE" => Ok(BloomType::None),
        "ROW" => Ok(BloomType::Row),
        "ROWCOL" => Ok(BloomType::RowCol),
        "ROWPREFIX_FIXED_LENGTH" | "ROWPREFIX_DELIMITED" => Err(Failure::illegal(format!(
            "bloom filter type {name} is not supported by Strata (use NONE, ROW or ROWCOL)"
        ))),
        _ => Err(Failure::illegal(format!(
            "unknown bloom filter type {name:?}"
        ))),
    }
}

pub(crate) fn bloom_name(b: BloomType) -> &'static str {
    match b {
        BloomType::None => "NONE",
        BloomType::Row => "ROW",
        BloomType::RowCol => "ROWCOL",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(name: &str) -> ColumnDescriptor {
        ColumnDescriptor {
            name: Some(Text(Bytes::copy_from_slice(name.as_bytes()))),
            ..Default::default()
        }
    }

    #[test]
    fn unset_fields_take_the_idl_defaults() {
        let f = family_from_thrift(&descriptor("cf:")).expect("valid");
        assert_eq!(f.name, b"cf");
        assert_eq!(f.max_versions, 3);
        assert_eq!(f.compression, Compression::None);
        assert_eq!(f.bloom_type, BloomType::None);
        assert!(!f.block_cache_enabled);
        assert!(!f.in_memory);
        assert_eq!(f.ttl_seconds, None);
    }

    #[test]
    fn every_field_maps() {
        let d = ColumnDescriptor {
            name: Some(Text(Bytes::from_static(b"data"))),
            max_versions: Some(7),
            compression: Some("snappy".into()),
            in_memory: Some(true),
            bloom_filter_type: Some("ROWCOL".into()),
            block_cache_enabled: Some(true),
            time_to_live: Some(3600),
            ..Default::default()
        };
        let f = family_from_thrift(&d).expect("valid");
        assert_eq!(f.name, b"data");
        assert_eq!(f.max_versions, 7);
        assert_eq!(f.compression, Compression::Snappy);
        assert!(f.in_memory && f.block_cache_enabled);
        assert_eq!(f.bloom_type, BloomType::RowCol);
        assert_eq!(f.ttl_seconds, Some(3600));

        let back = family_to_thrift(&f);
        assert_eq!(back.name.map(|t| t.0), Some(Bytes::from_static(b"data:")));
        assert_eq!(back.max_versions, Some(7));
        assert_eq!(back.compression.as_deref(), Some("SNAPPY"));
        assert_eq!(back.bloom_filter_type.as_deref(), Some("ROWCOL"));
        assert_eq!(back.time_to_live, Some(3600));
        assert_eq!(back.in_memory, Some(true));
        assert_eq!(back.block_cache_enabled, Some(true));
    }

    #[test]
    fn ttl_sentinels_mean_forever() {
        for ttl in [-1, 0, FOREVER] {
            let d = ColumnDescriptor {
                time_to_live: Some(ttl),
                ..descriptor("cf")
            };
            assert_eq!(family_from_thrift(&d).expect("valid").ttl_seconds, None);
        }
        let f = family_from_thrift(&descriptor("cf")).expect("valid");
        assert_eq!(family_to_thrift(&f).time_to_live, Some(FOREVER));
    }

    #[test]
    fn bad_descriptors_are_illegal_arguments() {
        let bad = [
            descriptor(""),
            descriptor(":q"),
            ColumnDescriptor {
                max_versions: Some(0),
                ..descriptor("cf")
            },
            ColumnDescriptor {
                compression: Some("LZO".into()),
                ..descriptor("cf")
            },
            ColumnDescriptor {
                bloom_filter_type: Some("row".into()),
                ..descriptor("cf")
            },
        ];
        for d in bad {
            assert!(
                matches!(family_from_thrift(&d), Err(Failure::IllegalArgument(_))),
                "{d:?}"
            );
        }
    }
}
