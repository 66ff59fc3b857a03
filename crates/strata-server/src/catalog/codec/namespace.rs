//! A namespace record's value: its configuration (HBase's `NamespaceDescriptor`
//! configuration, such as quota settings), kept as the client gave it.
//!
//! A namespace without configuration has an empty value, which is also what every
//! namespace record written before configurations were kept holds. Otherwise: the version
//! byte, then the configuration as a table record's metadata encodes it (no attributes).
//! Layout: docs/format.md, "Catalog records".

use std::collections::BTreeMap;

use strata_engine::codec::Decoder;
use strata_engine::SchemaMetadata;

use super::metadata::{get_metadata, put_metadata};
use crate::error::{Result, ServiceError};

/// A namespace's configuration, key to value.
pub type NamespaceConfig = BTreeMap<String, String>;

/// The version written and the only one read.
const NAMESPACE_VERSION: u8 = 1;

/// Encodes a namespace record's value.
pub fn encode_namespace(config: &NamespaceConfig) -> Vec<u8> {
    if config.is_empty() {
        return Vec::new();
    }
    let mut buf = vec![NAMESPACE_VERSION];
    let metadata = SchemaMetadata {
        attributes: BTreeMap::new(),
        configuration: config.clone(),
    };
    put_metadata(&mut buf, &metadata);
    buf
}

/// Decodes a namespace record's value; anything malformed is `CatalogCorrupt`.
pub fn decode_namespace(bytes: &[u8]) -> Result<NamespaceConfig> {
    if bytes.is_empty() {
        return Ok(NamespaceConfig::new());
    }
    let bad = |what: &str| ServiceError::CatalogCorrupt(format!("namespace record: {what}"));
    let mut d = Decoder::new(bytes);
    if d.u8() != Some(NAMESPACE_VERSION) {
        return Err(bad("unknown version"));
    }
    let metadata = get_metadata(&mut d).ok_or_else(|| bad("malformed configuration"))?;
    if !d.is_empty() {
        return Err(bad("trailing bytes"));
    }
    if !metadata.attributes.is_empty() {
        return Err(bad("attributes where there are none"));
    }
    Ok(metadata.configuration)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> NamespaceConfig {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn no_configuration_is_the_empty_value_older_records_hold() {
        assert!(encode_namespace(&NamespaceConfig::new()).is_empty());
        assert_eq!(decode_namespace(&[]).unwrap(), NamespaceConfig::new());
    }

    #[test]
    fn a_configuration_round_trips() {
        let c = config(&[("hbase.namespace.quota.maxtables", "5"), ("k", "")]);
        assert_eq!(decode_namespace(&encode_namespace(&c)).unwrap(), c);
    }

    #[test]
    fn malformed_values_are_corruption() {
        let good = encode_namespace(&config(&[("a", "b")]));
        let mut unknown_version = good.clone();
        unknown_version[0] = 9;
        let mut trailing = good.clone();
        trailing.push(0);
        for bad in [unknown_version, trailing, good[..good.len() - 1].to_vec()] {
            let err = decode_namespace(&bad).unwrap_err();
            assert!(matches!(err, ServiceError::CatalogCorrupt(_)), "{err:?}");
        }
    }
}
