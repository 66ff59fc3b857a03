//! Column family specs as `create` and `alter` take them: a name, or a hash of settings.

use bytes::Bytes;
use pilota::FastStr;
use strata_thrift::gen::volo_gen::hbase::{ColumnDescriptor, TStrataFamily, Text};

use strata_server::schema_metadata::{check_replication_scope, REPLICATION_SCOPE};

use super::args::Options;
use crate::error::{usage, Result, ShellError};
use crate::value::Value;

/// The keys of a family hash besides NAME.
const SETTINGS: [&str; 16] = [
    "TTL",
    "KEEP_DELETED_CELLS",
    "VERSIONS",
    "MIN_VERSIONS",
    "COMPRESSION",
    "BLOOMFILTER",
    "BLOCKSIZE",
    "IN_MEMORY",
    "BLOCKCACHE",
    "DATA_BLOCK_ENCODING",
    "ROW_CACHE",
    super::storage_policy::KEY,
    "METADATA",
    "CONFIGURATION",
    REPLICATION_SCOPE,
    "NAME",
];

/// True if `opts` describes a column family (it has NAME or a family setting); a hash
/// without either holds table settings, as in HBase's `create` and `alter`.
pub fn is_family(opts: &Options) -> bool {
    SETTINGS.iter().any(|key| opts.has(key))
}

/// Reads the settings of a family hash (NAME included); METHOD is left for `alter`.
pub fn from_options(opts: &mut Options) -> Result<TStrataFamily> {
    let name = opts
        .take_bytes("NAME")?
        .ok_or_else(|| usage("a column family hash needs NAME"))?;
    let ttl = match opts.take("TTL") {
        None => None,
        Some(Value::Int(s)) => Some(i32::try_from(s).unwrap_or(i32::MAX)),
        Some(v)
            if v.key_text()
                .is_some_and(|t| t.eq_ignore_ascii_case("FOREVER")) =>
        {
            Some(i32::MAX)
        }
        Some(Value::Str(s)) => Some(
            std::str::from_utf8(&s)
                .ok()
                .and_then(|t| described_number(t, "SECONDS"))
                .ok_or_else(|| usage("TTL must be seconds or 'FOREVER'"))?,
        ),
        Some(other) => return Err(usage(format!("TTL must be seconds, got {other}"))),
    };
    let keep_deleted = match opts.take("KEEP_DELETED_CELLS") {
        None => None,
        Some(Value::Bool(b)) => Some(if b { "TRUE" } else { "FALSE" }.to_string()),
        Some(v) => Some(
            v.key_text()
                .ok_or_else(|| usage("KEEP_DELETED_CELLS is true, false or 'TTL'"))?,
        ),
    };
    take_replication_scope(opts)?;
    Ok(TStrataFamily {
        name: Some(Text(Bytes::from(name))),
        max_versions: opts.take_count("VERSIONS")?,
        min_versions: opts
            .take_int("MIN_VERSIONS")?
            .map(|v| i32::try_from(v).map_err(|_| usage("MIN_VERSIONS is too large")))
            .transpose()?,
        time_to_live: ttl,
        compression: opts.take_string("COMPRESSION")?.map(FastStr::from),
        bloom_filter_type: opts.take_string("BLOOMFILTER")?.map(FastStr::from),
        block_size: take_block_size(opts)?,
        in_memory: opts.take_bool("IN_MEMORY")?,
        block_cache_enabled: opts.take_bool("BLOCKCACHE")?,
        keep_deleted_cells: keep_deleted.map(FastStr::from),
        data_block_encoding: opts.take_string("DATA_BLOCK_ENCODING")?.map(FastStr::from),
        storage_policy: super::storage_policy::take(opts)?.map(FastStr::from),
        row_cache: opts.take_bool("ROW_CACHE")?,
    })
}

/// A number as given (`86400`) or as `describe` prints it with its unit (`86400 SECONDS
/// (1 DAY)`, `65536 B (64KB)`), so that a described family can be pasted into `create`.
fn described_number(text: &str, unit: &str) -> Option<i32> {
    let text = text.trim();
    let (number, rest) = text.split_once(' ').unwrap_or((text, ""));
    let rest = rest.trim_start();
    let unit_ok = rest.is_empty()
        || rest
            .strip_prefix(unit)
            .is_some_and(|after| after.is_empty() || after.starts_with(" ("));
    unit_ok.then(|| number.parse().ok()).flatten()
}

/// BLOCKSIZE: a positive number of bytes, also as `describe` prints it.
fn take_block_size(opts: &mut Options) -> Result<Option<i32>> {
    let described = match opts.take("BLOCKSIZE") {
        Some(Value::Str(s)) => std::str::from_utf8(&s)
            .ok()
            .and_then(|t| described_number(t, "B"))
            .filter(|n| *n > 0)
            .ok_or_else(|| usage("BLOCKSIZE must be a positive Integer (bytes)"))?,
        Some(Value::Int(n)) => i32::try_from(n)
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| usage(format!("BLOCKSIZE must be a positive Integer, got {n}")))?,
        Some(other) => return Err(usage(format!("BLOCKSIZE must be an Integer, got {other}"))),
        None => return Ok(None),
    };
    Ok(Some(described))
}

