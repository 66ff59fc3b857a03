//! Namespaces, table creation with every family setting and split keys, schema changes and
//! truncation.

use bytes::Bytes;
use pilota::FastStr;
use strata_engine::FamilyOptions;
use strata_server::{AlterOp, Service, ServiceError, TableName, WriteDurability};

use super::family::{family_name, overlay, to_thrift};
use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::TStrataFamily;
use crate::ops::table_name;

pub fn list_namespaces(service: &Service) -> Vec<FastStr> {
    service
        .admin()
        .list_namespaces()
        .into_iter()
        .map(FastStr::from)
        .collect()
}

pub fn create_namespace(service: &Service, name: &str) -> CallResult<()> {
    service.admin().create_namespace(name).map_err(from_service)
}

pub fn delete_namespace(service: &Service, name: &str) -> CallResult<()> {
    service.admin().drop_namespace(name).map_err(from_service)
}

/// Creates a table; unset family settings take HBase's defaults, an unset durability is
/// USE_DEFAULT.
pub fn create_table(
    service: &Service,
    name: &[u8],
    families: &[TStrataFamily],
    split_keys: Vec<Bytes>,
    durability: Option<&str>,
) -> CallResult<()> {
    let name = table_name(name)?;
    let families = families
        .iter()
        .map(|f| overlay(FamilyOptions::new(family_name(f)?), f))
        .collect::<CallResult<Vec<_>>>()?;
    let durability = durability.map(parse_durability).transpose()?;
    service
        .admin()
        .create_table_with_durability(&name, families, split_keys, durability.unwrap_or_default())
        .map_err(from_service)
}

/// HBase's durability name, or IllegalArgument naming the five.
fn parse_durability(text: &str) -> CallResult<WriteDurability> {
    text.parse::<WriteDurability>()
        .map_err(|e| Failure::illegal(e.to_string()))
}

/// The table's DURABILITY by HBase's name.
pub fn table_durability(service: &Service, name: &[u8]) -> CallResult<FastStr> {
    let desc = service
        .admin()
        .describe_table(&table_name(name)?)
        .map_err(from_service)?;
    Ok(FastStr::from_static_str(desc.durability.name()))
}

/// Sets the table's DURABILITY (a missing value is refused, not taken as USE_DEFAULT).
pub fn set_table_durability(
    service: &Service,
    name: &[u8],
    durability: Option<&str>,
) -> CallResult<()> {
    let table = table_name(name)?;
    let text = durability.ok_or_else(|| Failure::illegal("a durability is required"))?;
    let op = AlterOp::SetDurability(parse_durability(text)?);
    service
        .admin()
        .alter_table(&table, op)
        .map_err(from_service)
}

pub fn describe_table(service: &Service, name: &[u8]) -> CallResult<Vec<TStrataFamily>> {
    let desc = service
        .admin()
        .describe_table(&table_name(name)?)
        .map_err(from_service)?;
    Ok(desc.families.iter().map(to_thrift).collect())
}

/// Adds `family` or changes the settings it gives of the existing family of that name.
pub fn alter_family(service: &Service, name: &[u8], family: &TStrataFamily) -> CallResult<()> {
    let table = table_name(name)?;
    let wanted = family_name(family)?;
    let desc = service
        .admin()
        .describe_table(&table)
        .map_err(from_service)?;
    match desc.families.into_iter().find(|f| f.name == wanted) {
        Some(existing) => {
            let op = AlterOp::ModifyFamily(overlay(existing, family)?);
            service
                .admin()
                .alter_table(&table, op)
                .map_err(from_service)
        }
        None => {
            let added = overlay(FamilyOptions::new(wanted), family)?;
            offline(service, &table, AlterOp::AddFamily(added))
        }
    }
}

pub fn delete_family(service: &Service, name: &[u8], family: &[u8]) -> CallResult<()> {
    let table = table_name(name)?;
    let family = family.strip_suffix(b":").unwrap_or(family);
    offline(
        service,
        &table,
        AlterOp::DeleteFamily(Bytes::copy_from_slice(family)),
    )
}

/// Strata adds and deletes families with the table disabled; HBase 2's shell does both on an
/// enabled table, so an enabled table is disabled for the change and enabled again after.
fn offline(service: &Service, table: &TableName, op: AlterOp) -> CallResult<()> {
    let was_enabled = service
        .admin()
        .is_table_enabled(table)
        .map_err(from_service)?;
    if was_enabled {
        service.admin().disable_table(table).map_err(from_service)?;
    }
    let altered = service.admin().alter_table(table, op);
    if was_enabled {
        service.admin().enable_table(table).map_err(from_service)?;
    }
    altered.map_err(from_service)
}

/// Empties a table (disabling it first, as HBase's truncate does); it ends enabled.
pub fn truncate_table(service: &Service, name: &[u8], preserve_splits: bool) -> CallResult<()> {
    let table = table_name(name)?;
    match service.admin().disable_table(&table) {
        Ok(()) | Err(ServiceError::TableDisabled(_)) => {}
        Err(e) => return Err(from_service(e)),
    }
    service
        .admin()
        .truncate_table(&table, preserve_splits)
        .map_err(from_service)
}

/// A namespace name sent as a Thrift string; a missing one is rejected by the service.
pub fn namespace(name: Option<FastStr>) -> CallResult<String> {
    name.map(|n| n.to_string())
        .ok_or_else(|| Failure::illegal("a namespace name is required"))
}
