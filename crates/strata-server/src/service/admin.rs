//! Namespace, table and region administration: handed to the table directory, and to the
//! splitter for splits and merges.

use bytes::Bytes;
use strata_engine::{FamilyOptions, Scan};

use super::Service;
use crate::directory::AlterOp;
use crate::durability::WriteDurability;
use crate::error::Result;
use crate::names::TableName;
use crate::row_stream::RowStream;
use crate::splitter::SplitAt;
use crate::status::TableStatus;
use crate::table::{RegionInfo, TableDescriptor};

impl Service {
    /// Every namespace.
    pub fn list_namespaces(&self) -> Vec<String> {
        self.directory.list_namespaces()
    }

    /// Creates a namespace.
    pub fn create_namespace(&self, namespace: &str) -> Result<()> {
        self.directory.create_namespace(namespace)
    }

    /// Drops an empty namespace (the default and system namespaces cannot be dropped).
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        self.directory.drop_namespace(namespace)
    }

    /// Every table, in name order.
    pub fn list_tables(&self) -> Vec<TableName> {
        self.directory.list_tables()
    }

    /// Creates an enabled table with `families`, pre-split at `split_keys`.
    pub fn create_table(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
    ) -> Result<()> {
        self.directory.create_table(name, families, split_keys)
    }

    /// [`Service::create_table`] with the table's DURABILITY attribute.
    pub fn create_table_with_durability(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
        durability: WriteDurability,
    ) -> Result<()> {
        self.directory
            .create_table_with_durability(name, families, split_keys, durability)
    }

    /// Deletes a disabled table and its data.
    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        self.directory.delete_table(name)
    }

    /// Enables a table.
    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        self.directory.enable_table(name)
    }

    /// Disables a table: reads and writes are refused until it is enabled again.
    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        self.directory.disable_table(name)
    }

    /// True if the table is enabled.
    pub fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        self.directory.is_table_enabled(name)
    }

    /// The table's schema.
    pub fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        self.directory.describe_table(name)
    }

    /// Applies one schema change to `name`.
    pub fn alter_table(&self, name: &TableName, op: AlterOp) -> Result<()> {
        self.directory.alter_table(name, op)
    }

    /// Empties a disabled table (see [`TableDirectory::truncate_table`]).
    ///
    /// [`TableDirectory::truncate_table`]: crate::directory::TableDirectory::truncate_table
    pub fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        self.directory.truncate_table(name, preserve_splits)
    }

    /// The table's regions.
    pub fn table_regions(&self, name: &TableName) -> Result<Vec<RegionInfo>> {
        self.directory.table_regions(name)
    }

    /// The table's regions in key order, each with the bytes of its SSTables and memstores.
    pub fn region_sizes(&self, table: &TableName) -> Result<Vec<(RegionInfo, u64)>> {
        self.directory.region_sizes(table)
    }

    /// Every table with its regions (user tables and system ones), sorted by name.
    pub fn table_status(&self) -> Vec<TableStatus> {
        self.directory.table_status()
    }

    /// One table with its regions; `None` if there is no such table.
    pub fn one_table_status(&self, name: &TableName) -> Option<TableStatus> {
        self.directory.one_table_status(name)
    }

    /// Flushes every region of the table.
    pub fn flush_table(&self, name: &TableName) -> Result<()> {
        self.directory.flush_table(name)
    }

    /// Compacts every region of the table (after a flush, for a major compaction).
    pub fn compact_table(&self, name: &TableName, major: bool) -> Result<()> {
        self.directory.compact_table(name, major)
    }

    /// Streams the rows of `scan` without registering a scanner (see `row_stream.rs`).
    pub fn scan_rows(&self, table: &TableName, scan: Scan) -> Result<RowStream> {
        self.directory.scan_rows(table, scan)
    }

    /// The size past which a region of a table with `regions` regions splits.
    pub fn split_threshold(&self, regions: usize) -> u64 {
        self.splitter.threshold(regions)
    }

    /// Splits a region in two; returns the daughters' ids.
    pub fn split_region(&self, table: &TableName, at: SplitAt) -> Result<(u64, u64)> {
        self.bring_here(table, &at)?;
        self.splitter.split(table, at)
    }

    /// Cluster mode: brings the region `at` names to this server (the master) first, since
    /// regions split where the catalog is written.
    fn bring_here(&self, table: &TableName, at: &SplitAt) -> Result<()> {
        let Ok(admin) = self.cluster_admin() else {
            return Ok(());
        };
        let (id, here) = self.directory.locate_split(table, at)?;
        if !here {
            admin.take_region(id)?;
        }
        Ok(())
    }

    /// Merges two adjacent regions into one; returns its id.
    pub fn merge_regions(&self, table: &TableName, a: u64, b: u64) -> Result<u64> {
        self.bring_here(table, &SplitAt::Region(a))?;
        self.bring_here(table, &SplitAt::Region(b))?;
        self.splitter.merge(table, a, b)
    }
}
