//! Table and family descriptors in HBase's protobuf form. Family attributes are HBase's
//! text attributes (`VERSIONS` => `3`), read and written by `strata_server::family_attrs`.

use bytes::Bytes;
use strata_engine::FamilyOptions;
use strata_server::family_attrs;
use strata_server::names::TableName;
use strata_server::{TableDescriptor, WriteDurability};

use crate::exception::RemoteException;
use crate::pb;

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
    Ok(family)
}

fn pair(key: &str, value: String) -> pb::BytesBytesPair {
    pb::BytesBytesPair {
        first: Bytes::copy_from_slice(key.as_bytes()),
        second: Bytes::from(value),
    }
}

pub fn family_schema(f: &FamilyOptions) -> pb::ColumnFamilySchema {
    pb::ColumnFamilySchema {
        name: Bytes::from(f.name.clone()),
        attributes: family_attrs::describe(f)
            .into_iter()
            .map(|(k, v)| pair(k, v))
            .collect(),
        configuration: Vec::new(),
    }
}

/// The table's DURABILITY attribute, if the schema sets one.
pub fn durability(schema: &pb::TableSchema) -> Result<WriteDurability, RemoteException> {
    for attr in &schema.attributes {
        if &attr.first[..] == b"DURABILITY" {
            let text = String::from_utf8_lossy(&attr.second);
            return text.parse::<WriteDurability>().map_err(|_| {
                RemoteException::invalid(format!("DURABILITY: unknown value {text:?}"))
            });
        }
    }
    Ok(WriteDurability::UseDefault)
}

/// A table's schema as HBase describes it.
pub fn table_schema(d: &TableDescriptor) -> pb::TableSchema {
    let mut attributes = Vec::new();
    if d.durability != WriteDurability::UseDefault {
        attributes.push(pair("DURABILITY", d.durability.to_string()));
    }
    pb::TableSchema {
        table_name: Some(table_name_proto(&d.name)),
        attributes,
        column_families: d.families.iter().map(family_schema).collect(),
        configuration: Vec::new(),
    }
}
