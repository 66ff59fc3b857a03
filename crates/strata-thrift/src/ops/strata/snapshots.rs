//! HBase's snapshot commands (`snapshot`, `list_snapshots`, `delete_snapshot`,
//! `clone_snapshot`, `restore_snapshot`) as Strata extension methods.

use pilota::FastStr;
use strata_server::Service;

use crate::failure::{from_service, CallResult};
use crate::gen::volo_gen::hbase::TStrataSnapshot;
use crate::ops::table_name;

pub fn snapshot(service: &Service, table: &[u8], name: &str) -> CallResult<()> {
    let table = table_name(table)?;
    service
        .admin()
        .snapshot_table(&table, name)
        .map_err(from_service)
}

pub fn list(service: &Service) -> CallResult<Vec<TStrataSnapshot>> {
    let snapshots = service.admin().list_snapshots().map_err(from_service)?;
    Ok(snapshots
        .into_iter()
        .map(|s| TStrataSnapshot {
            name: Some(FastStr::from_string(s.name)),
            table: Some(bytes::Bytes::from(s.table.to_string()).into()),
            creation_time: Some(s.created_at_ms),
            regions: Some(i32::try_from(s.regions).unwrap_or(i32::MAX)),
            files: Some(i32::try_from(s.files).unwrap_or(i32::MAX)),
            bytes: Some(i64::try_from(s.bytes).unwrap_or(i64::MAX)),
        })
        .collect())
}

pub fn delete(service: &Service, name: &str) -> CallResult<()> {
    service.admin().delete_snapshot(name).map_err(from_service)
}

pub fn clone(service: &Service, name: &str, table: &[u8]) -> CallResult<()> {
    let table = table_name(table)?;
    service
        .admin()
        .clone_snapshot(name, &table)
        .map_err(from_service)
}

pub fn restore(service: &Service, name: &str) -> CallResult<()> {
    service.admin().restore_snapshot(name).map_err(from_service)
}
