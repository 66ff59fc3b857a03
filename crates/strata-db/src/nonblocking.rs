//! The async interface: the blocking API run on tokio's blocking thread pool, so that an
//! async program never stalls its runtime on disk I/O. Every method mirrors the blocking one
//! of the same name; scans are a [`Stream`] of rows.

use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;
use strata_server::{AlterOp, RegionInfo, SplitAt, TableDescriptor, TableName};

use crate::{
    Append, CheckAndMutate, Db, Delete, Error, Get, Mutation, Options, Put, Result, Row, RowIter,
    Scan, Table, TableBuilder,
};

/// Runs a blocking call on the blocking pool.
async fn blocking<T, F>(call: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|e| Error::Background(e.to_string()))?
}

/// An open database for async code. Cheap to clone; see [`Db`] for the semantics.
#[derive(Clone, Debug)]
pub struct AsyncDb {
    db: Db,
}

impl From<Db> for AsyncDb {
    fn from(db: Db) -> Self {
        AsyncDb { db }
    }
}

impl AsyncDb {
    /// Opens (creating if needed) the database in `path`.
    pub async fn open(path: impl Into<PathBuf>) -> Result<AsyncDb> {
        AsyncDb::open_with(Options::new(path)).await
    }

    /// Opens the database with `options`.
    pub async fn open_with(options: Options) -> Result<AsyncDb> {
        blocking(move || Db::open_with(options))
            .await
            .map(AsyncDb::from)
    }

    /// The blocking handle of the same database.
    pub fn blocking(&self) -> &Db {
        &self.db
    }

    /// Flushes and closes the database.
    pub async fn close(&self) -> Result<()> {
        let db = self.db.clone();
        blocking(move || db.close()).await
    }

    async fn admin<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Db) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let db = self.db.clone();
        blocking(move || call(&db)).await
    }

    /// A handle on an existing table.
    pub async fn table(&self, name: &str) -> Result<AsyncTable> {
        let name = name.to_string();
        let table = self.admin(move |db| db.table(&name)).await?;
        Ok(AsyncTable { table })
    }

    /// Every namespace.
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        self.admin(Db::list_namespaces).await
    }

    /// Creates a namespace.
    pub async fn create_namespace(&self, namespace: &str) -> Result<()> {
        let ns = namespace.to_string();
        self.admin(move |db| db.create_namespace(&ns)).await
    }

    /// Drops an empty namespace.
    pub async fn drop_namespace(&self, namespace: &str) -> Result<()> {
        let ns = namespace.to_string();
        self.admin(move |db| db.drop_namespace(&ns)).await
    }

    /// Creates a table and returns a handle on it.
    pub async fn create_table(&self, table: TableBuilder) -> Result<AsyncTable> {
        let table = self.admin(move |db| db.create_table(table)).await?;
        Ok(AsyncTable { table })
    }

    /// Every table, in name order.
    pub async fn list_tables(&self) -> Result<Vec<TableName>> {
        self.admin(Db::list_tables).await
    }

    /// A table's schema.
    pub async fn describe_table(&self, name: &str) -> Result<TableDescriptor> {
        let name = name.to_string();
        self.admin(move |db| db.describe_table(&name)).await
    }

    /// Changes a table's schema.
    pub async fn alter_table(&self, name: &str, op: AlterOp) -> Result<()> {
        let name = name.to_string();
        self.admin(move |db| db.alter_table(&name, op)).await
    }

    /// Disables a table.
    pub async fn disable_table(&self, name: &str) -> Result<()> {
        let name = name.to_string();
        self.admin(move |db| db.disable_table(&name)).await
    }

    /// Enables a table.
    pub async fn enable_table(&self, name: &str) -> Result<()> {
        let name = name.to_string();
        self.admin(move |db| db.enable_table(&name)).await
    }

    /// True if the table is enabled.
    pub async fn is_table_enabled(&self, name: &str) -> Result<bool> {
        let name = name.to_string();
        self.admin(move |db| db.is_table_enabled(&name)).await
    }

    /// A table's regions, in row order.
    pub async fn table_regions(&self, name: &str) -> Result<Vec<RegionInfo>> {
        let name = name.to_string();
        self.admin(move |db| db.table_regions(&name)).await
    }

    /// Splits one region (by id, near its middle, or at a row).
    pub async fn split_region(&self, name: &str, at: SplitAt) -> Result<(u64, u64)> {
        let name = name.to_string();
        self.admin(move |db| db.split_region(&name, at)).await
    }

    /// Deletes a disabled table.
    pub async fn delete_table(&self, name: &str) -> Result<()> {
        let name = name.to_string();
        self.admin(move |db| db.delete_table(&name)).await
    }

    /// Empties a disabled table and enables it.
    pub async fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<()> {
        let name = name.to_string();
        self.admin(move |db| db.truncate_table(&name, preserve_splits))
            .await
    }

    /// Flushes a table.
    pub async fn flush_table(&self, name: &str) -> Result<()> {
        let name = name.to_string();
        self.admin(move |db| db.flush_table(&name)).await
    }

    /// Compacts a table.
    pub async fn compact_table(&self, name: &str, major: bool) -> Result<()> {
        let name = name.to_string();
        self.admin(move |db| db.compact_table(&name, major)).await
    }

    /// Splits the region holding `row` at `row`.
    pub async fn split_table_at(&self, name: &str, row: impl Into<Bytes>) -> Result<(u64, u64)> {
        let (name, row) = (name.to_string(), row.into());
        self.admin(move |db| db.split_table_at(&name, row)).await
    }
}

