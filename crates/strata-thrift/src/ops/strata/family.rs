//! `TStrataFamily` (every family setting, each optional) to and from the engine's
//! `FamilyOptions`.

use bytes::Bytes;
use pilota::FastStr;
use strata_engine::fs::StoragePolicy;
use strata_engine::{DataBlockEncoding, FamilyOptions, KeepDeletedCells};

use crate::descriptor::{bloom_from_name, bloom_name, compression_from_name, compression_name};
use crate::failure::{CallResult, Failure};
use crate::gen::volo_gen::hbase::{TStrataFamily, Text};

/// The family's name (without any trailing ':').
pub fn family_name(f: &TStrataFamily) -> CallResult<Vec<u8>> {
    let name = f.name.as_ref().map(|t| t.0.as_ref()).unwrap_or_default();
    let name = name.strip_suffix(b":").unwrap_or(name);
    if name.is_empty() {
        return Err(Failure::illegal("column family name is empty"));
    }
    Ok(name.to_vec())
}

/// `base` with the settings `f` gives replaced.
pub fn overlay(mut base: FamilyOptions, f: &TStrataFamily) -> CallResult<FamilyOptions> {
    base.name = family_name(f)?;
    let named = |what: &str| format!("{what} of family {}", String::from_utf8_lossy(&base.name));
    if let Some(v) = f.max_versions {
        base.max_versions = positive(v).ok_or_else(|| bad(&named("VERSIONS"), v))?;
    }
    if let Some(v) = f.min_versions {
        base.min_versions = u32::try_from(v).map_err(|_| bad(&named("MIN_VERSIONS"), v))?;
    }
    if let Some(ttl) = f.time_to_live {
        // HBase's FOREVER is Integer.MAX_VALUE; zero and negatives also mean no TTL.
        base.ttl_seconds = (ttl > 0 && ttl != i32::MAX).then(|| u64::from(ttl.unsigned_abs()));
    }
    if let Some(c) = &f.compression {
        base.compression = compression_from_name(c)?;
    }
    if let Some(b) = &f.bloom_filter_type {
        base.bloom_type = bloom_from_name(&b.to_ascii_uppercase())?;
    }
    if let Some(size) = f.block_size {
        base.block_size = positive(size)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(|| bad(&named("BLOCKSIZE"), size))?;
    }
    if let Some(v) = f.in_memory {
        base.in_memory = v;
    }
    if let Some(v) = f.block_cache_enabled {
        base.block_cache_enabled = v;
    }
    if let Some(k) = &f.keep_deleted_cells {
        base.keep_deleted_cells = keep_deleted_from_name(k)?;
    }
    if let Some(e) = &f.data_block_encoding {
        base.data_block_encoding = encoding_from_name(e)?;
    }
    if let Some(p) = &f.storage_policy {
        base.storage_policy = storage_policy_from_name(p)?;
    }
    if let Some(v) = f.row_cache {
        base.row_cache = v;
    }
    Ok(base)
}

/// Every setting of `f`, as `strataDescribeTable` reports it.
pub fn to_thrift(f: &FamilyOptions) -> TStrataFamily {
    let clamp = |v: u64| i32::try_from(v).unwrap_or(i32::MAX);
    TStrataFamily {
        name: Some(Text(Bytes::copy_from_slice(&f.name))),
        max_versions: Some(clamp(u64::from(f.max_versions))),
        min_versions: Some(clamp(u64::from(f.min_versions))),
        time_to_live: Some(f.ttl_seconds.map_or(i32::MAX, clamp)),
        compression: Some(FastStr::from_static_str(compression_name(f.compression))),
        bloom_filter_type: Some(FastStr::from_static_str(bloom_name(f.bloom_type))),
        block_size: Some(clamp(f.block_size as u64)),
        in_memory: Some(f.in_memory),
        block_cache_enabled: Some(f.block_cache_enabled),
        keep_deleted_cells: Some(FastStr::from_static_str(match f.keep_deleted_cells {
            KeepDeletedCells::False => "FALSE",
            KeepDeletedCells::True => "TRUE",
            KeepDeletedCells::Ttl => "TTL",
        })),
        data_block_encoding: Some(FastStr::from_static_str(match f.data_block_encoding {
            DataBlockEncoding::None => "NONE",
            DataBlockEncoding::Prefix => "PREFIX",
        })),
        storage_policy: Some(FastStr::from_static_str(
            f.storage_policy.map_or("", StoragePolicy::name),
        )),
        row_cache: Some(f.row_cache),
    }
}

