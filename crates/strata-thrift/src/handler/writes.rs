//! Writes: mutations, deletes, increments, appends and checkAndPut.

use bytes::Bytes;
use strata_engine::LATEST_TIMESTAMP;
use strata_server::Service;

use super::{text_or_empty, timestamp_or_latest, Attributes, Handler, Reply};
use crate::failure::CallResult;
use crate::gen::volo_gen::hbase::*;
use crate::ops::writes;

pub(super) async fn mutate_row(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    mutations: Option<Vec<Mutation>>,
    _a: Attributes,
) -> Reply<(), HbaseMutateRowException> {
    h.run(move |s| {
        writes::mutate_row(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &mutations.unwrap_or_default(),
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn mutate_row_ts(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    mutations: Option<Vec<Mutation>>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<(), HbaseMutateRowTsException> {
    h.run(move |s| {
        writes::mutate_row(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &mutations.unwrap_or_default(),
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn mutate_rows(
    h: &Handler,
    table_name: Option<Text>,
    batches: Option<Vec<BatchMutation>>,
    _a: Attributes,
) -> Reply<(), HbaseMutateRowsException> {
    h.run(move |s| {
        writes::mutate_rows(
            s,
            &text_or_empty(table_name),
            &batches.unwrap_or_default(),
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn mutate_rows_ts(
    h: &Handler,
    table_name: Option<Text>,
    batches: Option<Vec<BatchMutation>>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<(), HbaseMutateRowsTsException> {
    h.run(move |s| {
        writes::mutate_rows(
            s,
            &text_or_empty(table_name),
            &batches.unwrap_or_default(),
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn atomic_increment(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    column: Option<Text>,
    value: Option<i64>,
) -> Reply<i64, HbaseAtomicIncrementException> {
    h.run(move |s| {
        writes::increment(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &text_or_empty(column),
            value.unwrap_or(0),
        )
    })
    .await
}

pub(super) async fn delete_all(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    column: Option<Text>,
    _a: Attributes,
) -> Reply<(), HbaseDeleteAllException> {
    h.run(move |s| {
        writes::delete_all(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &text_or_empty(column),
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn delete_all_ts(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    column: Option<Text>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<(), HbaseDeleteAllTsException> {
    h.run(move |s| {
        writes::delete_all(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &text_or_empty(column),
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn delete_all_row(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    _a: Attributes,
) -> Reply<(), HbaseDeleteAllRowException> {
    h.run(move |s| {
        writes::delete_all_row(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            LATEST_TIMESTAMP,
        )
    })
    .await
}

pub(super) async fn increment(
    h: &Handler,
    inc: Option<TIncrement>,
) -> Reply<(), HbaseIncrementException> {
    h.run(move |s| increment_one(s, inc.unwrap_or_default()))
        .await
}

pub(super) async fn increment_rows(
    h: &Handler,
    incs: Option<Vec<TIncrement>>,
) -> Reply<(), HbaseIncrementRowsException> {
    h.run(move |s| {
        incs.unwrap_or_default()
            .into_iter()
            .try_for_each(|i| increment_one(s, i))
    })
    .await
}

pub(super) async fn delete_all_row_ts(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    timestamp: Option<i64>,
    _a: Attributes,
) -> Reply<(), HbaseDeleteAllRowTsException> {
    h.run(move |s| {
        writes::delete_all_row(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            timestamp_or_latest(timestamp),
        )
    })
    .await
}

pub(super) async fn append(
    h: &Handler,
    append: Option<TAppend>,
) -> Reply<Vec<TCell>, HbaseAppendException> {
    h.run(move |s| {
        let append = append.unwrap_or_default();
        let columns: Vec<Bytes> = append
            .columns
            .unwrap_or_default()
            .into_iter()
            .map(|c| c.0)
            .collect();
        let values: Vec<Bytes> = append
            .values
            .unwrap_or_default()
            .into_iter()
            .map(|v| v.0)
            .collect();
        let table = append.table.map(|t| t.0).unwrap_or_default();
        let row = append.row.map(|r| r.0).unwrap_or_default();
        let cells = writes::append(s, &table, row, &columns, &values)?;
        Ok(cells.iter().map(crate::results::tcell).collect())
    })
    .await
}

pub(super) async fn check_and_put(
    h: &Handler,
    table_name: Option<Text>,
    row: Option<Text>,
    column: Option<Text>,
    value: Option<Text>,
    mput: Option<Mutation>,
    _a: Attributes,
) -> Reply<bool, HbaseCheckAndPutException> {
    h.run(move |s| {
        let value = value.map(|v| v.0);
        writes::check_and_put(
            s,
            &text_or_empty(table_name),
            text_or_empty(row),
            &text_or_empty(column),
            value,
            &mput.unwrap_or_default(),
        )
    })
    .await
}

fn increment_one(s: &Service, inc: TIncrement) -> CallResult<()> {
    let amount = inc.ammount.unwrap_or(0);
    writes::increment(
        s,
        &text_or_empty(inc.table),
        text_or_empty(inc.row),
        &text_or_empty(inc.column),
        amount,
    )
    .map(|_| ())
}
