//! A table handle: the row operations.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, Durability, RowResult};
use strata_server::filter::Filter;
use strata_server::{TableDescriptor, TableName};

use crate::check::CheckAndMutate;
use crate::error::{Error, Result};
use crate::mutation::{is_latest_version_delete, Append, Delete, Mutation, Put};
use crate::open_database::OpenDatabase;
use crate::read::{prefix_successor, Get, Scan};
use crate::row::Row;
use crate::scan_iter::RowIter;

/// A handle on one table, from [`Db::table`](crate::Db::table) or
/// [`Db::create_table`](crate::Db::create_table). Cheap to clone, usable from many threads.
/// Each row's mutations are atomic, as in HBase.
#[derive(Clone)]
pub struct Table {
    database: Arc<OpenDatabase>,
    name: TableName,
    durability: Option<Durability>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table").field("name", &self.name).finish()
    }
}

/// Parses a filter-language string, naming the string in the error.
pub(crate) fn parse_filter(filter: Option<String>) -> Result<Option<Filter>> {
    filter
        .map(|text| {
            strata_server::filter::parse(&text).map_err(|e| Error::InvalidFilter {
                filter: text.clone(),
                reason: e.to_string(),
            })
        })
        .transpose()
}

impl Table {
    pub(crate) fn new(database: Arc<OpenDatabase>, name: TableName) -> Table {
        Table {
            database,
            name,
            durability: None,
        }
    }

    /// The table's name.
    pub fn name(&self) -> &TableName {
        &self.name
    }

    /// A handle whose puts, deletes and check-and-mutates default to `durability` (it
    /// overrides the table's DURABILITY; each write can still choose its own).
    pub fn with_durability(&self, durability: Durability) -> Table {
        Table {
            durability: Some(durability),
            ..self.clone()
        }
    }

    /// Writes one row's columns atomically.
    pub fn put(&self, put: Put) -> Result<()> {
        self.batch(vec![Mutation::Put(put)])
    }

    /// Deletes from one row atomically.
    pub fn delete(&self, delete: Delete) -> Result<()> {
        self.batch(vec![Mutation::Delete(delete)])
    }

    /// Reads one row; `None` when nothing in it is visible (or passes the filter).
    pub fn get(&self, get: Get) -> Result<Option<Row>> {
        let filter = parse_filter(get.filter)?;
        let service = self.database.service()?;
        Ok(service
            .rows()
            .get_filtered(&self.name, &get.inner, filter)?
            .map(Row::from))
    }

    /// Scans rows. The iterator fetches rows from a service scanner in batches and closes it
    /// when it ends or is dropped.
    pub fn scan(&self, scan: Scan) -> Result<RowIter> {
        let mut inner = scan.inner;
        if let Some(prefix) = &scan.prefix {
            let successor = prefix_successor(prefix);
            (inner.start_row, inner.stop_row) = if inner.reversed {
                // The successor itself (if stored) and rows below the prefix are cut by
                // the iterator: the scan bounds cannot say "at least the prefix" reversed.
                (successor, Bytes::new())
            } else {
                (prefix.clone(), successor)
            };
        }
        let reversed = inner.reversed;
        let filter = parse_filter(scan.filter)?;
        let id = self
            .database
            .service()?
            .scanners()
            .open_filtered_scanner(&self.name, inner, filter)?;
        Ok(RowIter::new(
            Arc::clone(&self.database),
            id,
            scan.batch,
            scan.limit,
            scan.prefix.map(|p| (p, reversed)),
        ))
    }

    /// Atomically adds `amount` to an 8-byte big-endian counter (missing counts as 0) and
    /// returns the new value. Written with the table's DURABILITY (`SyncWal` when it has
    /// none).
    pub fn increment(
        &self,
        row: impl AsRef<[u8]>,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        amount: i64,
    ) -> Result<i64> {
        let service = self.database.service()?;
        Ok(service.rows().increment(
            &self.name,
            row.as_ref(),
            family.as_ref(),
            qualifier.as_ref(),
            amount,
        )?)
    }

