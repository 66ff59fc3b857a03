//! Point reads of cells and rows. A one-row read runs on the calling task (see
//! `Handler::run_point_read`); a multi-row one goes to the blocking pool.

use strata_engine::LATEST_TIMESTAMP;
use volo_thrift::ServerError;

use super::{text_list, text_or_empty, timestamp_or_latest, Attributes, Handler, Reply};
use crate::gen::volo_gen::hbase::*;
use crate::ops::reads;

pub(super) async fn get(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    column: Option<Text>,
    _a: Attributes,
) -> Reply<Vec<TCell>, HbaseGetException> {
    h.run_point_read(move |s| {
        reads::cells(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &text_or_empty(column),
            1,
            strata_engine::TimeRange::ALL,
        )
    })
    .await
}

pub(super) async fn get_ver(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    column: Option<Text>,
    n: Option<i32>,
    _a: Attributes,
) -> Reply<Vec<TCell>, HbaseGetVerException> {
    h.run_point_read(move |s| {
        let range = strata_engine::TimeRange::ALL;
        reads::cells(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &text_or_empty(column),
            n.unwrap_or(1),
            range,
        )
    })
    .await
}

pub(super) async fn get_ver_ts(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    column: Option<Text>,
    timestamp: Option<i64>,
    n: Option<i32>,
    _a: Attributes,
) -> Reply<Vec<TCell>, HbaseGetVerTsException> {
    h.run_point_read(move |s| {
        let range = crate::ops::before(timestamp_or_latest(timestamp))?;
        reads::cells(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &text_or_empty(column),
            n.unwrap_or(1),
            range,
        )
    })
    .await
}

pub(super) async fn get_row(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowException> {
    h.run_point_read(move |s| {
        reads::rows(
            s,
            &text_or_empty(table_name),
            vec![text_or_empty(row)],
            None,
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn get_row_with_columns(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    columns: Option<Vec<Text>>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowWithColumnsException> {
    h.run_point_read(move |s| {
        reads::rows(
            s,
            &text_or_empty(table_name),
            vec![text_or_empty(row)],
            text_list(columns).as_deref(),
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn get_row_ts(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowTsException> {
    h.run_point_read(move |s| {
        reads::rows(
            s,
            &text_or_empty(table_name),
            vec![text_or_empty(row)],
            None,
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn get_row_with_columns_ts(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    columns: Option<Vec<Text>>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowWithColumnsTsException> {
    h.run_point_read(move |s| {
        reads::rows(
            s,
            &text_or_empty(table_name),
            vec![text_or_empty(row)],
            text_list(columns).as_deref(),
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn get_rows(
    h: &Handler,
    table_name: Option<Text>,
    rows: Option<Vec<Text>>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowsException> {
    h.run(move |s| {
        reads::rows(
            s,
            &text_or_empty(table_name),
            text_list(rows).unwrap_or_default(),
            None,
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn get_rows_with_columns(
    h: &Handler,
    table_name: Option<Text>,
    rows: Option<Vec<Text>>,
    columns: Option<Vec<Text>>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowsWithColumnsException> {
    h.run(move |s| {
        let rows = text_list(rows).unwrap_or_default();
        reads::rows(
            s,
            &text_or_empty(table_name),
            rows,
            text_list(columns).as_deref(),
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn get_rows_ts(
    h: &Handler,
    table_name: Option<Text>,
    rows: Option<Vec<Text>>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowsTsException> {
    h.run(move |s| {
        reads::rows(
            s,
            &text_or_empty(table_name),
            text_list(rows).unwrap_or_default(),
            None,
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn get_rows_with_columns_ts(
    h: &Handler,
    table_name: Option<Text>,
    rows: Option<Vec<Text>>,
    columns: Option<Vec<Text>>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<Vec<TRowResult>, HbaseGetRowsWithColumnsTsException> {
    h.run(move |s| {
        let rows = text_list(rows).unwrap_or_default();
        reads::rows(
            s,
            &text_or_empty(table_name),
            rows,
            text_list(columns).as_deref(),
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn get_row_or_before(
    _h: &Handler,
    _table_name: Option<Text>,
    _row: Option<Text>,
    _family: Option<Text>,
) -> Reply<Vec<TCell>, HbaseGetRowOrBeforeException> {
    // HBase 2 removed getRowOrBefore and answers it as an unknown method; so does Strata
    // (the method is in the IDL only so the reply is that error, not a dropped connection).
    Err(ServerError::Application(
        volo_thrift::ApplicationException::new(
            volo_thrift::ApplicationExceptionKind::UNKNOWN_METHOD,
            "Invalid method name: 'getRowOrBefore'".to_string(),
        ),
    ))
}
