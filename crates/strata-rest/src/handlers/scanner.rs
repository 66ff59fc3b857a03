//! Stateful scanners: `PUT`/`POST /<table>/scanner` opens one (201 with its URL in
//! `Location`), `GET /<table>/scanner/<id>` fetches the next batch of cells (204 when it is
//! exhausted), `DELETE` closes it. The scanners are the service's (ids, leases, the
//! per-client cap, the cell batching); a REST id is the registry's id in hex, and a scanner
//! is found only under the table it was opened on.

use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::{header, StatusCode};
use axum::response::Response;
use strata_engine::{Cell, Scan, TimeRange};
use strata_server::{ScannerLookup, ScannerOptions, ScannerOwner, ScannerProtocol};
use strata_server::{ServiceError, TableName};

use super::read::selection;
use super::{ok_document, ok_empty, table_name, Call};
use crate::error::{RestError, RestResult};
use crate::format::Format;
use crate::model::cellset::{column_of, CellModel, CellSet, RowModel};
use crate::model::filter::to_filter_language;
use crate::model::scanner::ScannerModel;
use crate::request::{self, ColumnSpec};

pub(crate) fn create(call: &Call<'_>, table: &str) -> RestResult<Response> {
    let format = call.body_format()?;
    let table = table_name(table)?;
    let model = ScannerModel::parse(&call.body, format)?;
    let columns: Vec<ColumnSpec> = model.columns.iter().map(|c| ColumnSpec::parse(c)).collect();
    let mut scan = Scan {
        start_row: model.start_row.clone(),
        stop_row: model.end_row.clone(),
        columns: selection(&columns),
        max_versions: model.max_versions,
        time_range: TimeRange::new(model.start_time, model.end_time),
        cache_blocks: model.cache_blocks,
        ..Scan::new()
    };
    if model.limit > 0 {
        scan.limit = Some(model.limit);
    }
    let filter = match &model.filter {
        None => None,
        Some(text) => {
            let language = to_filter_language(text)?;
            Some(
                call.gateway
                    .service
                    .parse_filter(&language)
                    .map_err(|e| RestError::BadRequest(format!("invalid filter: {e}")))?,
            )
        }
    };
    let gateway = call.gateway;
    let options = ScannerOptions {
        scan,
        filter,
        batch: Some(model.batch.min(gateway.options.max_scanner_batch).max(1)),
        sorted_columns: false,
        owner: ScannerOwner::rest(client_address(call)),
    };
    let id = format!(
        "{:016x}",
        gateway
            .service
            .scanners()
            .open_scanner_with(&table, options)?
    );
    let mut response = ok_empty();
    *response.status_mut() = StatusCode::CREATED;
    let path = call.parts.uri.path().trim_end_matches('/');
    let location = match call.header(header::HOST.as_str()) {
        Some(host) => format!("http://{host}{path}/{id}"),
        None => format!("{path}/{id}"),
    };
    if let Ok(value) = header::HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

/// The next batch: `?c=` overrides the scanner's batch (cells), `?n=` caps the rows.
pub(crate) fn next(call: &Call<'_>, table: &str, id: &str) -> RestResult<Response> {
    let n = call.negotiate(&[Format::Xml, Format::Json])?;
    let table = table_name(table)?;
    let max_cells = match request::query_number::<usize>(&call.params, "c")? {
        Some(c) if c > 0 => Some(c.min(call.gateway.options.max_scanner_batch)),
        _ => None, // the scanner's batch
    };
    let max_rows = request::query_number::<usize>(&call.params, "n")?.unwrap_or(0);
    let registry_id = parse_id(id)?;
    let cells = call
        .gateway
        .service
        .scanners()
        .scanner_cells(&lookup(&table), registry_id, max_cells, max_rows)
        .map_err(|e| not_found_as_rest(e, id))?;
    if cells.is_empty() {
        let mut response = ok_empty();
        *response.status_mut() = StatusCode::NO_CONTENT;
        return Ok(response);
    }
    Ok(ok_document(n, cell_set(cells).render(n.format)))
}

/// Cells as a CellSet: one row model per run of cells of the same row.
fn cell_set(cells: Vec<Cell>) -> CellSet {
    let mut set = CellSet::default();
    for cell in cells {
        let model = CellModel {
            column: Some(column_of(&cell).into()),
            timestamp: Some(cell.timestamp),
            value: cell.value.clone(),
        };
        match set.rows.last_mut() {
            Some(row) if row.key.as_ref() == Some(&cell.row) => row.cells.push(model),
            _ => set.rows.push(RowModel {
                key: Some(cell.row.clone()),
                cells: vec![model],
            }),
        }
    }
    set
}

pub(crate) fn delete(call: &Call<'_>, table: &str, id: &str) -> RestResult<Response> {
    let table = table_name(table)?;
    call.gateway
        .service
        .scanners()
        .close_scanner_as(&lookup(&table), parse_id(id)?)
        .map_err(|e| not_found_as_rest(e, id))?;
    Ok(ok_empty())
}

/// How REST finds a scanner: through its own protocol, under the URL's table.
fn lookup(table: &TableName) -> ScannerLookup<'_> {
    ScannerLookup {
        protocol: ScannerProtocol::Rest,
        table: Some(table),
    }
}

/// The registry's id for REST id `id` (hex, as handed out in `Location`).
fn parse_id(id: &str) -> RestResult<u64> {
    u64::from_str_radix(id, 16).map_err(|_| unknown(id))
}

/// A scanner the registry does not have (never opened, closed or expired), named by the
/// id the client sent.
fn not_found_as_rest(e: ServiceError, id: &str) -> RestError {
    match e {
        ServiceError::ScannerNotFound(_) => unknown(id),
        e => e.into(),
    }
}

fn unknown(id: &str) -> RestError {
    RestError::NotFound(format!("scanner {id} does not exist or has expired"))
}

/// The client's address, when the server records it (charged for the client's scanners).
fn client_address(call: &Call<'_>) -> Option<std::net::IpAddr> {
    call.parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
}
