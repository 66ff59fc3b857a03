//! `/<table>/<row spec>`: GET, PUT / POST and DELETE of cells, `/<table>/multiget` and
//! `/<table>/<prefix>*` table scans.

use axum::http::header;
use axum::response::Response;
use bytes::Bytes;
use strata_engine::{Cell, CellType, Scan, TimeRange, LATEST_TIMESTAMP};
use strata_server::WriteDurability;

use super::read::{apply_versions, collect_scan, read_spec, selection};
use super::{ok_document, ok_empty, table_name, Call};
use crate::error::{RestError, RestResult};
use crate::format::Format;
use crate::model::cellset::CellSet;
use crate::request::{self, prefix_end, ColumnSpec, RowSpec, TimeSpec};

/// What a row GET can answer with: XML by default, as HBase.
const ROW_FORMATS: &[Format] = &[Format::Xml, Format::Json, Format::Binary];

fn bad(message: impl Into<String>) -> RestError {
    RestError::BadRequest(message.into())
}

pub(crate) fn get(call: &Call<'_>, table: &str, mut spec: RowSpec) -> RestResult<Response> {
    let n = call.negotiate(ROW_FORMATS)?;
    let table = table_name(table)?;
    apply_versions(call, &mut spec)?;
    if n.format == Format::Binary && (spec.columns.len() != 1 || !spec.is_single_row()) {
        return Err(bad(
            "Default 'GET' method only works if there is exactly 1 column in the query.",
        ));
    }
    let rows = read_spec(call, &table, &spec)?;
    if rows.iter().all(|r| r.cells.is_empty()) {
        return Err(RestError::NotFound(format!(
            "no cells at row {:?}",
            String::from_utf8_lossy(&spec.row)
        )));
    }
    if n.format == Format::Binary {
        let Some(cell) = rows.into_iter().flat_map(|r| r.cells).next() else {
            return Err(RestError::NotFound("no cell".into()));
        };
        let mut response = ok_document(n, cell.value);
        response
            .headers_mut()
            .insert("X-Timestamp", header::HeaderValue::from(cell.timestamp));
        return Ok(response);
    }
    Ok(ok_document(n, CellSet::from_rows(rows).render(n.format)))
}

/// Splits `family:qualifier`; a cell needs both (the qualifier may be empty).
fn cell_column(column: &[u8]) -> RestResult<(Bytes, Bytes)> {
    match ColumnSpec::parse(column) {
        ColumnSpec {
            family,
            qualifier: Some(q),
        } if !family.is_empty() => Ok((family, q)),
        _ => Err(bad(format!(
            "column {:?} must be family:qualifier",
            String::from_utf8_lossy(column)
        ))),
    }
}

/// The path's first column as `family:qualifier` bytes.
fn path_column(spec: &RowSpec) -> Option<Vec<u8>> {
    spec.columns.first().map(|c| match &c.qualifier {
        None => c.family.to_vec(),
        Some(q) => [&c.family[..], b":", &q[..]].concat(),
    })
}

pub(crate) fn put(call: &Call<'_>, table: &str, spec: &RowSpec) -> RestResult<Response> {
    if let Some(check) = request::query_text(&call.params, "check")? {
        if !check.is_empty() {
            return super::check::serve(call, table, spec, &check);
        }
    }
    let table = table_name(table)?;
    if !spec.is_single_row() {
        return Err(bad("a write addresses one row, not a range or a glob"));
    }
    let cells = match call.body_format()? {
        Format::Binary => vec![binary_cell(call, spec)?],
        Format::Xml | Format::Json => cellset_cells(call, spec)?,
        other => return Err(RestError::UnsupportedMediaType(format!("{other:?}"))),
    };
    call.gateway
        .service
        .rows()
        .mutate(&table, cells, WriteDurability::UseDefault)?;
    Ok(ok_empty())
}

/// The cell of a raw-value PUT: the path's row and column, which the `X-Row` and
/// `X-Column` headers override, at the `X-Timestamp` header's time or now. Like HBase's REST
/// server, a timestamp in the path is not used.
fn binary_cell(call: &Call<'_>, spec: &RowSpec) -> RestResult<Cell> {
    let row = call.header("X-Row").map_or_else(
        || spec.row.clone(),
        |r| Bytes::copy_from_slice(r.as_bytes()),
    );
    let column = call
        .header("X-Column")
        .map(|c| c.as_bytes().to_vec())
        .or_else(|| path_column(spec))
        .ok_or_else(|| bad("Column found to be null."))?;
    let mut timestamp = LATEST_TIMESTAMP;
    if let Some(ts) = call.header("X-Timestamp") {
        timestamp = ts
            .trim()
            .parse()
            .map_err(|_| bad(format!("X-Timestamp {ts:?} is not a number")))?;
    }
    let (family, qualifier) = cell_column(&column)?;
    Ok(Cell::put(
        row,
        family,
        qualifier,
        timestamp,
        call.body.clone(),
    ))
}

