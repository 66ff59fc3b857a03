//! Stateful scanners: `PUT`/`POST /<table>/scanner` opens one (201 with its URL in
//! `Location`), `GET /<table>/scanner/<id>` fetches the next batch of cells (204 when it is
//! exhausted), `DELETE` closes it.

use axum::http::{header, StatusCode};
use axum::response::Response;
use strata_engine::{Scan, TimeRange};
use strata_server::ServiceError;

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
    let service_id = gateway
        .service
        .open_filtered_scanner(&table, scan, filter)?;
    let batch = model.batch.min(gateway.options.max_scanner_batch).max(1);
    let limits = (
        gateway.options.max_open_scanners,
        gateway.options.scanner_lease,
    );
    let id = gateway
        .scanners
        .add(&gateway.service, table, service_id, batch, limits)?;
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
    let gateway = call.gateway;
    let scanner = gateway.scanners.get(&table, id)?;
    let max_values = request::query_number::<usize>(&call.params, "c")?.unwrap_or(0);
    let max_rows = request::query_number::<usize>(&call.params, "n")?.unwrap_or(0);
    let mut scanner = scanner.lock();
    let limit = if max_values > 0 {
        max_values
    } else {
        scanner.batch
    };
    let limit = limit.min(gateway.options.max_scanner_batch);
    let cells = match scanner.next_cells(&gateway.service, limit, max_rows) {
        Err(RestError::Service(ServiceError::ScannerNotFound(_))) => {
            gateway.scanners.forget(id);
            return Err(RestError::NotFound(format!("scanner {id} has expired")));
        }
        other => other?,
    };
    if cells.is_empty() {
        let mut response = ok_empty();
        *response.status_mut() = StatusCode::NO_CONTENT;
        return Ok(response);
    }
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
    Ok(ok_document(n, set.render(n.format)))
}

pub(crate) fn delete(call: &Call<'_>, table: &str, id: &str) -> RestResult<Response> {
    let table = table_name(table)?;
    call.gateway
        .scanners
        .remove(&call.gateway.service, &table, id)?;
    Ok(ok_empty())
}
