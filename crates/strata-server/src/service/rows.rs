//! [`Rows`], the service's row operations: handed to
//! [`RowOperations`](crate::rows::RowOperations). Dropping rows by prefix is here too
//! (`drop_range/`): it is a write to rows, only a wider one.

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, Get, RowResult};

use strata_access::Action;

use crate::access::AccessControl;
use crate::directory::TableDirectory;
use crate::durability::WriteDurability;
use crate::error::Result;
use crate::limits::Dialect;
use crate::names::TableName;
use crate::rows::{Check, RowOperations};

/// Writes and reads of rows: mutations, point reads and single-row read-modify-writes.
pub struct Rows {
    pub(super) ops: Arc<RowOperations>,
    /// For dropping rows by prefix, which reads and compacts the regions it writes to.
    pub(super) directory: Arc<TableDirectory>,
    /// Asked before each call (`access/`).
    pub(super) access: Arc<AccessControl>,
}

impl Rows {
    /// Applies `cells` (one region's share atomically; HBase guarantees atomicity per row).
    pub fn mutate(
        &self,
        table: &TableName,
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<()> {
        self.mutate_in(Dialect::Hbase, table, cells, durability)
    }

    /// [`Rows::mutate`] under the size limits of `dialect`.
    pub fn mutate_in(
        &self,
        dialect: Dialect,
        table: &TableName,
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<()> {
        self.access
            .require_cells("put", table, &cells, Action::Write)?;
        self.ops.mutate(dialect, table, cells, durability.into())
    }

    /// HBase's multi-row batch: each row's cells are one atomic mutation, and a row that
    /// fails does not stop the others. If the whole batch does not fit the budget of writes
    /// in flight, nothing is applied and the error is the outer one; otherwise each row's
    /// outcome, in order.
    pub fn mutate_each_row(
        &self,
        table: &TableName,
        rows: Vec<Vec<Cell>>,
        durability: impl Into<WriteDurability>,
    ) -> Result<Vec<Result<()>>> {
        for cells in &rows {
            self.access
                .require_cells("batch", table, cells, Action::Write)?;
        }
        self.ops.mutate_each_row(table, rows, durability.into())
    }

    /// Applies the cells of one row atomically, giving each single-version delete marker at
    /// `LATEST_TIMESTAMP` the timestamp of its column's newest version, as HBase's
    /// `Delete.addColumn(family, qualifier)` does.
    pub fn mutate_row_resolving_latest(
        &self,
        table: &TableName,
        row: &[u8],
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<()> {
        self.access
            .require_cells("delete", table, &cells, Action::Write)?;
        self.ops
            .mutate_row_resolving_latest(table, row, cells, durability.into())
    }

    /// Bytes that accepted writes hold while waiting for their memstores.
    pub fn write_bytes_in_flight(&self) -> usize {
        self.ops.write_bytes_in_flight()
    }

    /// Reads one row; `None` when nothing in it is visible.
    pub fn get(&self, table: &TableName, get: &Get) -> Result<Option<RowResult>> {
        match self.readable(table, get)? {
            Some(narrowed) => self.ops.get(table, &narrowed),
            None => self.ops.get(table, get),
        }
    }

    /// The read checked: `None` when `get` may run as it is, else the get narrowed to
    /// the columns the caller may read. A get narrowed to nothing reads nothing.
    fn readable(&self, table: &TableName, get: &Get) -> Result<Option<Get>> {
        if !self.access.is_enabled() {
            return Ok(None);
        }
        let mut columns = get.columns.clone();
        self.access.authorize_read("get", table, &mut columns)?;
        if columns == get.columns {
            return Ok(None);
        }
        let mut narrowed = get.clone();
        narrowed.columns = columns;
        Ok(Some(narrowed))
    }

    /// Reads one row through `filter`; `None` when nothing in it passes.
    pub fn get_filtered(
        &self,
        table: &TableName,
        get: &Get,
        filter: Option<crate::filter::Filter>,
    ) -> Result<Option<RowResult>> {
        match self.readable(table, get)? {
            Some(narrowed) => self.ops.get_filtered(table, &narrowed, filter),
            None => self.ops.get_filtered(table, get, filter),
        }
    }

    /// Applies `cells` (all in the check's row) if the check passes; returns whether it did.
    pub fn check_and_mutate(
        &self,
        table: &TableName,
        check: &Check,
        cells: Vec<Cell>,
        durability: impl Into<WriteDurability>,
    ) -> Result<bool> {
        // HBase's checkAndMutate needs READ on the checked column and WRITE on the cells.
        let mut checked = strata_access::Columns::new();
        checked.insert(check.family.to_vec(), vec![check.qualifier.to_vec()]);
        self.access
            .require_columns("checkAndMutate", table, &checked, Action::Read)?;
        self.access
            .require_cells("checkAndMutate", table, &cells, Action::Write)?;
        self.ops
            .check_and_mutate(table, check, cells, durability.into())
    }

    /// Atomically appends each `(family, qualifier, suffix)` to its cell's value and
    /// returns the new cells (see `rows/single_row.rs` for HBase's rules).
    pub fn append(
        &self,
        table: &TableName,
        row: &[u8],
        columns: &[(Bytes, Bytes, Bytes)],
    ) -> Result<Vec<Cell>> {
        let mut named = strata_access::Columns::new();
        for (family, qualifier, _) in columns {
            named
                .entry(family.to_vec())
                .or_default()
                .push(qualifier.to_vec());
        }
        self.access
            .require_columns("append", table, &named, Action::Write)?;
        self.ops.append(table, row, columns)
    }

    /// Atomically adds `amount` to the 8-byte big-endian counter in a cell and returns the
    /// new value (see `rows/single_row.rs` for HBase's rules).
    pub fn increment(
        &self,
        table: &TableName,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let mut named = strata_access::Columns::new();
        named.insert(family.to_vec(), vec![qualifier.to_vec()]);
        self.access
            .require_columns("increment", table, &named, Action::Write)?;
        self.ops.increment(table, row, family, qualifier, amount)
    }

    /// Reads `read` (one row) under that row's lock, calls `compute` with the row and the
    /// server's time in milliseconds, and writes the cells it returns atomically and
    /// durably; returns its second value. `compute` may run more than once (see
    /// `rows/locked_row.rs`).
    pub fn read_modify_write_row<T>(
        &self,
        table: &TableName,
        read: &Get,
        compute: impl FnMut(Option<RowResult>, i64) -> Result<(Vec<Cell>, T)>,
    ) -> Result<T> {
        self.read_modify_write_row_in(Dialect::Hbase, table, read, compute)
    }

    /// [`Rows::read_modify_write_row`] under the size limits of `dialect`.
    pub fn read_modify_write_row_in<T>(
        &self,
        dialect: Dialect,
        table: &TableName,
        read: &Get,
        mut compute: impl FnMut(Option<RowResult>, i64) -> Result<(Vec<Cell>, T)>,
    ) -> Result<T> {
        // The columns read are those modified (an increment, an append, a Bigtable
        // read-modify-write rule): HBase asks WRITE for them, and for what is written.
        let read_columns = crate::access::columns_of_selection(&read.columns);
        self.access
            .require_columns("increment", table, &read_columns, Action::Write)?;
        let access = &self.access;
        let checked = |row: Option<RowResult>, now: i64| {
            let (cells, value) = compute(row, now)?;
            access.require_cells("increment", table, &cells, Action::Write)?;
            Ok((cells, value))
        };
        self.ops
            .read_modify_write_row(dialect, table, read, checked)
    }
}