/// The cells of a CellSet body; rows without a key take the path's row, cells without a
/// column the path's column.
fn cellset_cells(call: &Call<'_>, spec: &RowSpec) -> RestResult<Vec<Cell>> {
    let format = call.body_format()?;
    let set = CellSet::parse(&call.body, format)?;
    let mut cells = Vec::new();
    for row in set.rows {
        if row.cells.is_empty() {
            return Err(bad("a row in the CellSet has no cells"));
        }
        let key = row.key.unwrap_or_else(|| spec.row.clone());
        for cell in row.cells {
            let column = cell
                .column
                .map(|c| c.to_vec())
                .or_else(|| path_column(spec))
                .ok_or_else(|| bad("Column found to be null."))?;
            let (family, qualifier) = cell_column(&column)?;
            let ts = cell.timestamp.unwrap_or(LATEST_TIMESTAMP);
            cells.push(Cell::put(key.clone(), family, qualifier, ts, cell.value));
        }
    }
    Ok(cells)
}

pub(crate) fn delete(call: &Call<'_>, table: &str, spec: &RowSpec) -> RestResult<Response> {
    let table = table_name(table)?;
    if !spec.is_single_row() {
        return Err(bad("a delete addresses one row, not a range or a glob"));
    }
    let timestamp = match spec.time {
        TimeSpec::Any => LATEST_TIMESTAMP,
        TimeSpec::At(ts) => ts,
        TimeSpec::Range(..) => return Err(bad("a delete takes one timestamp, not a range")),
    };
    let service = &call.gateway.service;
    let marker = |family: Bytes, qualifier: Option<Bytes>| match qualifier {
        None => Cell::delete(
            spec.row.clone(),
            family,
            Bytes::new(),
            timestamp,
            CellType::DeleteFamily,
        ),
        Some(q) => Cell::delete(
            spec.row.clone(),
            family,
            q,
            timestamp,
            CellType::DeleteColumn,
        ),
    };
    let cells: Vec<Cell> = if spec.columns.is_empty() {
        service
            .admin()
            .describe_table(&table)?
            .families
            .into_iter()
            .map(|f| marker(Bytes::from(f.name), None))
            .collect()
    } else {
        spec.columns
            .iter()
            .map(|c| marker(c.family.clone(), c.qualifier.clone()))
            .collect()
    };
    service
        .rows()
        .mutate(&table, cells, WriteDurability::UseDefault)?;
    Ok(ok_empty())
}

/// `/<table>/multiget?row=..&row=..`: each `row` value is itself a row spec.
pub(crate) fn multiget(
    call: &Call<'_>,
    table: &str,
    columns: &[ColumnSpec],
) -> RestResult<Response> {
    let n = call.negotiate(&[Format::Xml, Format::Json])?;
    let table = table_name(table)?;
    let wanted: Vec<&Vec<u8>> = call
        .params
        .iter()
        .filter(|(name, _)| name == "row")
        .map(|(_, value)| value)
        .collect();
    if wanted.len() > call.gateway.options.max_result_rows {
        return Err(bad("too many rows in one multiget"));
    }
    let mut rows = Vec::new();
    for value in wanted {
        let segments: Vec<&[u8]> = value.split(|&b| b == b'/').collect();
        let mut spec = request::parse_row_spec(&segments)?;
        if !spec.is_single_row() {
            return Err(bad("multiget rows must be single rows"));
        }
        apply_versions(call, &mut spec)?;
        spec.columns.extend(columns.iter().cloned());
        rows.extend(read_spec(call, &table, &spec)?);
    }
    if rows.is_empty() {
        return Err(RestError::NotFound("No rows found".into()));
    }
    Ok(ok_document(n, CellSet::from_rows(rows).render(n.format)))
}

fn number<T: std::str::FromStr>(call: &Call<'_>, name: &str) -> RestResult<Option<T>> {
    Ok(request::query_number(&call.params, name)?)
}

/// `/<table>/<prefix>*?limit=&startrow=&endrow=&column=&maxversions=&starttime=&endtime=`.
pub(crate) fn table_scan(call: &Call<'_>, table: &str, prefix: Bytes) -> RestResult<Response> {
    let n = call.negotiate(&[Format::Xml, Format::Json])?;
    let table = table_name(table)?;
    let param = |name: &str| {
        call.params
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| Bytes::copy_from_slice(v))
    };
    let columns: Vec<ColumnSpec> = call
        .params
        .iter()
        .filter(|(name, _)| name == "column")
        .map(|(_, v)| ColumnSpec::parse(v))
        .collect();
    let start = param("startrow").unwrap_or_else(|| prefix.clone());
    let stop = param("endrow").unwrap_or_else(|| prefix_end(&prefix));
    let max_versions = number::<u32>(call, "maxversions")?.unwrap_or(1).max(1);
    let start_time = number::<i64>(call, "starttime")?.unwrap_or(0);
    let end_time = number::<i64>(call, "endtime")?.unwrap_or(i64::MAX);
    if request::query_text(&call.params, "reversed")?.is_some_and(|r| r == "true") {
        return Err(bad(
            "reversed table scans are not supported: use reversed=false",
        ));
    }
    if end_time <= start_time || start_time < 0 {
        return Err(bad("invalid time range: endtime must be after starttime"));
    }
    let mut scan = Scan {
        start_row: start,
        stop_row: stop,
        columns: selection(&columns),
        max_versions,
        time_range: TimeRange::new(start_time, end_time),
        ..Scan::new()
    };
    if let Some(limit) = number::<usize>(call, "limit")?.filter(|&l| l > 0) {
        scan.limit = Some(limit);
    }
    let rows = collect_scan(call, &table, scan, |row| row.starts_with(&prefix))?;
    Ok(ok_document(n, CellSet::from_rows(rows).render(n.format)))
}
