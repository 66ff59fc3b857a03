//! Namespace, table and region administration: handed to the table directory, and to the
//! splitter for splits and merges. In cluster mode, a server that is not master sends what
//! changes the catalog to the master (`remote/admin.rs`), then reads the catalog, so the
//! change is visible here when the call returns.

use bytes::Bytes;
use strata_engine::{FamilyOptions, Scan};

use super::Service;
use crate::catalog::NamespaceConfig;
use crate::durability::WriteDurability;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::{AdminReply, AdminRequest};
use crate::row_stream::RowStream;
use crate::status::TableStatus;
use crate::table::{RegionInfo, TableDescriptor};
use crate::table_changes::{AlterOp, SplitAt};

impl Service {
    /// Every namespace.
    pub fn list_namespaces(&self) -> Vec<String> {
        self.directory.namespaces().list()
    }

    /// Creates a namespace without configuration.
    pub fn create_namespace(&self, namespace: &str) -> Result<()> {
        self.create_namespace_with(namespace, NamespaceConfig::new())
    }

    /// Creates a namespace with `config` (HBase's namespace descriptor configuration).
    pub fn create_namespace_with(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        let request = || AdminRequest::CreateNamespace(namespace.into(), config.clone());
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        self.directory.namespaces().create(namespace, config)
    }

    /// Replaces a namespace's configuration with `config`.
    pub fn modify_namespace(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        let request = || AdminRequest::ModifyNamespace(namespace.into(), config.clone());
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        self.directory.namespaces().modify(namespace, config)
    }

    /// A namespace's configuration.
    pub fn namespace_config(&self, namespace: &str) -> Result<NamespaceConfig> {
        self.directory.namespaces().config(namespace)
    }