    /// Atomically appends to columns of one row; returns the new cells. Written with the
    /// table's DURABILITY (`SyncWal` when it has none).
    pub fn append(&self, append: Append) -> Result<Row> {
        if append.columns.is_empty() {
            return Err(Error::InvalidArgument(
                "an append needs at least one column".into(),
            ));
        }
        let service = self.database.service()?;
        let cells = service
            .rows()
            .append(&self.name, &append.row, &append.columns)?;
        Ok(Row::from(RowResult {
            row: append.row,
            cells,
        }))
    }

    /// Applies the mutations if the check passes, atomically with it; returns whether it
    /// passed. A delete of "the newest version" ([`Delete::column`]) is not allowed here:
    /// name the version ([`Delete::column_version`]) or delete all versions.
    pub fn check_and_mutate(&self, request: CheckAndMutate) -> Result<bool> {
        let table = self.describe()?;
        let durability = self.durability_of(&request.mutations, &table);
        let cells = cells_of(&table, request.mutations)?;
        if cells.iter().any(is_latest_version_delete) {
            return Err(Error::InvalidArgument(
                "check-and-mutate cannot delete the newest version of a column; \
                 use Delete::column_version or Delete::all_versions"
                    .into(),
            ));
        }
        let service = self.database.service()?;
        Ok(service
            .rows()
            .check_and_mutate(&self.name, &request.check, cells, durability)?)
    }

    /// Applies many mutations: each row's share atomically (as HBase's batch), with the
    /// strongest durability any of them asks for.
    pub fn batch(&self, mutations: Vec<Mutation>) -> Result<()> {
        if mutations.is_empty() {
            return Ok(());
        }
        let table = self.describe()?;
        let durability = self.durability_of(&mutations, &table);
        let cells = cells_of(&table, mutations)?;
        let service = self.database.service()?;
        let (plain, by_row) = split_latest_version_rows(cells);
        if !plain.is_empty() {
            service.rows().mutate(&self.name, plain, durability)?;
        }
        for (row, cells) in by_row {
            service
                .rows()
                .mutate_row_resolving_latest(&self.name, &row, cells, durability)?;
        }
        Ok(())
    }

    fn describe(&self) -> Result<TableDescriptor> {
        Ok(self
            .database
            .service()?
            .admin()
            .describe_table(&self.name)?)
    }

    /// HBase's rule with this API's two extra levels: the strongest durability the
    /// mutations ask for, else the handle's, else the table's DURABILITY, else the
    /// database's default (which plays the server default's part).
    fn durability_of(&self, mutations: &[Mutation], table: &TableDescriptor) -> Durability {
        mutations
            .iter()
            .filter_map(Mutation::durability)
            .max()
            .or(self.durability)
            .or_else(|| table.durability.explicit())
            .unwrap_or_else(|| self.database.durability())
    }
}

/// The cells of `mutations`; whole-row deletes cover the table's families.
fn cells_of(table: &TableDescriptor, mutations: Vec<Mutation>) -> Result<Vec<Cell>> {
    let families: Vec<Vec<u8>> = table.families.iter().map(|f| f.name.clone()).collect();
    let mut cells = Vec::new();
    for m in mutations {
        cells.extend(m.into_cells(&families)?);
    }
    Ok(cells)
}

/// Separates the rows that delete "the newest version" of a column (their timestamps are
/// resolved under the row lock, one row at a time) from the rest (one call).
fn split_latest_version_rows(cells: Vec<Cell>) -> (Vec<Cell>, BTreeMap<Bytes, Vec<Cell>>) {
    let rows: BTreeSet<Bytes> = cells
        .iter()
        .filter(|c| is_latest_version_delete(c))
        .map(|c| c.row.clone())
        .collect();
    let mut plain = Vec::new();
    let mut by_row: BTreeMap<Bytes, Vec<Cell>> = BTreeMap::new();
    for cell in cells {
        if rows.contains(&cell.row) {
            by_row.entry(cell.row.clone()).or_default().push(cell);
        } else {
            plain.push(cell);
        }
    }
    (plain, by_row)
}
