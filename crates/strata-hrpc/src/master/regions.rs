//! MasterService's region operations: split, merge, move and the balancer, each carried out
//! before the call answers (as the shell's `split`, `merge_region`, `move`, `balancer` and
//! `balance_switch` do). Moves and the balancer need cluster mode; standalone, the one
//! server has nothing to balance: its balancer is off and stays off.

use strata_server::names::TableName;
use strata_server::table::RegionInfo;
use strata_server::SplitAt;

use crate::call::{Call, CallResult, Reply};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;
use crate::region_name::{self, encoded_name, table_string};

use super::schema::table_name;

/// Serves one region operation.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    match call.method.as_str() {
        "SplitRegion" => split(ctx, call.param()?),
        "MergeTableRegions" => merge(ctx, call.param()?),
        "MoveRegion" => move_region(ctx, call.param()?),
        "Balance" => balance(ctx),
        "SetBalancerRunning" => set_balancer(ctx, call.param()?),
        "IsBalancerEnabled" => {
            let enabled = match ctx.service.admin().cluster_admin() {
                Ok(admin) => admin.balancer_enabled()?,
                Err(_) => false,
            };
            Ok(Reply::message(&pb::EnabledResponse { enabled }))
        }
        other => Err(RemoteException::invalid(format!(
            "MasterService.{other} is not a region operation"
        ))),
    }
}

fn split(ctx: &Context, request: pb::SplitTableRegionRequest) -> CallResult {
    let info = &request.region_info;
    let table = table_name(&info.table_name)?;
    let region = region_with_id(ctx, &table, info.region_id)?;
    let at = match request.split_row.filter(|row| !row.is_empty()) {
        Some(row) => {
            let inside =
                row > region.start_key && (region.end_key.is_empty() || row < region.end_key);
            if !inside {
                return Err(RemoteException::invalid(format!(
                    "split row {row:?} is not inside region {}",
                    region.name
                )));
            }
            SplitAt::Key(row)
        }
        None => SplitAt::Region(region.id),
    };
    ctx.service.admin().split_region(&table, at)?;
    Ok(Reply::message(&pb::SplitTableRegionResponse {
        proc_id: Some(ctx.next_procedure()),
    }))
}

fn merge(ctx: &Context, request: pb::MergeTableRegionsRequest) -> CallResult {
    let [a, b] = request.region.as_slice() else {
        return Err(RemoteException::invalid(
            "Strata merges two adjacent regions at a time",
        ));
    };
    let (table_a, a) = find_region(ctx, a)?;
    let (table_b, b) = find_region(ctx, b)?;
    if table_a != table_b {
        return Err(RemoteException::invalid(
            "regions of different tables cannot be merged",
        ));
    }
    ctx.service.admin().merge_regions(&table_a, a.id, b.id)?;
    Ok(Reply::message(&pb::MergeTableRegionsResponse {
        proc_id: Some(ctx.next_procedure()),
    }))
}

fn move_region(ctx: &Context, request: pb::MoveRegionRequest) -> CallResult {
    let (_, region) = find_region(ctx, &request.region)?;
    // A server's start code is its server id (see the topology).
    let target = request
        .dest_server_name
        .and_then(|s| s.start_code)
        .map(|code| code.to_string());
    ctx.service
        .admin()
        .cluster_admin()?
        .move_region(region.id, target.as_deref())?;
    Ok(Reply::message(&pb::MoveRegionResponse {}))
}

/// As HBase: a balancer switched off does not run (`balancer_ran` false).
fn balance(ctx: &Context) -> CallResult {
    let moved = match ctx.service.admin().cluster_admin() {
        Ok(admin) if admin.balancer_enabled()? => Some(admin.balance()?),
        _ => None,
    };
    let moves = moved.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    Ok(Reply::message(&pb::BalanceResponse {
        balancer_ran: moved.is_some(),
        moves_calculated: moves,
        moves_executed: moves,
    }))
}

fn set_balancer(ctx: &Context, request: pb::SetBalancerRunningRequest) -> CallResult {
    let previous = match ctx.service.admin().cluster_admin() {
        Ok(admin) => admin.set_balancer(request.on)?,
        // Standalone there is no balancer: it was off, and stays off.
        Err(_) => false,
    };
    Ok(Reply::message(&pb::SetBalancerRunningResponse {
        prev_balance_value: Some(previous),
    }))
}

fn not_found(what: &str) -> RemoteException {
    // UnknownRegionException is a DoNotRetryIOException in HBase's client.
    RemoteException::fatal(
        crate::exception::class::UNKNOWN_REGION,
        format!("no region {what}"),
    )
}

fn region_with_id(
    ctx: &Context,
    table: &TableName,
    id: u64,
) -> Result<RegionInfo, RemoteException> {
    ctx.service
        .admin()
        .table_regions(table)?
        .into_iter()
        .find(|r| r.id == id)
        .ok_or_else(|| not_found(&format!("{id} in table {}", table_string(table))))
}

/// The region a specifier names, by full or encoded name (the client sends encoded names
/// for merges and moves).
fn find_region(
    ctx: &Context,
    spec: &pb::RegionSpecifier,
) -> Result<(TableName, RegionInfo), RemoteException> {
    let value = &spec.value[..];
    let shown = String::from_utf8_lossy(value).into_owned();
    if spec.r#type() == pb::region_specifier::RegionSpecifierType::RegionName {
        let parsed = region_name::parse(value).ok_or_else(|| not_found(&shown))?;
        let table = region_name::parse_table(&parsed.table).ok_or_else(|| not_found(&shown))?;
        let id = parsed.id.parse().map_err(|_| not_found(&shown))?;
        let region = region_with_id(ctx, &table, id)?;
        return Ok((table, region));
    }
    for table in ctx.service.admin().list_tables() {
        let text = table_string(&table);
        let regions = ctx.service.admin().table_regions(&table)?;
        if let Some(region) = regions
            .into_iter()
            .find(|r| encoded_name(&text, &r.start_key, r.id).as_bytes() == value)
        {
            return Ok((table, region));
        }
    }
    Err(not_found(&shown))
}
