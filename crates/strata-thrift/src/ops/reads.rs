//! Point reads: one column (`get`, `getVer`, `getVerTs`) and whole rows (`getRow*`, `getRows*`).

use bytes::Bytes;
use strata_engine::{Get, TimeRange};
use strata_server::Service;

use super::{before, check_row, table_name};
use crate::columns::{self, ColumnSpec};
use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::{TCell, TRowResult};
use crate::results::{row_results, tcells};

/// Versions of one column spec (a bare family reads every column of it).
pub fn cells(
    service: &Service,
    table: &[u8],
    row: Bytes,
    column: &Bytes,
    versions: i32,
    range: TimeRange,
) -> CallResult<Vec<TCell>> {
    let table = table_name(table)?;
    check_row(&row)?;
    let versions = u32::try_from(versions)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| Failure::illegal(format!("numVersions must be positive, got {versions}")))?;
    let mut get = Get::new(row).versions(versions).time_range(range);
    columns::add(&mut get.columns, ColumnSpec::parse(column));
    let row = service.rows().get(&table, &get).map_err(from_service)?;
    Ok(tcells(row.as_ref()))
}

/// Newest versions of the selected columns of each row, in the order asked; rows with nothing
/// visible are left out. `columns: None` reads every column.
pub fn rows(
    service: &Service,
    table: &[u8],
    rows: Vec<Bytes>,
    columns: Option<&[Bytes]>,
    timestamp: i64,
) -> CallResult<Vec<TRowResult>> {
    let table = table_name(table)?;
    let range = before(timestamp)?;
    let selection = columns::selection(columns);
    let mut found = Vec::with_capacity(rows.len());
    for row in rows {
        check_row(&row)?;
        let get = Get {
            row,
            columns: selection.clone(),
            max_versions: 1,
            time_range: range,
        };
        if let Some(r) = service.rows().get(&table, &get).map_err(from_service)? {
            found.push(r);
        }
    }
    Ok(row_results(&found, false))
}
