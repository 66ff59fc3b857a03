//! Reads shared by the row, multiget and table-scan handlers: a row spec to a Get or a Scan,
//! and bounded scans.

use bytes::Bytes;
use strata_engine::ColumnSelection;
use strata_engine::{Get, RowResult, Scan, TimeRange};
use strata_server::TableName;

use super::Call;
use crate::error::{RestError, RestResult};
use crate::request::{prefix_end, ColumnSpec, RowSpec, TimeSpec};

/// Rows read per service call while collecting a scan.
const SCAN_CHUNK: usize = 256;

/// The columns of a path as a read's selection.
pub(crate) fn selection(columns: &[ColumnSpec]) -> ColumnSelection {
    let mut get = Get::new(Bytes::new());
    for c in columns {
        get = match &c.qualifier {
            None => get.family(c.family.clone()),
            Some(q) => get.column(c.family.clone(), q.clone()),
        };
    }
    get.columns
}

/// The time range a read uses. A single timestamp `/<ts>` reads the versions *before* it, as
/// HBase's REST server does (its RowSpec makes `[0, ts)` of it).
pub(crate) fn time_range(time: TimeSpec) -> TimeRange {
    match time {
        TimeSpec::Any => TimeRange::ALL,
        TimeSpec::At(ts) => TimeRange::new(0, ts),
        TimeSpec::Range(start, end) => TimeRange::new(start, end),
    }
}

/// The `v` parameter (versions per column) over the spec's default.
pub(crate) fn apply_versions(call: &Call<'_>, spec: &mut RowSpec) -> RestResult<()> {
    if let Some(v) = crate::request::query_number::<u32>(&call.params, "v")? {
        if v == 0 {
            return Err(RestError::BadRequest("v must be at least 1".into()));
        }
        spec.max_versions = v;
    }
    Ok(())
}

/// Reads the rows a spec addresses: one row with a Get, a range or glob with a scan.
pub(crate) fn read_spec(
    call: &Call<'_>,
    table: &TableName,
    spec: &RowSpec,
) -> RestResult<Vec<RowResult>> {
    let service = &call.gateway.service;
    if spec.is_single_row() {
        let get = Get {
            row: spec.row.clone(),
            columns: selection(&spec.columns),
            max_versions: spec.max_versions,
            time_range: time_range(spec.time),
        };
        return Ok(service.rows().get(table, &get)?.into_iter().collect());
    }
    let stop = match (&spec.end_row, spec.glob) {
        (Some(end), _) => end.clone(),
        (None, _) => prefix_end(&spec.row),
    };
    let scan = Scan {
        start_row: spec.row.clone(),
        stop_row: stop,
        columns: selection(&spec.columns),
        max_versions: spec.max_versions,
        time_range: time_range(spec.time),
        ..Scan::new()
    };
    collect_scan(call, table, scan, |_| true)
}

/// Every row of `scan` that `keep` accepts, refusing more than the configured maximum.
pub(crate) fn collect_scan(
    call: &Call<'_>,
    table: &TableName,
    scan: Scan,
    keep: impl Fn(&[u8]) -> bool,
) -> RestResult<Vec<RowResult>> {
    let service = &call.gateway.service;
    let max_rows = call.gateway.options.max_result_rows;
    let id = service.scanners().open_scanner(table, scan)?;
    let mut rows = Vec::new();
    let outcome = loop {
        let chunk = match service.scanners().scanner_next(id, SCAN_CHUNK) {
            Ok(chunk) => chunk,
            Err(e) => break Err(e.into()),
        };
        if chunk.is_empty() {
            break Ok(());
        }
        rows.extend(chunk.into_iter().filter(|r| keep(&r.row)));
        if rows.len() > max_rows {
            break Err(RestError::BadRequest(format!(
                "the result has more than {max_rows} rows: use a scanner"
            )));
        }
    };
    // Closing an exhausted scanner cannot fail in a way the caller could act on.
    let _ = service.scanners().close_scanner(id);
    outcome.map(|()| rows)
}
