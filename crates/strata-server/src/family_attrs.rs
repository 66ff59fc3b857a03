//! A column family's settings as HBase names them in a descriptor: upper-case attribute
//! keys (`VERSIONS`, `TTL`, `COMPRESSION`, ...) with text values. The native RPC and the
//! REST schemas read and write families this way. An attribute Strata has no setting for
//! is kept in the family's metadata and described back as given.

use strata_engine::{BloomType, Compression, DataBlockEncoding, FamilyOptions, KeepDeletedCells};

/// HBase's "forever" TTL: `Integer.MAX_VALUE` seconds.
pub const FOREVER: u64 = i32::MAX as u64;

fn upper<T: std::fmt::Debug>(value: T) -> String {
    format!("{value:?}").to_ascii_uppercase()
}

/// The attributes HBase 2.6 reports for a family, in its order, then the family's
/// metadata attributes (as text).
pub fn describe(f: &FamilyOptions) -> Vec<(String, String)> {
    let text = |b: &bytes::Bytes| String::from_utf8_lossy(b).into_owned();
    let mut attrs: Vec<(String, String)> = settings(f)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    attrs.extend(
        f.metadata
            .attributes
            .iter()
            .map(|(k, v)| (text(k), text(v))),
    );
    attrs
}

/// The attributes of the settings Strata acts on.
pub fn settings(f: &FamilyOptions) -> Vec<(&'static str, String)> {
    let bloom = match f.bloom_type {
        BloomType::None => "NONE",
        BloomType::Row => "ROW",
        BloomType::RowCol => "ROWCOL",
    };
    let mut attrs = vec![
        ("INDEX_BLOCK_ENCODING", "NONE".to_string()),
        ("VERSIONS", f.max_versions.to_string()),
        ("KEEP_DELETED_CELLS", upper(f.keep_deleted_cells)),
        ("DATA_BLOCK_ENCODING", upper(f.data_block_encoding)),
        ("TTL", f.ttl_seconds.unwrap_or(FOREVER).to_string()),
        ("MIN_VERSIONS", f.min_versions.to_string()),
        ("REPLICATION_SCOPE", "0".to_string()),
        ("BLOOMFILTER", bloom.to_string()),
        ("IN_MEMORY", f.in_memory.to_string()),
        ("COMPRESSION", upper(f.compression)),
        ("BLOCKCACHE", f.block_cache_enabled.to_string()),
        ("BLOCKSIZE", f.block_size.to_string()),
    ];
    if let Some(policy) = f.storage_policy {
        attrs.push(("STORAGE_POLICY", policy.to_string()));
    }
    if f.row_cache {
        attrs.push(("ROW_CACHE", "true".to_string()));
    }
    attrs
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{key}: {value:?} is not a valid number"))
}

fn boolean(key: &str, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{key}: {value:?} is not true or false")),
    }
}

fn ttl(key: &str, value: &str) -> Result<Option<u64>, String> {
    let ttl: i64 = if value.trim().eq_ignore_ascii_case("FOREVER") {
        FOREVER as i64
    } else {
        number(key, value)?
    };
    Ok((ttl > 0 && ttl < FOREVER as i64).then_some(ttl as u64))
}

fn enum_value<T>(key: &str, value: &str, choices: &[(&str, T)]) -> Result<T, String>
where
    T: Copy,
{
    let v = value.trim().to_ascii_uppercase();
    choices
        .iter()
        .find(|(name, _)| *name == v)
        .map(|(_, choice)| *choice)
        .ok_or_else(|| format!("{key}: unknown value {value:?}"))
}

