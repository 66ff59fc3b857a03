//! Scanners: every scannerOpen* variant builds a `ScanRequest`; gets and closes go by id.

use super::{text_list, text_or_empty, timestamp_or_latest, Attributes, Handler, Reply};
use crate::failure::Declared;
use crate::gen::volo_gen::hbase::*;
use crate::ops::scans::{self, prefix_end, ScanRequest};

pub(super) async fn scanner_open_with_scan(
    h: &Handler,
    table_name: Option<Text>,
    scan: Option<TScan>,
    _a: Attributes,
) -> Reply<ScannerId, HbaseScannerOpenWithScanException> {
    let req = ScanRequest::from_tscan(scan.unwrap_or_default());
    open(h, table_name, req).await
}

pub(super) async fn scanner_open(
    h: &Handler,
    table_name: Option<Text>,
    start_row: Option<Text>,
    columns: Option<Vec<Text>>,
    _a: Attributes,
) -> Reply<ScannerId, HbaseScannerOpenException> {
    let req = ScanRequest {
        start: text_or_empty(start_row),
        columns: text_list(columns),
        ..Default::default()
    };
    open(h, table_name, req).await
}

pub(super) async fn scanner_open_with_stop(
    h: &Handler,
    table_name: Option<Text>,
    start_row: Option<Text>,
    stop_row: Option<Text>,
    columns: Option<Vec<Text>>,
    _a: Attributes,
) -> Reply<ScannerId, HbaseScannerOpenWithStopException> {
    let req = ScanRequest {
        start: text_or_empty(start_row),
        stop: text_or_empty(stop_row),
        columns: text_list(columns),
        ..Default::default()
    };
    open(h, table_name, req).await
}

pub(super) async fn scanner_open_with_prefix(
    h: &Handler,
    table_name: Option<Text>,
    prefix: Option<Text>,
    columns: Option<Vec<Text>>,
    _a: Attributes,
) -> Reply<ScannerId, HbaseScannerOpenWithPrefixException> {
    // HBase stops at the first row without the prefix; for a forward scan that is the
    // range [prefix, the next key after every prefixed key).
    let prefix = text_or_empty(prefix);
    let req = ScanRequest {
        stop: prefix_end(&prefix),
        start: prefix,
        columns: text_list(columns),
        ..Default::default()
    };
    open(h, table_name, req).await
}

pub(super) async fn scanner_open_ts(
    h: &Handler,
    table_name: Option<Text>,
    start_row: Option<Text>,
    columns: Option<Vec<Text>>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<ScannerId, HbaseScannerOpenTsException> {
    let req = ScanRequest {
        start: text_or_empty(start_row),
        columns: text_list(columns),
        timestamp: Some(timestamp_or_latest(timestamp)),
        ..Default::default()
    };
    open(h, table_name, req).await
}

pub(super) async fn scanner_open_with_stop_ts(
    h: &Handler,
    table_name: Option<Text>,
    start_row: Option<Text>,
    stop_row: Option<Text>,
    columns: Option<Vec<Text>>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<ScannerId, HbaseScannerOpenWithStopTsException> {
    let req = ScanRequest {
        start: text_or_empty(start_row),
        stop: text_or_empty(stop_row),
        columns: text_list(columns),
        timestamp: Some(timestamp_or_latest(timestamp)),
        ..Default::default()
    };
    open(h, table_name, req).await
}

pub(super) async fn scanner_get(
    h: &Handler,
    id: Option<ScannerId>,
) -> Reply<Vec<TRowResult>, HbaseScannerGetException> {
    h.run(move |s| scans::next(s, scanner_id(id), 1)).await
}

pub(super) async fn scanner_get_list(
    h: &Handler,
    id: Option<ScannerId>,
    n: Option<i32>,
) -> Reply<Vec<TRowResult>, HbaseScannerGetListException> {
    h.run(move |s| scans::next(s, scanner_id(id), n.unwrap_or(1)))
        .await
}

pub(super) async fn scanner_close(
    h: &Handler,
    id: Option<ScannerId>,
) -> Reply<(), HbaseScannerCloseException> {
    h.run(move |s| scans::close(s, scanner_id(id))).await
}

/// Opens a scanner: what every scannerOpen* variant does with its request.
async fn open<E: Declared>(
    h: &Handler,
    table_name: Option<Text>,
    req: ScanRequest,
) -> Reply<ScannerId, E> {
    // Read here: the task-local does not follow the call onto the blocking pool.
    let owner = crate::connection_scope::current();
    h.run(move |s| scans::open(s, &text_or_empty(table_name), req, owner).map(ScannerId))
        .await
}

/// A missing id reads as -1, which no scanner has.
fn scanner_id(id: Option<ScannerId>) -> i32 {
    id.map_or(-1, |i| i.0)
}