    /// Drops an empty namespace (the default and system namespaces cannot be dropped).
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        if let Some(reply) = self.at_master(|| AdminRequest::DropNamespace(namespace.into())) {
            return reply?.done();
        }
        self.directory.namespaces().delete(namespace)
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
        self.create_table_with_durability(name, families, split_keys, WriteDurability::UseDefault)
    }

    /// [`Service::create_table`] with the table's DURABILITY attribute.
    pub fn create_table_with_durability(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
        durability: WriteDurability,
    ) -> Result<()> {
        let mut descriptor = TableDescriptor::new(name.clone(), families);
        descriptor.durability = durability;
        self.create_table_from(descriptor, split_keys)
    }

    /// Creates an enabled table as `descriptor` describes it: families (with their
    /// metadata), DURABILITY and the table's metadata, which [`Service::describe_table`]
    /// returns exactly as given. Pre-split at `split_keys`.
    pub fn create_table_from(
        &self,
        descriptor: TableDescriptor,
        split_keys: Vec<Bytes>,
    ) -> Result<()> {
        let request = || AdminRequest::CreateTable {
            name: descriptor.name.clone(),
            families: descriptor.families.clone(),
            split_keys: split_keys.clone(),
            durability: descriptor.durability,
            metadata: descriptor.metadata.clone(),
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        self.directory
            .table_admin()
            .create_from(descriptor, split_keys)
    }

    /// Deletes a disabled table and its data.
    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        if let Some(reply) = self.at_master(|| AdminRequest::DeleteTable(name.clone())) {
            return reply?.done();
        }
        self.directory.table_admin().delete(name)
    }

    /// Enables a table.
    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        if let Some(reply) = self.at_master(|| AdminRequest::EnableTable(name.clone())) {
            return reply?.done();
        }
        self.directory.table_admin().enable(name)
    }

    /// Disables a table: reads and writes are refused until it is enabled again.
    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        if let Some(reply) = self.at_master(|| AdminRequest::DisableTable(name.clone())) {
            return reply?.done();
        }
        self.directory.table_admin().disable(name)
    }

    /// True if the table is enabled.
    pub fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        self.directory.is_table_enabled(name)
    }

    /// The table's schema.
    pub fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        self.directory.describe_table(name)
    }

    /// Makes the table's schema `descriptor` (HBase's modifyTable): its DURABILITY and
    /// metadata are replaced, families it changes are modified (online), and families it
    /// adds or leaves out are added or deleted (which needs the table disabled). Each change
    /// is one [`Service::alter_table`]; a refused one leaves the earlier ones made.
    pub fn modify_table(&self, descriptor: &TableDescriptor) -> Result<()> {
        let current = self.describe_table(&descriptor.name)?;
        for op in crate::table_changes::changes_between(&current, descriptor) {
            self.alter_table(&descriptor.name, op)?;
        }
        Ok(())
    }

    /// Applies one schema change to `name`.
    pub fn alter_table(&self, name: &TableName, op: AlterOp) -> Result<()> {
        if let Some(reply) = self.at_master(|| AdminRequest::AlterTable(name.clone(), op.clone())) {
            return reply?.done();
        }
        self.directory.schema_changes().alter(name, op)
    }

    /// Empties a disabled table (see [`SchemaChanges::truncate`]).
    ///
    /// [`SchemaChanges::truncate`]: crate::directory::SchemaChanges::truncate
    pub fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        let request = || AdminRequest::TruncateTable {
            name: name.clone(),
            preserve_splits,
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        self.directory
            .schema_changes()
            .truncate(name, preserve_splits)
    }

    /// The table's regions.
    pub fn table_regions(&self, name: &TableName) -> Result<Vec<RegionInfo>> {
        self.directory.table_regions(name)
    }

    /// The table's regions in key order, each with the bytes of its SSTables and memstores.
    pub fn region_sizes(&self, table: &TableName) -> Result<Vec<(RegionInfo, u64)>> {
        crate::region_sizes::region_sizes(&self.directory, table)
    }

    /// Every table with its regions (user tables and system ones), sorted by name.
    pub fn table_status(&self) -> Vec<TableStatus> {
        TableStatus::of_all(&self.directory)
    }

    /// One table with its regions; `None` if there is no such table.
    pub fn one_table_status(&self, name: &TableName) -> Option<TableStatus> {
        TableStatus::of(&self.directory, name)
    }

    /// Takes snapshot `snapshot` of a table (HBase's `snapshot`). Standalone only.
    pub fn snapshot_table(&self, name: &TableName, snapshot: &str) -> Result<()> {
        self.directory.snapshots().take(name, snapshot)
    }

    /// Every snapshot (HBase's `list_snapshots`).
    pub fn list_snapshots(&self) -> Result<Vec<crate::SnapshotInfo>> {
        self.directory.snapshots().list()
    }

    /// Deletes a snapshot; tables cloned or restored from it keep their data.
    pub fn delete_snapshot(&self, snapshot: &str) -> Result<()> {
        self.directory.snapshots().delete(snapshot)
    }

    /// Creates table `name` from a snapshot (HBase's `clone_snapshot`).
    pub fn clone_snapshot(&self, snapshot: &str, name: &TableName) -> Result<()> {
        self.directory.snapshots().clone_to(snapshot, name)
    }

    /// Puts a disabled table back as the snapshot recorded it (HBase's `restore_snapshot`).
    pub fn restore_snapshot(&self, snapshot: &str) -> Result<()> {
        self.directory.snapshots().restore(snapshot)
    }

    /// Flushes every region of the table.
    pub fn flush_table(&self, name: &TableName) -> Result<()> {
        self.directory.maintenance().flush_table(name)
    }

    /// Compacts every region of the table (after a flush, for a major compaction).
    pub fn compact_table(&self, name: &TableName, major: bool) -> Result<()> {
        self.directory.maintenance().compact_table(name, major)
    }

    /// Streams the rows of `scan` without registering a scanner (see `row_stream.rs`).
    pub fn scan_rows(&self, table: &TableName, scan: Scan) -> Result<RowStream> {
        RowStream::open(&self.directory, table, scan)
    }

    /// The size past which a region of a table with `regions` regions splits.
    pub fn split_threshold(&self, regions: usize) -> u64 {
        self.splitter.threshold(regions)
    }

    /// Splits a region in two; returns the daughters' ids.
    pub fn split_region(&self, table: &TableName, at: SplitAt) -> Result<(u64, u64)> {
        let request = || AdminRequest::SplitRegion {
            table: table.clone(),
            at: at.clone(),
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.pair();
        }
        self.bring_here(table, &at)?;
        self.splitter.split(table, at)
    }

    /// Cluster mode: brings the region `at` names to this server (the master) first, since
    /// regions split where the catalog is written.
    fn bring_here(&self, table: &TableName, at: &SplitAt) -> Result<()> {
        let Ok(admin) = self.cluster_admin() else {
            return Ok(());
        };
        let (id, here) = self.directory.region_changes().locate_split(table, at)?;
        if !here {
            admin.take_region(id)?;
        }
        Ok(())
    }

    /// Merges two adjacent regions into one; returns its id.
    pub fn merge_regions(&self, table: &TableName, a: u64, b: u64) -> Result<u64> {
        let request = || AdminRequest::MergeRegions {
            table: table.clone(),
            a,
            b,
        };
        if let Some(reply) = self.at_master(request) {
            return reply?.number();
        }
        self.bring_here(table, &SplitAt::Region(a))?;
        self.bring_here(table, &SplitAt::Region(b))?;
        self.splitter.merge(table, a, b)
    }

    /// Cluster mode, on a server that is not master: `request` carried out by the master,
    /// then this server's view of the catalog brought up to date. `None` standalone and on
    /// the master, which carry the request out themselves.
    fn at_master(&self, request: impl FnOnce() -> AdminRequest) -> Option<Result<AdminReply>> {
        let link = self.options.master_link.as_deref()?;
        if matches!(link.master(), crate::remote::Master::Here) {
            return None;
        }
        let reply = crate::remote::send_to_master(link, &request())?;
        Some(reply.and_then(|reply| {
            link.after_admin();
            self.directory.catalog_sync().follow()?;
            Ok(reply)
        }))
    }
}