/// Sets one attribute. An attribute Strata has no setting for is kept in the family's
/// metadata, as HBase keeps unknown ones; `REPLICATION_SCOPE` other than 0 is refused
/// until Strata replicates.
pub fn apply(f: &mut FamilyOptions, key: &str, value: &str) -> Result<(), String> {
    match key.to_ascii_uppercase().as_str() {
        "VERSIONS" => f.max_versions = number(key, value)?,
        "MIN_VERSIONS" => f.min_versions = number(key, value)?,
        "TTL" => f.ttl_seconds = ttl(key, value)?,
        "BLOCKSIZE" => f.block_size = number(key, value)?,
        "IN_MEMORY" => f.in_memory = boolean(key, value)?,
        "BLOCKCACHE" => f.block_cache_enabled = boolean(key, value)?,
        "ROW_CACHE" => f.row_cache = boolean(key, value)?,
        "KEEP_DELETED_CELLS" => {
            let choices = [
                ("FALSE", KeepDeletedCells::False),
                ("TRUE", KeepDeletedCells::True),
                ("TTL", KeepDeletedCells::Ttl),
            ];
            f.keep_deleted_cells = enum_value(key, value, &choices)?;
        }
        "COMPRESSION" => {
            f.compression = value
                .trim()
                .to_ascii_uppercase()
                .parse::<Compression>()
                .map_err(|_| format!("COMPRESSION: unsupported codec {value:?}"))?;
        }
        "DATA_BLOCK_ENCODING" => {
            // HBase's other encodings share prefixes too.
            let choices = [
                ("NONE", DataBlockEncoding::None),
                ("PREFIX", DataBlockEncoding::Prefix),
                ("DIFF", DataBlockEncoding::Prefix),
                ("FAST_DIFF", DataBlockEncoding::Prefix),
                ("ROW_INDEX_V1", DataBlockEncoding::Prefix),
            ];
            f.data_block_encoding = enum_value(key, value, &choices)?;
        }
        "BLOOMFILTER" => {
            let choices = [
                ("NONE", BloomType::None),
                ("ROW", BloomType::Row),
                ("ROWCOL", BloomType::RowCol),
            ];
            f.bloom_type = enum_value(key, value, &choices)?;
        }
        "STORAGE_POLICY" => {
            f.storage_policy = match value.trim() {
                "" => None,
                name => Some(name.parse().map_err(|e| format!("STORAGE_POLICY: {e}"))?),
            }
        }
        "REPLICATION_SCOPE" => {
            crate::schema_metadata::check_replication_scope(value).map_err(|e| e.to_string())?
        }
        // HBase reports NONE; Strata's index blocks have no encoding to choose.
        "INDEX_BLOCK_ENCODING" | "NAME" => {}
        _ => {
            f.metadata.attributes.insert(
                bytes::Bytes::copy_from_slice(key.as_bytes()),
                bytes::Bytes::copy_from_slice(value.as_bytes()),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn described_attributes_apply_back_to_the_same_family() {
        let mut f = FamilyOptions::new(b"f".to_vec());
        apply(&mut f, "VERSIONS", "5").unwrap();
        apply(&mut f, "TTL", "3600").unwrap();
        apply(&mut f, "BLOOMFILTER", "rowcol").unwrap();
        let mut again = FamilyOptions::new(b"f".to_vec());
        apply(&mut f, "OWNER", "team-a").unwrap();
        for (key, value) in describe(&f) {
            apply(&mut again, &key, &value).unwrap();
        }
        assert_eq!(describe(&again), describe(&f));
        assert_eq!(again.max_versions, 5);
        assert_eq!(again.ttl_seconds, Some(3600));
    }

    #[test]
    fn bad_values_and_replication_are_refused_clearly() {
        let mut f = FamilyOptions::new(b"f".to_vec());
        assert!(apply(&mut f, "VERSIONS", "many")
            .unwrap_err()
            .contains("VERSIONS"));
        assert!(apply(&mut f, "REPLICATION_SCOPE", "1").is_err());
        assert!(apply(&mut f, "REPLICATION_SCOPE", "0").is_ok());
        apply(&mut f, "SOMETHING_ELSE", "x").unwrap();
        assert_eq!(
            f.metadata
                .attributes
                .get(&b"SOMETHING_ELSE"[..])
                .map(|v| &v[..]),
            Some(&b"x"[..])
        );
    }
}
