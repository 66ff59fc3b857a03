//! Flush, split, merge and status, addressed by table or by region name as HBase prints it:
//! `table,start_key,id.ENCODED.`, or just ENCODED (32 hex digits).

use bytes::Bytes;
use pilota::FastStr;
use strata_server::{RegionInfo, Service, ServiceError, SplitAt, TableName};

use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::TStrataStatus;
use crate::ops::table_name;

/// A region found by name, with its table.
struct FoundRegion {
    table: TableName,
    region: RegionInfo,
}

/// The encoded part of a full region name (between the last two dots).
pub fn encoded_name(full: &str) -> Option<&str> {
    let trimmed = full.strip_suffix('.')?;
    let (_, encoded) = trimmed.rsplit_once('.')?;
    Some(encoded)
}

/// Finds a region by its full or encoded name in every table.
fn find_region(service: &Service, name: &[u8]) -> CallResult<Option<FoundRegion>> {
    let Ok(name) = std::str::from_utf8(name) else {
        return Ok(None);
    };
    for table in service.admin().list_tables() {
        let regions = match service.admin().table_regions(&table) {
            Ok(r) => r,
            Err(ServiceError::TableNotFound(_)) => continue,
            Err(e) => return Err(from_service(e)),
        };
        let found = regions
            .into_iter()
            .find(|r| r.name == name || encoded_name(&r.name) == Some(name));
        if let Some(region) = found {
            return Ok(Some(FoundRegion { table, region }));
        }
    }
    Ok(None)
}

/// Region names hold a ','; table names never do.
fn looks_like_region(name: &[u8]) -> bool {
    name.contains(&b',') || (name.len() == 32 && name.iter().all(u8::is_ascii_hexdigit))
}

fn region_or_missing(service: &Service, name: &[u8]) -> CallResult<FoundRegion> {
    find_region(service, name)?.ok_or_else(|| {
        Failure::io(format!(
            "UnknownRegionException: {}",
            String::from_utf8_lossy(name)
        ))
    })
}

/// Flushes a table, or the table of a region (Strata flushes whole tables).
pub fn flush(service: &Service, name: &[u8]) -> CallResult<()> {
    let table = if looks_like_region(name) {
        region_or_missing(service, name)?.table
    } else {
        table_name(name)?
    };
    service.admin().flush_table(&table).map_err(from_service)
}

/// Splits one region (by name) or every region of a table, at `point` or near the middle.
pub fn split(service: &Service, name: &[u8], point: Option<Bytes>) -> CallResult<()> {
    let point = point.filter(|p| !p.is_empty());
    if looks_like_region(name) {
        let found = region_or_missing(service, name)?;
        let at = point.map_or(SplitAt::Region(found.region.id), SplitAt::Key);
        return split_one(service, &found.table, at);
    }
    let table = table_name(name)?;
    if let Some(point) = point {
        return split_one(service, &table, SplitAt::Key(point));
    }
    let regions = service
        .admin()
        .table_regions(&table)
        .map_err(from_service)?;
    for r in regions {
        // A region too small to split (empty, or a single row) stays as it is, as in HBase.
        match service.admin().split_region(&table, SplitAt::Region(r.id)) {
            Ok(_) | Err(ServiceError::InvalidArgument(_)) => {}
            Err(e) => return Err(from_service(e)),
        }
    }
    Ok(())
}

fn split_one(service: &Service, table: &TableName, at: SplitAt) -> CallResult<()> {
    service
        .admin()
        .split_region(table, at)
        .map(|_| ())
        .map_err(from_service)
}

/// Merges two adjacent regions of one table.
pub fn merge(service: &Service, a: &[u8], b: &[u8]) -> CallResult<()> {
    let first = region_or_missing(service, a)?;
    let second = region_or_missing(service, b)?;
    if first.table != second.table {
        return Err(Failure::illegal(format!(
            "regions of different tables ({} and {}) cannot be merged",
            first.table, second.table
        )));
    }
    service
        .admin()
        .merge_regions(&first.table, first.region.id, second.region.id)
        .map(|_| ())
        .map_err(from_service)
}

