//! Table and family descriptors in HBase's protobuf form. Family attributes are HBase's
//! text attributes (`VERSIONS` => `3`), read and written by `strata_server::family_attrs`;
//! every attribute and configuration entry Strata does not act on is kept byte for byte
//! in the descriptor's metadata and returned as given.

use bytes::Bytes;
use strata_engine::{FamilyOptions, SchemaMetadata};
use strata_server::family_attrs;
use strata_server::names::TableName;
use strata_server::{TableDescriptor, WriteDurability};

use crate::exception::RemoteException;
use crate::pb;

/// The table attribute Strata acts on; every other one is metadata.
const DURABILITY: &[u8] = b"DURABILITY";

/// A table name from its protobuf form.
pub fn table_name(name: &pb::TableName) -> Result<TableName, RemoteException> {
    let text = |b: &Bytes| {
        String::from_utf8(b.to_vec())
            .map_err(|_| RemoteException::invalid("a table name must be UTF-8"))
    };
    let namespace = text(&name.namespace)?;
    Ok(TableName {
        namespace: if namespace.is_empty() {
            "default".to_string()
        } else {
            namespace
        },
        name: text(&name.qualifier)?,
    })
}

pub fn table_name_proto(name: &TableName) -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from(name.namespace.clone()),
        qualifier: Bytes::from(name.name.clone()),
    }
}

fn configuration(pairs: &[pb::NameStringPair]) -> std::collections::BTreeMap<String, String> {
    pairs
        .iter()
        .map(|p| (p.name.clone(), p.value.clone()))
        .collect()
}

fn configuration_pairs(metadata: &SchemaMetadata) -> Vec<pb::NameStringPair> {
    metadata
        .configuration
        .iter()
        .map(|(name, value)| pb::NameStringPair {
            name: name.clone(),
            value: value.clone(),
        })
        .collect()
}

/// A family from its schema.
pub fn family(schema: &pb::ColumnFamilySchema) -> Result<FamilyOptions, RemoteException> {
    if schema.name.is_empty() {
        return Err(RemoteException::invalid("a column family needs a name"));
    }
    let mut family = FamilyOptions::new(schema.name.to_vec());
    for pair in &schema.attributes {
        let key = String::from_utf8_lossy(&pair.first);
        let value = String::from_utf8_lossy(&pair.second);
        family_attrs::apply(&mut family, &key, &value).map_err(RemoteException::invalid)?;
    }
    family.metadata.configuration = configuration(&schema.configuration);
    Ok(family)
}

fn pair(key: impl Into<Bytes>, value: impl Into<Bytes>) -> pb::BytesBytesPair {
    pb::BytesBytesPair {
        first: key.into(),
        second: value.into(),
    }
}

pub fn family_schema(f: &FamilyOptions) -> pb::ColumnFamilySchema {
    pb::ColumnFamilySchema {
        name: Bytes::from(f.name.clone()),
        attributes: family_attrs::describe(f)
            .into_iter()
            .map(|(k, v)| pair(k, v))
            .collect(),
        configuration: configuration_pairs(&f.metadata),
    }
}

/// A table descriptor from its schema: families, DURABILITY, and the rest as metadata.
pub fn descriptor(schema: &pb::TableSchema) -> Result<TableDescriptor, RemoteException> {
    let name = table_name(
        schema
            .table_name
            .as_ref()
            .ok_or_else(|| RemoteException::invalid("the table schema has no name"))?,
    )?;
    let families = schema
        .column_families
        .iter()
        .map(family)
        .collect::<Result<Vec<_>, _>>()?;
    let mut durability = WriteDurability::UseDefault;
    let mut metadata = SchemaMetadata::default();
    for attr in &schema.attributes {
        if &attr.first[..] == DURABILITY {
            let text = String::from_utf8_lossy(&attr.second);
            durability = text.parse::<WriteDurability>().map_err(|_| {
                RemoteException::invalid(format!("DURABILITY: unknown value {text:?}"))
            })?;
        } else {
            metadata
                .attributes
                .insert(attr.first.clone(), attr.second.clone());
        }
    }
    metadata.configuration = configuration(&schema.configuration);
    Ok(TableDescriptor {
        name,
        families,
        durability,
        metadata,
    })
}

/// A table's schema as HBase describes it.
pub fn table_schema(d: &TableDescriptor) -> pb::TableSchema {
    let mut attributes: Vec<pb::BytesBytesPair> = d
        .metadata
        .attributes
        .iter()
        .map(|(k, v)| pair(k.clone(), v.clone()))
        .collect();
    if d.durability != WriteDurability::UseDefault {
        attributes.push(pair(DURABILITY, d.durability.to_string()));
    }
    pb::TableSchema {
        table_name: Some(table_name_proto(&d.name)),
        attributes,
        column_families: d.families.iter().map(family_schema).collect(),
        configuration: configuration_pairs(&d.metadata),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_attributes_and_configuration_round_trip_byte_exact() {
        let schema = pb::TableSchema {
            table_name: Some(table_name_proto(&TableName {
                namespace: "default".into(),
                name: "t".into(),
            })),
            attributes: vec![
                pair(&b"SPLIT_POLICY"[..], &b"org.example.Policy"[..]),
                pair(&b"\x00binary"[..], &b"\xff\x01"[..]),
                pair(DURABILITY, &b"ASYNC_WAL"[..]),
            ],
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                attributes: vec![
                    pair(&b"VERSIONS"[..], &b"4"[..]),
                    pair(&b"OWNER"[..], &b"me"[..]),
                ],
                configuration: vec![pb::NameStringPair {
                    name: "k".into(),
                    value: "v".into(),
                }],
            }],
            configuration: vec![pb::NameStringPair {
                name: "hbase.x".into(),
                value: "1".into(),
            }],
        };
        let d = descriptor(&schema).unwrap();
        assert_eq!(d.durability, WriteDurability::AsyncWal);
        assert_eq!(d.families[0].max_versions, 4);
        let back = table_schema(&d);
        for attr in &schema.attributes {
            assert!(back.attributes.contains(attr), "{attr:?}");
        }
        assert_eq!(back.configuration, schema.configuration);
        let family = &back.column_families[0];
        assert!(family.attributes.contains(&pair(&b"OWNER"[..], &b"me"[..])));
        assert_eq!(
            family.configuration,
            schema.column_families[0].configuration
        );
    }
}
