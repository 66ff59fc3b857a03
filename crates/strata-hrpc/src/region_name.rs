//! HBase's region names: `<table>,<start key>,<region id>.<encoded>.`, where the encoded
//! name is the hex MD5 of everything before the first `.` of the suffix. Clients send the
//! full name back in every data call, so a name must lead to exactly one region, with the
//! bounds the client cached.

use bytes::{BufMut, Bytes, BytesMut};
use md5::{Digest, Md5};
use strata_server::names::TableName;

/// hbase:meta's one region, in the old name format (no encoded suffix).
pub const META_REGION_NAME: &[u8] = b"hbase:meta,,1";
/// The encoded name HBase gives hbase:meta's region.
pub const META_ENCODED_NAME: &str = "1588230740";
/// The region id of hbase:meta's region.
pub const META_REGION_ID: u64 = 1;

/// A table's name as HBase prints it: `ns:name`, or `name` in the default namespace.
pub fn table_string(table: &TableName) -> String {
    if table.namespace == "default" {
        table.name.clone()
    } else {
        format!("{}:{}", table.namespace, table.name)
    }
}

/// `<table>,<start>,<id>` without the encoded suffix.
fn name_stem(table: &str, start_key: &[u8], id: u64) -> BytesMut {
    let mut stem = BytesMut::with_capacity(table.len() + start_key.len() + 24);
    stem.put_slice(table.as_bytes());
    stem.put_u8(b',');
    stem.put_slice(start_key);
    stem.put_u8(b',');
    stem.put_slice(id.to_string().as_bytes());
    stem
}

/// The hex MD5 of a name's stem.
pub fn encoded_name(table: &str, start_key: &[u8], id: u64) -> String {
    let digest = Md5::digest(name_stem(table, start_key, id));
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A region's full name.
pub fn region_name(table: &str, start_key: &[u8], id: u64) -> Bytes {
    let encoded = encoded_name(table, start_key, id);
    let mut name = name_stem(table, start_key, id);
    name.put_u8(b'.');
    name.put_slice(encoded.as_bytes());
    name.put_u8(b'.');
    name.freeze()
}

/// A region name taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedName {
    pub table: String,
    pub start_key: Bytes,
    /// The id as written (a client's meta lookup key uses `99999999999999`).
    pub id: String,
}

/// Takes a region name (full, or a meta lookup key without the encoded suffix) apart. The
/// start key may hold commas: the id follows the last one.
pub fn parse(name: &[u8]) -> Option<ParsedName> {
    let first = name.iter().position(|&b| b == b',')?;
    let last = name.iter().rposition(|&b| b == b',')?;
    if last == first {
        return None;
    }
    let table = std::str::from_utf8(&name[..first]).ok()?.to_string();
    let mut id = &name[last + 1..];
    if let Some(dot) = id.iter().position(|&b| b == b'.') {
        id = &id[..dot];
    }
    Some(ParsedName {
        table,
        start_key: Bytes::copy_from_slice(&name[first + 1..last]),
        id: std::str::from_utf8(id).ok()?.to_string(),
    })
}

/// Reads `ns:name` or `name`.
pub fn parse_table(text: &str) -> Option<TableName> {
    let (namespace, name) = match text.split_once(':') {
        Some((ns, name)) => (ns.to_string(), name.to_string()),
        None => ("default".to_string(), text.to_string()),
    };
    (!namespace.is_empty() && !name.is_empty()).then_some(TableName { namespace, name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_have_hbase_layout_and_parse_back() {
        let name = region_name("t1", b"a,b", 42);
        let text = String::from_utf8(name.to_vec()).unwrap();
        let encoded = encoded_name("t1", b"a,b", 42);
        assert_eq!(text, format!("t1,a,b,42.{encoded}."));
        assert_eq!(encoded.len(), 32);
        let parsed = parse(&name).unwrap();
        assert_eq!(parsed.table, "t1");
        assert_eq!(&parsed.start_key[..], b"a,b");
        assert_eq!(parsed.id, "42");
    }

    #[test]
    fn the_encoded_name_is_the_md5_of_the_stem() {
        // MD5("t,,1") computed independently (coreutils md5sum).
        assert_eq!(
            encoded_name("t", b"", 1),
            "7b520268c67d8870e20f6d880327ab7e"
        );
    }

    #[test]
    fn meta_lookup_keys_and_old_names_parse() {
        let parsed = parse(b"ns:t,row,99999999999999").unwrap();
        assert_eq!(parsed.table, "ns:t");
        assert_eq!(parsed.id, "99999999999999");
        assert_eq!(parse(META_REGION_NAME).unwrap().table, "hbase:meta");
        assert!(parse(b"no-commas").is_none());
        assert!(parse(b"one,comma").is_none());
    }

    #[test]
    fn table_strings_leave_out_the_default_namespace() {
        let t = parse_table("t").unwrap();
        assert_eq!(t.namespace, "default");
        assert_eq!(table_string(&t), "t");
        let t = parse_table("ns:t").unwrap();
        assert_eq!(table_string(&t), "ns:t");
        assert!(parse_table(":t").is_none());
    }
}