/// REPLICATION_SCOPE: 0 (HBase's default, no replication) is accepted and is what every
/// Strata family has; any other scope is refused, since Strata does not replicate.
fn take_replication_scope(opts: &mut Options) -> Result<()> {
    let scope = match opts.take(REPLICATION_SCOPE) {
        None => return Ok(()),
        Some(Value::Int(n)) => n.to_string(),
        Some(Value::Str(s)) => String::from_utf8_lossy(&s).into_owned(),
        Some(other) => {
            return Err(usage(format!(
                "REPLICATION_SCOPE must be an Integer, got {other}"
            )))
        }
    };
    check_replication_scope(&scope).map_err(|e| usage(e.to_string()))
}

/// A family given by name only.
pub fn named(name: Vec<u8>) -> TStrataFamily {
    TStrataFamily {
        name: Some(Text(Bytes::from(name))),
        ..Default::default()
    }
}

/// The Thrift1 descriptor of a family, for servers without Strata's extensions (HBase's
/// createTable). Settings Thrift1 cannot carry are refused rather than dropped.
pub fn to_column_descriptor(f: &TStrataFamily) -> Result<ColumnDescriptor> {
    if f.min_versions.is_some()
        || f.block_size.is_some()
        || f.keep_deleted_cells.is_some()
        || f.data_block_encoding.is_some()
        || f.storage_policy.is_some()
        || f.row_cache.is_some()
    {
        return Err(ShellError::Unsupported(
            "MIN_VERSIONS, BLOCKSIZE, KEEP_DELETED_CELLS, DATA_BLOCK_ENCODING, STORAGE_POLICY or \
             ROW_CACHE in create"
                .to_string(),
        ));
    }
    let mut name = f.name.as_ref().map(|t| t.0.to_vec()).unwrap_or_default();
    name.push(b':');
    Ok(ColumnDescriptor {
        name: Some(Text(Bytes::from(name))),
        // The shell's default is one version (Thrift1's IDL default is three).
        max_versions: Some(f.max_versions.unwrap_or(1)),
        compression: Some(
            f.compression
                .clone()
                .unwrap_or(FastStr::from_static_str("NONE")),
        ),
        in_memory: Some(f.in_memory.unwrap_or(false)),
        bloom_filter_type: Some(
            f.bloom_filter_type
                .clone()
                .unwrap_or(FastStr::from_static_str("ROW")),
        ),
        block_cache_enabled: Some(f.block_cache_enabled.unwrap_or(true)),
        time_to_live: Some(f.time_to_live.unwrap_or(i32::MAX)),
        ..Default::default()
    })
}

/// A Thrift1 descriptor as a family (for `describe` on servers without the extensions).
pub fn from_column_descriptor(d: &ColumnDescriptor) -> TStrataFamily {
    let name = d.name.as_ref().map(|t| t.0.to_vec()).unwrap_or_default();
    let name = name.strip_suffix(b":").map(<[u8]>::to_vec).unwrap_or(name);
    TStrataFamily {
        name: Some(Text(Bytes::from(name))),
        max_versions: d.max_versions,
        time_to_live: d.time_to_live,
        compression: d.compression.clone(),
        bloom_filter_type: d.bloom_filter_type.clone(),
        in_memory: d.in_memory,
        block_cache_enabled: d.block_cache_enabled,
        ..Default::default()
    }
}

/// HBase's `describe` line for a family.
pub fn describe_line(f: &TStrataFamily) -> String {
    let name = f.name.as_ref().map(|t| t.0.to_vec()).unwrap_or_default();
    let mut parts = vec![format!("NAME => {}", crate::format::quoted(&name))];
    let mut add = |key: &str, value: Option<String>| {
        if let Some(v) = value {
            parts.push(format!("{key} => '{v}'"));
        }
    };
    add("VERSIONS", f.max_versions.map(|v| v.to_string()));
    add(
        "KEEP_DELETED_CELLS",
        f.keep_deleted_cells.as_ref().map(|v| v.to_string()),
    );
    add(
        "DATA_BLOCK_ENCODING",
        f.data_block_encoding.as_ref().map(|v| v.to_string()),
    );
    add(
        "TTL",
        f.time_to_live
            .map(|t| crate::format::ttl(Some(i64::from(t)))),
    );
    add("MIN_VERSIONS", f.min_versions.map(|v| v.to_string()));
    // Strata never replicates: every family has HBase's default scope.
    add(REPLICATION_SCOPE, Some("0".to_string()));
    add(
        "BLOOMFILTER",
        f.bloom_filter_type.as_ref().map(|v| v.to_string()),
    );
    add("IN_MEMORY", f.in_memory.map(|v| v.to_string()));
    add("COMPRESSION", f.compression.as_ref().map(|v| v.to_string()));
    add("BLOCKCACHE", f.block_cache_enabled.map(|v| v.to_string()));
    add("BLOCKSIZE", f.block_size.map(block_size));
    // Empty means the family follows the server's policy: shown only when set, as HBase does.
    let policy = f.storage_policy.as_ref().filter(|p| !p.is_empty());
    add("STORAGE_POLICY", policy.map(|p| p.to_string()));
    // A Strata setting: shown only when on, so HBase-shaped output stays HBase's.
    add(
        "ROW_CACHE",
        f.row_cache.filter(|on| *on).map(|on| on.to_string()),
    );
    format!("{{{}}}", parts.join(", "))
}

/// `65536 B (64KB)`.
fn block_size(bytes: i32) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{bytes} B ({}MB)", bytes >> 20)
    } else if bytes >= 1024 && bytes % 1024 == 0 {
        format!("{bytes} B ({}KB)", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}
