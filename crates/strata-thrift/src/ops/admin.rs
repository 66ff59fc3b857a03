//! Table administration.

use bytes::Bytes;
use pilota::AHashMap;
use strata_server::table::ServedBy;
use strata_server::Service;

use super::table_name;
use crate::descriptor::{family_from_thrift, family_to_thrift};
use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::{ColumnDescriptor, TRegionInfo, Text};

/// HBase reports region info version 1 (the field is no longer used).
const REGION_VERSION: i8 = 1;

pub fn table_names(service: &Service) -> Vec<Text> {
    service
        .admin()
        .list_tables()
        .iter()
        .map(|t| Text(Bytes::from(t.to_string())))
        .collect()
}

pub fn table_names_enabled(service: &Service) -> CallResult<AHashMap<Text, bool>> {
    let mut out = AHashMap::default();
    for t in service.admin().list_tables() {
        let enabled = service.admin().is_table_enabled(&t).map_err(from_service)?;
        out.insert(Text(Bytes::from(t.to_string())), enabled);
    }
    Ok(out)
}

pub fn create_table(
    service: &Service,
    name: &[u8],
    families: &[ColumnDescriptor],
) -> CallResult<()> {
    let name = table_name(name)?;
    if families.is_empty() {
        return Err(Failure::illegal(format!(
            "table {name} needs at least one column family"
        )));
    }
    let families = families
        .iter()
        .map(family_from_thrift)
        .collect::<CallResult<Vec<_>>>()?;
    service
        .admin()
        .create_table(&name, families, Vec::new())
        .map_err(from_service)
}

pub fn column_descriptors(
    service: &Service,
    name: &[u8],
) -> CallResult<AHashMap<Text, ColumnDescriptor>> {
    let name = table_name(name)?;
    let desc = service
        .admin()
        .describe_table(&name)
        .map_err(from_service)?;
    let mut out = AHashMap::default();
    for f in &desc.families {
        let d = family_to_thrift(f);
        out.insert(d.name.clone().unwrap_or_default(), d);
    }
    Ok(out)
}

/// HBase answers an empty list for a table that does not exist.
pub fn table_regions(service: &Service, name: &[u8], port: u16) -> CallResult<Vec<TRegionInfo>> {
    let name = table_name(name)?;
    let regions = match service.admin().table_regions(&name) {
        Ok(r) => r,
        Err(strata_server::ServiceError::TableNotFound(_)) => return Ok(Vec::new()),
        Err(e) => return Err(from_service(e)),
    };
    Ok(regions
        .into_iter()
        .map(|r| TRegionInfo {
            start_key: Some(Text(r.start_key)),
            end_key: Some(Text(r.end_key)),
            id: Some(i64::try_from(r.id).unwrap_or(i64::MAX)),
            name: Some(Text(Bytes::from(r.name))),
            version: Some(REGION_VERSION),
            server_name: server_of(&r.served_by, service.advertised_host())
                .map(|host| Text(Bytes::from(host))),
            port: match &r.served_by {
                ServedBy::ThisServer => Some(i32::from(port)),
                ServedBy::Peer(at) => Some(i32::from(at.thrift_port)),
                ServedBy::Nobody => None,
            },
        })
        .collect())
}

/// The host a region's location names: this server's or a cluster peer's advertised host
/// (`localhost` standalone); no host while unserved.
fn server_of(served_by: &ServedBy, own_host: &str) -> Option<String> {
    match served_by {
        ServedBy::ThisServer => Some(own_host.to_string()),
        ServedBy::Peer(at) => Some(at.host.clone()),
        ServedBy::Nobody => None,
    }
}

/// `getRegionInfo`: the region holding a row, given HBase's meta row key
/// `table,row,timestamp` (the row may itself contain commas).
pub fn region_info(service: &Service, meta_key: &[u8], port: u16) -> CallResult<TRegionInfo> {
    let first = meta_key.iter().position(|&b| b == b',');
    let last = meta_key.iter().rposition(|&b| b == b',');
    let (Some(first), Some(last)) = (first, last) else {
        return Err(Failure::io(
            "a region lookup key is \"table,row,timestamp\"",
        ));
    };
    let table = &meta_key[..first];
    let row = meta_key
        .get(first + 1..last.max(first + 1))
        .unwrap_or_default();
    let regions = table_regions(service, table, port)?;
    regions
        .into_iter()
        .find(|r| {
            let start = r.start_key.as_ref().map_or(&[][..], |k| k.0.as_ref());
            let end = r.end_key.as_ref().map_or(&[][..], |k| k.0.as_ref());
            start <= row && (end.is_empty() || row < end)
        })
        .ok_or_else(|| {
            Failure::io(format!(
                "no region of table {:?}",
                String::from_utf8_lossy(table)
            ))
        })
}

pub fn delete_table(service: &Service, name: &[u8]) -> CallResult<()> {
    service
        .admin()
        .delete_table(&table_name(name)?)
        .map_err(from_service)
}

pub fn set_enabled(service: &Service, name: &[u8], enabled: bool) -> CallResult<()> {
    let name = table_name(name)?;
    if enabled {
        service.admin().enable_table(&name)
    } else {
        service.admin().disable_table(&name)
    }
    .map_err(from_service)
}

pub fn is_enabled(service: &Service, name: &[u8]) -> CallResult<bool> {
    service
        .admin()
        .is_table_enabled(&table_name(name)?)
        .map_err(from_service)
}

/// `compact`/`majorCompact` take a table or region name; Strata compacts whole tables, so a
/// region name (`table,start,id`) compacts its table.
pub fn compact(service: &Service, name: &[u8], major: bool) -> CallResult<()> {
    let table = name.split(|&b| b == b',').next().unwrap_or(name);
    service
        .admin()
        .compact_table(&table_name(table)?, major)
        .map_err(from_service)
}