/// Moves a region (cluster mode, on the master) to `server`, or to another live server.
pub fn move_region(service: &Service, name: &[u8], server: Option<FastStr>) -> CallResult<FastStr> {
    let found = region_or_missing(service, name)?;
    let admin = service.admin().cluster_admin().map_err(from_service)?;
    let target = server.as_deref().filter(|s| !s.is_empty());
    let moved_to = admin
        .move_region(found.region.id, target)
        .map_err(from_service)?;
    Ok(FastStr::from_string(moved_to))
}

/// Serves a closed region again (cluster mode); answers its server.
pub fn assign(service: &Service, name: &[u8]) -> CallResult<FastStr> {
    let found = region_or_missing(service, name)?;
    let admin = service.admin().cluster_admin().map_err(from_service)?;
    let owner = admin.assign(found.region.id).map_err(from_service)?;
    Ok(FastStr::from_string(owner))
}

/// Closes a region until it is assigned again (cluster mode).
pub fn unassign(service: &Service, name: &[u8]) -> CallResult<()> {
    let found = region_or_missing(service, name)?;
    let admin = service.admin().cluster_admin().map_err(from_service)?;
    admin.unassign(found.region.id).map_err(from_service)
}

/// Runs the balancer once (cluster mode); answers how many regions moved.
pub fn balance(service: &Service) -> CallResult<i32> {
    let admin = service.admin().cluster_admin().map_err(from_service)?;
    let moved = admin.balance().map_err(from_service)?;
    Ok(i32::try_from(moved).unwrap_or(i32::MAX))
}

/// Decommissions (or recommissions) a server (cluster mode); answers how many regions moved.
pub fn decommission(service: &Service, server: &str, on: bool) -> CallResult<i32> {
    let admin = service.admin().cluster_admin().map_err(from_service)?;
    let moved = admin.decommission(server, on).map_err(from_service)?;
    Ok(i32::try_from(moved).unwrap_or(i32::MAX))
}

/// The decommissioned servers (cluster mode).
pub fn decommissioned(service: &Service) -> CallResult<Vec<FastStr>> {
    let admin = service.admin().cluster_admin().map_err(from_service)?;
    let servers = admin.decommissioned().map_err(from_service)?;
    Ok(servers.into_iter().map(FastStr::from_string).collect())
}

/// Turns the balancer on or off (cluster mode); answers whether it was on.
pub fn balance_switch(service: &Service, on: bool) -> CallResult<bool> {
    let admin = service.admin().cluster_admin().map_err(from_service)?;
    admin.set_balancer(on).map_err(from_service)
}

pub fn status(service: &Service) -> CallResult<TStrataStatus> {
    let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let tables = service.admin().list_tables();
    let mut regions = 0;
    for t in &tables {
        regions += service.admin().table_regions(t).map_or(0, |r| r.len());
    }
    let servers = service.admin().server_counts();
    Ok(TStrataStatus {
        version: Some(FastStr::from_static_str(env!("CARGO_PKG_VERSION"))),
        namespaces: Some(count(service.admin().list_namespaces().len())),
        tables: Some(count(tables.len())),
        regions: Some(count(regions)),
        active_masters: Some(count(servers.active_masters)),
        backup_masters: Some(count(servers.backup_masters)),
        live_servers: Some(count(servers.servers)),
        dead_servers: Some(count(servers.dead)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_names_and_region_shapes() {
        let full = "t,m,7.0123456789abcdef0123456789abcdef.";
        assert_eq!(encoded_name(full), Some("0123456789abcdef0123456789abcdef"));
        assert_eq!(encoded_name("t"), None);
        assert!(looks_like_region(full.as_bytes()));
        assert!(looks_like_region(b"0123456789abcdef0123456789abcdef"));
        assert!(!looks_like_region(b"ns:table"));
    }
}