/// A policy name, or empty for "follow the server's policy" (how `alter` unsets it).
fn storage_policy_from_name(name: &str) -> CallResult<Option<StoragePolicy>> {
    if name.is_empty() {
        return Ok(None);
    }
    name.parse()
        .map(Some)
        .map_err(|e: strata_engine::Error| Failure::illegal(format!("STORAGE_POLICY: {e}")))
}

fn positive(v: i32) -> Option<u32> {
    u32::try_from(v).ok().filter(|&v| v > 0)
}

fn bad(what: &str, value: i32) -> Failure {
    Failure::illegal(format!("{what} must be positive, got {value}"))
}

fn keep_deleted_from_name(name: &str) -> CallResult<KeepDeletedCells> {
    match name.to_ascii_uppercase().as_str() {
        "FALSE" => Ok(KeepDeletedCells::False),
        "TRUE" => Ok(KeepDeletedCells::True),
        "TTL" => Ok(KeepDeletedCells::Ttl),
        _ => Err(Failure::illegal(format!(
            "KEEP_DELETED_CELLS is FALSE, TRUE or TTL, not {name:?}"
        ))),
    }
}

fn encoding_from_name(name: &str) -> CallResult<DataBlockEncoding> {
    match name.to_ascii_uppercase().as_str() {
        "NONE" => Ok(DataBlockEncoding::None),
        "PREFIX" => Ok(DataBlockEncoding::Prefix),
        _ => Err(Failure::illegal(format!(
            "DATA_BLOCK_ENCODING {name:?} is not supported by Strata (use NONE or PREFIX)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> TStrataFamily {
        TStrataFamily {
            name: Some(Text(Bytes::copy_from_slice(name.as_bytes()))),
            ..Default::default()
        }
    }

    #[test]
    fn unset_settings_keep_the_base() {
        let base = FamilyOptions::new("cf");
        let f = overlay(base.clone(), &named("cf:")).expect("valid");
        assert_eq!(f, base);
    }

    #[test]
    fn given_settings_replace_the_base_and_round_trip() {
        let given = TStrataFamily {
            max_versions: Some(5),
            time_to_live: Some(60),
            compression: Some("snappy".into()),
            bloom_filter_type: Some("rowcol".into()),
            block_size: Some(4096),
            in_memory: Some(true),
            keep_deleted_cells: Some("ttl".into()),
            data_block_encoding: Some("NONE".into()),
            storage_policy: Some("all_ssd".into()),
            row_cache: Some(true),
            ..named("cf")
        };
        let f = overlay(FamilyOptions::new("x"), &given).expect("valid");
        assert_eq!(f.name, b"cf");
        assert_eq!(f.max_versions, 5);
        assert_eq!(f.ttl_seconds, Some(60));
        assert_eq!(f.block_size, 4096);
        assert_eq!(f.keep_deleted_cells, KeepDeletedCells::Ttl);
        assert_eq!(f.storage_policy, Some(StoragePolicy::AllSsd));
        assert!(f.row_cache);
        let back = overlay(FamilyOptions::new("y"), &to_thrift(&f)).expect("valid");
        assert_eq!(back, f);
    }

    #[test]
    fn an_empty_storage_policy_unsets_it() {
        let mut base = FamilyOptions::new("cf");
        base.storage_policy = Some(StoragePolicy::Cold);
        let given = TStrataFamily {
            storage_policy: Some("".into()),
            ..named("cf")
        };
        assert_eq!(overlay(base, &given).expect("valid").storage_policy, None);
    }

    #[test]
    fn bad_settings_are_illegal_arguments() {
        let bad = [
            named(""),
            TStrataFamily {
                max_versions: Some(0),
                ..named("cf")
            },
            TStrataFamily {
                block_size: Some(-1),
                ..named("cf")
            },
            TStrataFamily {
                keep_deleted_cells: Some("maybe".into()),
                ..named("cf")
            },
            TStrataFamily {
                data_block_encoding: Some("FAST_DIFF".into()),
                ..named("cf")
            },
            TStrataFamily {
                storage_policy: Some("FAST".into()),
                ..named("cf")
            },
        ];
        for f in bad {
            let r = overlay(FamilyOptions::new("cf"), &f);
            assert!(matches!(r, Err(Failure::IllegalArgument(_))), "{f:?}");
        }
    }
}
