//! Row writes with a `check` parameter, as HBase's REST server does them: `check=put` and
//! `check=delete` (check-and-mutate: the CellSet's last cell is the column and value to
//! compare for equality; 304 when it does not match), `check=increment` and `check=append`
//! (`rr=true` returns the new cells).

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use strata_engine::{Cell, CellType, Get, LATEST_TIMESTAMP};
use strata_server::{Check, CompareOp, TableName, WriteDurability};

use super::{ok_document, ok_empty, Call};
use crate::error::{RestError, RestResult};
use crate::format::Format;
use crate::model::cellset::{CellModel, CellSet, RowModel};
use crate::request::{self, ColumnSpec, RowSpec};

fn bad(message: impl Into<String>) -> RestError {
    RestError::BadRequest(message.into())
}

/// One row of the request body: its key (or the path's row) and its cells.
struct BodyRow {
    key: Bytes,
    cells: Vec<CellModel>,
}

fn body_row(call: &Call<'_>, spec: &RowSpec) -> RestResult<BodyRow> {
    let format = call.body_format()?;
    let set = CellSet::parse(&call.body, format)?;
    let row = set
        .rows
        .into_iter()
        .next()
        .ok_or_else(|| bad("the CellSet has no row"))?;
    Ok(BodyRow {
        key: row.key.unwrap_or_else(|| spec.row.clone()),
        cells: row.cells,
    })
}

/// The column of a body cell, or the path's first column.
fn column_of(cell: &CellModel, spec: &RowSpec) -> RestResult<ColumnSpec> {
    match &cell.column {
        Some(c) => Ok(ColumnSpec::parse(c)),
        None => spec
            .columns
            .first()
            .cloned()
            .ok_or_else(|| bad("Column not specified for check.")),
    }
}

fn full_column(column: &ColumnSpec) -> RestResult<(Bytes, Bytes)> {
    match &column.qualifier {
        Some(q) if !column.family.is_empty() => Ok((column.family.clone(), q.clone())),
        _ => Err(bad("Column incorrectly specified.")),
    }
}

/// Serves a PUT or POST with `?check=`.
pub(crate) fn serve(
    call: &Call<'_>,
    table: &str,
    spec: &RowSpec,
    check: &str,
) -> RestResult<Response> {
    let table = super::table_name(table)?;
    if !spec.is_single_row() {
        return Err(bad("a write addresses one row, not a range or a glob"));
    }
    let row = body_row(call, spec)?;
    let return_result = request::query_text(&call.params, "rr")?.is_some_and(|v| v == "true");
    match check.to_ascii_lowercase().as_str() {
        "put" => check_and_put(call, &table, row),
        "delete" => check_and_delete(call, &table, spec, row),
        "increment" => increment(call, &table, row, return_result),
        "append" => append(call, &table, row, return_result),
        _ => Err(bad(format!("Invalid check value '{check}'"))),
    }
}

fn not_modified() -> Response {
    crate::respond(
        StatusCode::NOT_MODIFIED,
        "text/plain",
        "Value not Modified\r\n",
    )
}

/// The last cell is the check; the others are the puts, one of which must write the checked
/// column.
fn check_and_put(call: &Call<'_>, table: &TableName, row: BodyRow) -> RestResult<Response> {
    let Some((checked, puts)) = row.cells.split_last() else {
        return Err(bad(
            "Either row key is null or no data found for columns specified.",
        ));
    };
    if puts.is_empty() {
        return Err(bad(
            "Either row key is null or no data found for columns specified.",
        ));
    }
    let check_column = checked
        .column
        .clone()
        .ok_or_else(|| bad("Column found to be null."))?;
    let (family, qualifier) = full_column(&ColumnSpec::parse(&check_column))?;
    let mut cells = Vec::with_capacity(puts.len());
    for cell in puts {
        let column = cell
            .column
            .clone()
            .ok_or_else(|| bad("Column found to be null."))?;
        let (f, q) = full_column(&ColumnSpec::parse(&column))?;
        let ts = cell.timestamp.unwrap_or(LATEST_TIMESTAMP);
        cells.push(Cell::put(row.key.clone(), f, q, ts, cell.value.clone()));
    }
    if !puts
        .iter()
        .any(|c| c.column.as_ref() == Some(&check_column))
    {
        return Err(bad("The column to put and check do not match."));
    }
    check_equal_then_apply(
        call,
        table,
        row.key.clone(),
        (family, qualifier),
        checked,
        cells,
    )
}