/// A table handle for async code; see [`Table`] for the semantics.
#[derive(Clone, Debug)]
pub struct AsyncTable {
    table: Table,
}

impl AsyncTable {
    /// The blocking handle of the same table.
    pub fn blocking(&self) -> &Table {
        &self.table
    }

    async fn run<T: Send + 'static>(
        &self,
        call: impl FnOnce(&Table) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let table = self.table.clone();
        blocking(move || call(&table)).await
    }

    /// Writes one row's columns atomically.
    pub async fn put(&self, put: Put) -> Result<()> {
        self.run(move |t| t.put(put)).await
    }

    /// Deletes from one row atomically.
    pub async fn delete(&self, delete: Delete) -> Result<()> {
        self.run(move |t| t.delete(delete)).await
    }

    /// Reads one row.
    pub async fn get(&self, get: Get) -> Result<Option<Row>> {
        self.run(move |t| t.get(get)).await
    }

    /// Adds to a counter; returns the new value.
    pub async fn increment(
        &self,
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        amount: i64,
    ) -> Result<i64> {
        let (row, family, qualifier) = (row.into(), family.into(), qualifier.into());
        self.run(move |t| t.increment(row, family, qualifier, amount))
            .await
    }

    /// Appends to columns of one row; returns the new cells.
    pub async fn append(&self, append: Append) -> Result<Row> {
        self.run(move |t| t.append(append)).await
    }

    /// Applies the mutations if the check passes; returns whether it passed.
    pub async fn check_and_mutate(&self, request: CheckAndMutate) -> Result<bool> {
        self.run(move |t| t.check_and_mutate(request)).await
    }

    /// Applies many mutations, each row's share atomically.
    pub async fn batch(&self, mutations: Vec<Mutation>) -> Result<()> {
        self.run(move |t| t.batch(mutations)).await
    }

    /// Scans rows as a stream; batches are fetched on the blocking pool, and the scanner is
    /// closed when the stream ends or is dropped.
    pub async fn scan(&self, scan: Scan) -> Result<RowStream> {
        let rows = self.run(move |t| t.scan(scan)).await?;
        Ok(RowStream::new(rows))
    }
}

type BoxedRows = Pin<Box<dyn Stream<Item = Result<Row>> + Send>>;

/// The rows of an async scan.
pub struct RowStream {
    inner: BoxedRows,
}

impl std::fmt::Debug for RowStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowStream").finish_non_exhaustive()
    }
}

impl RowStream {
    fn new(rows: RowIter) -> RowStream {
        let stream = futures_util::stream::unfold(Some(rows), |state| async move {
            let mut rows = state?;
            if let Some(row) = rows.take_buffered() {
                return Some((Ok(row), Some(rows)));
            }
            let step = tokio::task::spawn_blocking(move || {
                let item = rows.next();
                (rows, item)
            })
            .await;
            match step {
                Ok((rows, Some(item))) => Some((item, Some(rows))),
                Ok((_, None)) => None,
                Err(e) => Some((Err(Error::Background(e.to_string())), None)),
            }
        });
        RowStream {
            inner: Box::pin(stream),
        }
    }
}

impl Stream for RowStream {
    type Item = Result<Row>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Row>>> {
        self.inner.as_mut().poll_next(cx)
    }
}
