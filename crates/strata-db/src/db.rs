//! The database handle: open, close, and administration (namespaces and tables).

use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use strata_engine::Durability;
use strata_server::{AlterOp, RegionInfo, Service, SplitAt, TableDescriptor, TableName};

use crate::admin::TableBuilder;
use crate::error::Result;
use crate::open_database::OpenDatabase;
use crate::options::Options;
use crate::table::Table;

/// An open Strata database. Cheap to clone (clones share one database) and safe to use from
/// many threads. The database closes, flushing memstores, when [`close`](Db::close) is called
/// or the last handle (including [`Table`]s) is dropped.
#[derive(Clone)]
pub struct Db {
    pub(crate) database: Arc<OpenDatabase>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("durability", &self.database.durability())
            .field("closed", &self.database.is_closed())
            .finish_non_exhaustive()
    }
}

fn table_name(name: &str) -> Result<TableName> {
    Ok(TableName::parse(name)?)
}

impl Db {
    /// Opens (creating if needed) the database in directory `path` with default settings.
    pub fn open(path: impl Into<PathBuf>) -> Result<Db> {
        Db::open_with(Options::new(path))
    }

    /// Opens the database with `options`.
    pub fn open_with(options: Options) -> Result<Db> {
        let (service_options, durability) = options.into_parts();
        let service = Service::open(service_options)?;
        Ok(Db::wrap(service, durability, true))
    }

    /// A handle over a service someone else opened and will close (the server, tools):
    /// dropping or closing this handle leaves the service open.
    pub fn from_service(service: Arc<Service>) -> Db {
        Db::wrap(service, Durability::default(), false)
    }

    fn wrap(service: Arc<Service>, durability: Durability, owns_service: bool) -> Db {
        Db {
            database: Arc::new(OpenDatabase::new(service, durability, owns_service)),
        }
    }

    /// Flushes and closes the database. Every handle of it fails with [`Error::Closed`]
    /// from now on. Closing twice is harmless.
    pub fn close(&self) -> Result<()> {
        self.database.close()
    }

    /// The service layer under this handle, for adapters that need more than this API.
    pub fn service(&self) -> &Arc<Service> {
        self.database.service_even_if_closed()
    }

    /// A handle on an existing table, named `table` or `namespace:table`.
    pub fn table(&self, name: &str) -> Result<Table> {
        let name = table_name(name)?;
        self.database.service()?.admin().describe_table(&name)?;
        Ok(Table::new(Arc::clone(&self.database), name))
    }

    /// Every namespace (including `default` and the reserved `hbase`).
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        Ok(self.database.service()?.admin().list_namespaces())
    }

    /// Creates a namespace.
    pub fn create_namespace(&self, namespace: &str) -> Result<()> {
        Ok(self
            .database
            .service()?
            .admin()
            .create_namespace(namespace)?)
    }

    /// Drops an empty namespace.
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        Ok(self.database.service()?.admin().drop_namespace(namespace)?)
    }

    /// Creates an enabled table and returns a handle on it.
    pub fn create_table(&self, table: TableBuilder) -> Result<Table> {
        let name = table_name(&table.name)?;
        self.database
            .service()?
            .admin()
            .create_table_with_durability(
                &name,
                table.families,
                table.split_keys,
                table.durability,
            )?;
        Ok(Table::new(Arc::clone(&self.database), name))
    }

    /// Every table, in name order.
    pub fn list_tables(&self) -> Result<Vec<TableName>> {
        Ok(self.database.service()?.admin().list_tables())
    }

    /// A table's schema.
    pub fn describe_table(&self, name: &str) -> Result<TableDescriptor> {
        Ok(self
            .database
            .service()?
            .admin()
            .describe_table(&table_name(name)?)?)
    }

    /// A table's regions, in row order.
    pub fn table_regions(&self, name: &str) -> Result<Vec<RegionInfo>> {
        Ok(self
            .database
            .service()?
            .admin()
            .table_regions(&table_name(name)?)?)
    }

    /// Changes a table's schema. Modifying a family works online; adding or deleting one
    /// needs the table disabled.
    pub fn alter_table(&self, name: &str, op: AlterOp) -> Result<()> {
        Ok(self
            .database
            .service()?
            .admin()
            .alter_table(&table_name(name)?, op)?)
    }

    /// Disables a table: its reads and writes fail until it is enabled.
    pub fn disable_table(&self, name: &str) -> Result<()> {
        Ok(self
            .database
            .service()?
            .admin()
            .disable_table(&table_name(name)?)?)
    }

    /// Enables a disabled table.
    pub fn enable_table(&self, name: &str) -> Result<()> {
        Ok(self
            .database
            .service()?
            .admin()
            .enable_table(&table_name(name)?)?)
    }

    /// True if the table is enabled.
    pub fn is_table_enabled(&self, name: &str) -> Result<bool> {
        Ok(self
            .database
            .service()?
            .admin()
            .is_table_enabled(&table_name(name)?)?)
    }

    /// Deletes a disabled table and its data.
    pub fn delete_table(&self, name: &str) -> Result<()> {
        Ok(self
            .database
            .service()?
            .admin()
            .delete_table(&table_name(name)?)?)
    }

    /// Empties a disabled table (keeping its split keys if `preserve_splits`) and enables it.
    pub fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<()> {
        let name = table_name(name)?;
        Ok(self
            .database
            .service()?
            .admin()
            .truncate_table(&name, preserve_splits)?)
    }

    /// Flushes a table's memstores to files.
    pub fn flush_table(&self, name: &str) -> Result<()> {
        Ok(self
            .database
            .service()?
            .admin()
            .flush_table(&table_name(name)?)?)
    }

    /// Compacts a table's files (a major compaction also drops deleted and expired cells).
    pub fn compact_table(&self, name: &str, major: bool) -> Result<()> {
        Ok(self
            .database
            .service()?
            .admin()
            .compact_table(&table_name(name)?, major)?)
    }

    /// Splits the region holding `row` at `row`; returns the daughters' region ids.
    pub fn split_table_at(&self, name: &str, row: impl Into<Bytes>) -> Result<(u64, u64)> {
        self.split_region(name, SplitAt::Key(row.into()))
    }

    /// Splits one region (by id, near its middle, or at a row); returns the daughters' ids.
    pub fn split_region(&self, name: &str, at: SplitAt) -> Result<(u64, u64)> {
        Ok(self
            .database
            .service()?
            .admin()
            .split_region(&table_name(name)?, at)?)
    }
}
