//! Writes: mutations, deletes, counters.

use bytes::Bytes;
use strata_engine::{Cell, LATEST_TIMESTAMP};
use strata_server::{Service, WriteDurability};

use super::{check_row, table_name};
use crate::columns::ColumnSpec;
use crate::failure::{from_service, CallResult, Failure};
use crate::gen::volo_gen::hbase::{BatchMutation, Mutation};
use crate::mutations::{delete_column, delete_row, Cells};

fn check_timestamp(timestamp: i64) -> CallResult<()> {
    if timestamp < 0 {
        return Err(Failure::Internal(format!(
            "timestamp {timestamp} is negative"
        )));
    }
    Ok(())
}

/// `mutateRow(Ts)`: HBase applies the row's deletes first, then its puts.
pub fn mutate_row(
    service: &Service,
    table: &[u8],
    row: Bytes,
    mutations: &[Mutation],
    timestamp: i64,
) -> CallResult<()> {
    let table = table_name(table)?;
    check_row(&row)?;
    check_timestamp(timestamp)?;
    let mut cells = Cells::default();
    cells.add_row(&row, mutations, timestamp)?;
    let durability = cells.durability();
    apply(service, &table, cells.deletes, durability)?;
    apply(service, &table, cells.puts, durability)
}

/// `mutateRows(Ts)`: HBase applies every put of the batch, then every delete.
pub fn mutate_rows(
    service: &Service,
    table: &[u8],
    batches: &[BatchMutation],
    timestamp: i64,
) -> CallResult<()> {
    let table = table_name(table)?;
    check_timestamp(timestamp)?;
    let mut cells = Cells::default();
    for batch in batches {
        let row = batch.row.clone().map(|t| t.0).unwrap_or_default();
        check_row(&row)?;
        cells.add_row(
            &row,
            batch.mutations.as_deref().unwrap_or_default(),
            timestamp,
        )?;
    }
    let durability = cells.durability();
    // Like HBase: every put before every delete, each row on its own, so a row that fails
    // (a missing family) does not stop the others; the first failure is reported.
    let puts = apply_per_row(service, &table, cells.puts, durability);
    let deletes = apply_per_row(service, &table, cells.deletes, durability);
    puts.and(deletes)
}

fn apply_per_row(
    service: &Service,
    table: &strata_server::TableName,
    cells: Vec<Cell>,
    durability: WriteDurability,
) -> CallResult<()> {
    if cells.is_empty() {
        return Ok(());
    }
    // Rows in the order they first appear (a map from row to its slot, so a batch of many
    // rows is grouped in linear time).
    let mut slots: std::collections::HashMap<Bytes, usize> = std::collections::HashMap::new();
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    for cell in cells {
        let slot = *slots.entry(cell.row.clone()).or_insert_with(|| {
            rows.push(Vec::new());
            rows.len() - 1
        });
        rows[slot].push(cell);
    }
    let outcomes = service
        .rows()
        .mutate_each_row(table, rows, durability)
        .map_err(from_service)?;
    match outcomes.into_iter().find_map(|r| r.err()) {
        Some(e) => Err(from_service(e)),
        None => Ok(()),
    }
}

fn apply(
    service: &Service,
    table: &strata_server::TableName,
    cells: Vec<Cell>,
    durability: WriteDurability,
) -> CallResult<()> {
    if cells.is_empty() {
        return Ok(());
    }
    service
        .rows()
        .mutate(table, cells, durability)
        .map_err(from_service)
}

/// `deleteAll(Ts)`: every version of a column (or family) at or below the timestamp.
pub fn delete_all(
    service: &Service,
    table: &[u8],
    row: Bytes,
    column: &Bytes,
    timestamp: i64,
) -> CallResult<()> {
    let table = table_name(table)?;
    check_row(&row)?;
    check_timestamp(timestamp)?;
    let cell = delete_column(&row, column, timestamp);
    service
        .rows()
        .mutate(&table, vec![cell], WriteDurability::UseDefault)
        .map_err(from_service)
}

/// `deleteAllRow(Ts)`: every family of the row at or below the timestamp.
pub fn delete_all_row(
    service: &Service,
    table: &[u8],
    row: Bytes,
    timestamp: i64,
) -> CallResult<()> {
    let table = table_name(table)?;
    check_row(&row)?;
    check_timestamp(timestamp)?;
    let desc = service
        .admin()
        .describe_table(&table)
        .map_err(from_service)?;
    let families: Vec<Vec<u8>> = desc.families.into_iter().map(|f| f.name).collect();
    let cells = delete_row(&row, &families, timestamp);
    service
        .rows()
        .mutate(&table, cells, WriteDurability::UseDefault)
        .map_err(from_service)
}

/// `atomicIncrement`: a bare family increments its empty qualifier, as HBase does.
pub fn increment(
    service: &Service,
    table: &[u8],
    row: Bytes,
    column: &Bytes,
    amount: i64,
) -> CallResult<i64> {
    let table = table_name(table)?;
    check_row(&row)?;
    let (family, qualifier) = match ColumnSpec::parse(column) {
        ColumnSpec::Family(f) => (f, Bytes::new()),
        ColumnSpec::Column { family, qualifier } => (family, qualifier),
    };
    service
        .rows()
        .increment(&table, &row, &family, &qualifier, amount)
        .map_err(from_service)
}

/// `append`: appends each value to its column, atomically per column; returns the new cells.
pub fn append(
    service: &Service,
    table: &[u8],
    row: Bytes,
    columns: &[Bytes],
    values: &[Bytes],
) -> CallResult<Vec<strata_engine::Cell>> {
    let table = table_name(table)?;
    check_row(&row)?;
    if columns.len() != values.len() {
        return Err(Failure::illegal("append needs one value per column"));
    }
    let columns: Vec<(Bytes, Bytes, Bytes)> = columns
        .iter()
        .zip(values)
        .map(|(column, value)| match ColumnSpec::parse(column) {
            ColumnSpec::Family(f) => (f, Bytes::new(), value.clone()),
            ColumnSpec::Column { family, qualifier } => (family, qualifier, value.clone()),
        })
        .collect();
    service
        .rows()
        .append(&table, &row, &columns)
        .map_err(from_service)
}

/// `checkAndPut`: puts `mput` if the column holds `expected` (or is absent when `None`).
pub fn check_and_put(
    service: &Service,
    table: &[u8],
    row: Bytes,
    column: &Bytes,
    expected: Option<Bytes>,
    mput: &Mutation,
) -> CallResult<bool> {
    let table = table_name(table)?;
    check_row(&row)?;
    let (family, qualifier) = match ColumnSpec::parse(column) {
        ColumnSpec::Family(f) => (f, Bytes::new()),
        ColumnSpec::Column { family, qualifier } => (family, qualifier),
    };
    let mut cells = Cells::default();
    let put = Mutation {
        is_delete: Some(false),
        ..mput.clone()
    };
    cells.add_row(&row, std::slice::from_ref(&put), LATEST_TIMESTAMP)?;
    let check = strata_server::Check {
        row: row.clone(),
        family,
        qualifier,
        op: strata_server::CompareOp::Equal,
        value: expected,
    };
    let durability = cells.durability();
    service
        .rows()
        .check_and_mutate(&table, &check, cells.puts, durability)
        .map_err(from_service)
}
