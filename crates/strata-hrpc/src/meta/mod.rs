//! hbase:meta, computed from the region directory rather than stored.
//!
//! A client finds a row's region by a reversed scan of meta from `<table>,<row>,99999999999999`
//! and lists a table's regions by a forward scan; it reads a table's state with a Get of
//! row `<table>`, column `table:state`. Meta's rows are built on each call from the
//! service's tables and regions, so they are never stale relative to the directory.

mod key;
mod rows;

use strata_engine::RowResult;

use crate::client::{filters, reads};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::{pb, results};

pub use key::MetaKey;

/// A Get of one meta row.
pub fn get(ctx: &Context, get: &pb::Get) -> Result<pb::Result, RemoteException> {
    let wanted = MetaKey::parse(&get.row);
    let row = rows::all(ctx)?
        .into_iter()
        .find(|r| MetaKey::parse(&r.row) == wanted && r.row == get.row);
    let row = row.and_then(|r| select(r, &get.column));
    if get.existence_only() {
        return Ok(pb::Result {
            exists: Some(row.is_some()),
            ..Default::default()
        });
    }
    Ok(results::result(row.as_ref()))
}

/// A whole meta scan, answered in one response (meta is small, and computed).
pub fn scan(
    ctx: &Context,
    scan: &pb::Scan,
    request: &pb::ScanRequest,
) -> Result<pb::ScanResponse, RemoteException> {
    let range = key::Range::of(scan);
    let mut filter = scan
        .filter
        .as_ref()
        .map(filters::decode)
        .transpose()?
        .flatten();
    if let Some(f) = filter.as_mut() {
        f.set_reversed(scan.reversed());
    }
    let limit = match request.limit_of_rows() {
        0 => usize::MAX,
        n => n as usize,
    };
    let mut rows: Vec<RowResult> = rows::all(ctx)?
        .into_iter()
        .filter(|r| range.contains(&MetaKey::parse(&r.row)))
        .filter_map(|r| select(r, &scan.column))
        .collect();
    if scan.reversed() {
        rows.reverse();
    }
    let mut out = Vec::new();
    for row in rows {
        if out.len() >= limit {
            break;
        }
        let row = match filter.as_mut() {
            None => Some(row),
            Some(f) => match f.filter_row(row) {
                strata_server::filter::RowOutcome::Keep(row) => Some(row),
                strata_server::filter::RowOutcome::Skip => None,
                strata_server::filter::RowOutcome::StopScan => break,
            },
        };
        out.extend(row);
    }
    Ok(pb::ScanResponse {
        scanner_id: Some(0),
        more_results: Some(false),
        more_results_in_region: Some(false),
        ttl: Some(ctx.scanners.lease_ms()),
        results: out.iter().map(|r| results::result(Some(r))).collect(),
        ..Default::default()
    })
}

/// The row with only the requested columns; `None` when nothing is left.
fn select(mut row: RowResult, columns: &[pb::Column]) -> Option<RowResult> {
    let selection = reads::columns(columns);
    if !selection.is_empty() {
        row.cells.retain(|c| match selection.get(&c.family) {
            None => false,
            Some(None) => true,
            Some(Some(qualifiers)) => qualifiers.contains(&c.qualifier),
        });
    }
    (!row.cells.is_empty()).then_some(row)
}