/// The last cell is the check. Alone, it also names the column to delete (every version);
/// otherwise the other cells name what to delete: a family (versions at or below the cell's
/// timestamp) or a column version at an explicit timestamp.
fn check_and_delete(
    call: &Call<'_>,
    table: &TableName,
    spec: &RowSpec,
    row: BodyRow,
) -> RestResult<Response> {
    let Some((checked, others)) = row.cells.split_last() else {
        return Err(bad("the CellSet row has no cells"));
    };
    let (family, qualifier) = full_column(&column_of(checked, spec)?)?;
    let mut deletes = Vec::new();
    for cell in others {
        let column = cell
            .column
            .clone()
            .ok_or_else(|| bad("Column found to be null."))?;
        let ts = cell.timestamp.unwrap_or(LATEST_TIMESTAMP);
        let marker = match ColumnSpec::parse(&column) {
            ColumnSpec {
                family,
                qualifier: None,
            } => Cell::delete(
                row.key.clone(),
                family,
                Bytes::new(),
                ts,
                CellType::DeleteFamily,
            ),
            ColumnSpec {
                family,
                qualifier: Some(q),
            } => {
                if cell.timestamp.is_none() {
                    // HBase deletes the newest version here; Strata needs its timestamp.
                    return Err(bad(
                        "deleting the newest version of a column needs the version's timestamp",
                    ));
                }
                Cell::delete(row.key.clone(), family, q, ts, CellType::Delete)
            }
        };
        deletes.push(marker);
    }
    if deletes.is_empty() {
        deletes.push(Cell::delete(
            row.key.clone(),
            family.clone(),
            qualifier.clone(),
            LATEST_TIMESTAMP,
            CellType::DeleteColumn,
        ));
    }
    check_equal_then_apply(
        call,
        table,
        row.key.clone(),
        (family, qualifier),
        checked,
        deletes,
    )
}

/// Applies `cells` if `column` of `row` holds exactly the checked cell's value: 200 when
/// applied, 304 when the check failed (HBase REST's answers).
fn check_equal_then_apply(
    call: &Call<'_>,
    table: &TableName,
    row: Bytes,
    (family, qualifier): (Bytes, Bytes),
    checked: &CellModel,
    cells: Vec<Cell>,
) -> RestResult<Response> {
    let check = Check {
        row,
        family,
        qualifier,
        op: CompareOp::Equal,
        value: Some(checked.value.clone()),
    };
    let applied = call.gateway.service.rows().check_and_mutate(
        table,
        &check,
        cells,
        WriteDurability::UseDefault,
    )?;
    Ok(if applied { ok_empty() } else { not_modified() })
}

fn result_response(call: &Call<'_>, key: Bytes, cells: Vec<CellModel>) -> RestResult<Response> {
    let n = call.negotiate(&[Format::Xml, Format::Json])?;
    let set = CellSet {
        rows: vec![RowModel {
            key: Some(key),
            cells,
        }],
    };
    Ok(ok_document(n, set.render(n.format)))
}

/// Each cell's value is a decimal amount to add to its column (one column at a time).
fn increment(call: &Call<'_>, table: &TableName, row: BodyRow, rr: bool) -> RestResult<Response> {
    let service = &call.gateway.service;
    let mut results = Vec::new();
    for cell in &row.cells {
        let column = cell
            .column
            .clone()
            .ok_or_else(|| bad("Column found to be null."))?;
        let (family, qualifier) = full_column(&ColumnSpec::parse(&column))?;
        let amount: i64 = std::str::from_utf8(&cell.value)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .ok_or_else(|| bad("an increment amount must be a decimal number"))?;
        let value = service
            .rows()
            .increment(table, &row.key, &family, &qualifier, amount)?;
        // The new cell's timestamp, read back for the result.
        let get = Get::new(row.key.clone()).column(family.clone(), qualifier.clone());
        let timestamp = service
            .rows()
            .get(table, &get)?
            .and_then(|r| r.cells.first().map(|c| c.timestamp));
        results.push(CellModel {
            column: Some(column),
            timestamp,
            value: Bytes::copy_from_slice(&value.to_be_bytes()),
        });
    }
    if rr {
        return result_response(call, row.key, results);
    }
    Ok(ok_empty())
}

/// Each cell's value is appended to its column, atomically for the row.
fn append(call: &Call<'_>, table: &TableName, row: BodyRow, rr: bool) -> RestResult<Response> {
    let mut columns = Vec::with_capacity(row.cells.len());
    for cell in &row.cells {
        let column = cell
            .column
            .clone()
            .ok_or_else(|| bad("Column found to be null."))?;
        let (family, qualifier) = full_column(&ColumnSpec::parse(&column))?;
        columns.push((family, qualifier, cell.value.clone()));
    }
    let cells = call
        .gateway
        .service
        .rows()
        .append(table, &row.key, &columns)?;
    if rr {
        let rows = CellSet::from_rows(vec![strata_engine::RowResult {
            row: row.key.clone(),
            cells,
        }]);
        let cells = rows.rows.into_iter().flat_map(|r| r.cells).collect();
        return result_response(call, row.key, cells);
    }
    Ok(ok_empty())
}
