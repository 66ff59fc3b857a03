//! ClientService.Get: one row of a region, or a row of hbase:meta.

use strata_engine::Get;
use strata_server::names::TableName;

use super::cell_blocks::ResponseCells;
use super::regions::{self, Target};
use super::{filters, reads};
use crate::call::{Call, CallResult};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::{meta, pb, results};

/// Serves Get.
pub fn serve(ctx: &Context, call: &Call) -> CallResult {
    let request: pb::GetRequest = call.param()?;
    let result = match regions::resolve(ctx, Some(&request.region))? {
        Target::Meta => meta::get(ctx, &request.get)?,
        Target::Region { table, .. } => get(ctx, &table, &request.get)?,
    };
    let mut result = result;
    let mut cells = ResponseCells::for_call(call);
    cells.take(&mut result);
    Ok(cells.reply(&pb::GetResponse {
        result: Some(result),
    }))
}

/// Reads one row as HBase's Get asks.
pub fn get(ctx: &Context, table: &TableName, get: &pb::Get) -> Result<pb::Result, RemoteException> {
    if get.closest_row_before() {
        return Err(RemoteException::invalid(
            "closest-row-before gets were removed in HBase 2.0",
        ));
    }
    if get.store_limit.is_some() || get.store_offset.is_some() {
        return Err(RemoteException::invalid(
            "per-family result limits and offsets are not supported by Strata yet",
        ));
    }
    let read = Get {
        row: get.row.clone(),
        columns: reads::columns(&get.column),
        max_versions: reads::max_versions(get.max_versions())?,
        time_range: reads::time_range(get.time_range.as_ref())?,
    };
    let filter = get
        .filter
        .as_ref()
        .map(filters::decode)
        .transpose()?
        .flatten();
    let row = ctx.service.rows().get_filtered(table, &read, filter)?;
    if get.existence_only() {
        return Ok(pb::Result {
            exists: Some(row.is_some()),
            ..Default::default()
        });
    }
    Ok(results::result(row.as_ref()))
}
