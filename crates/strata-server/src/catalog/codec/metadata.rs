//! The bytes of a [`SchemaMetadata`] inside a catalog table record (version 6 on): the
//! attributes a table or family carries without Strata acting on them, then its
//! configuration. Layout: docs/format.md, "Catalog table record".

use std::collections::BTreeMap;

use bytes::Bytes;
use strata_engine::codec::{put_len_prefixed, put_varint, Decoder};
use strata_engine::SchemaMetadata;

/// At most this many entries in one map: far above any real descriptor, and it keeps a
/// corrupt count from reserving memory.
const MAX_ENTRIES: u64 = 1 << 16;

/// Appends `metadata`: the attribute count and pairs, then the configuration count and
/// pairs, each key and value `bytes`, in key order.
pub(crate) fn put_metadata(buf: &mut Vec<u8>, metadata: &SchemaMetadata) {
    put_varint(buf, metadata.attributes.len() as u64);
    for (key, value) in &metadata.attributes {
        put_len_prefixed(buf, key);
        put_len_prefixed(buf, value);
    }
    put_varint(buf, metadata.configuration.len() as u64);
    for (key, value) in &metadata.configuration {
        put_len_prefixed(buf, key.as_bytes());
        put_len_prefixed(buf, value.as_bytes());
    }
}

/// Reads what [`put_metadata`] wrote; `None` when it is malformed: truncated, too many
/// entries, keys out of order or repeated (the writer sorts them), or configuration that
/// is not UTF-8.
pub(crate) fn get_metadata(d: &mut Decoder) -> Option<SchemaMetadata> {
    let mut attributes = BTreeMap::new();
    for _ in 0..entry_count(d)? {
        let key = Bytes::copy_from_slice(d.len_prefixed()?);
        let value = Bytes::copy_from_slice(d.len_prefixed()?);
        if attributes
            .last_key_value()
            .is_some_and(|(last, _)| *last >= key)
        {
            return None;
        }
        attributes.insert(key, value);
    }
    let mut configuration = BTreeMap::new();
    for _ in 0..entry_count(d)? {
        let key = text(d.len_prefixed()?)?;
        let value = text(d.len_prefixed()?)?;
        if configuration
            .last_key_value()
            .is_some_and(|(last, _): (&String, _)| *last >= key)
        {
            return None;
        }
        configuration.insert(key, value);
    }
    Some(SchemaMetadata {
        attributes,
        configuration,
    })
}

fn entry_count(d: &mut Decoder) -> Option<u64> {
    d.varint().filter(|n| *n <= MAX_ENTRIES)
}

fn text(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes).ok().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata() -> SchemaMetadata {
        let mut m = SchemaMetadata::default();
        m.attributes.insert(
            Bytes::from_static(b"SPLIT_POLICY"),
            Bytes::from_static(b"x.Y"),
        );
        m.attributes.insert(
            Bytes::from_static(b"\x00bin"),
            Bytes::from_static(b"\xff\x00"),
        );
        m.configuration
            .insert("hbase.hregion.max.filesize".into(), "1024".into());
        m
    }

    #[test]
    fn metadata_round_trips_byte_exact() {
        for m in [SchemaMetadata::default(), metadata()] {
            let mut buf = Vec::new();
            put_metadata(&mut buf, &m);
            let mut d = Decoder::new(&buf);
            assert_eq!(get_metadata(&mut d), Some(m));
            assert!(d.is_empty());
        }
    }

    #[test]
    fn malformed_metadata_is_refused() {
        let mut buf = Vec::new();
        put_metadata(&mut buf, &metadata());
        for cut in 0..buf.len() {
            assert_eq!(
                get_metadata(&mut Decoder::new(&buf[..cut])),
                None,
                "cut at {cut}"
            );
        }
        // Two attributes out of order.
        let mut swapped = vec![2];
        for key in [b"b", b"a"] {
            put_len_prefixed(&mut swapped, key);
            put_len_prefixed(&mut swapped, b"v");
        }
        swapped.push(0);
        assert_eq!(get_metadata(&mut Decoder::new(&swapped)), None);
        // Configuration that is not UTF-8.
        let mut binary = vec![0, 1];
        put_len_prefixed(&mut binary, b"\xff");
        put_len_prefixed(&mut binary, b"v");
        assert_eq!(get_metadata(&mut Decoder::new(&binary)), None);
    }
}
