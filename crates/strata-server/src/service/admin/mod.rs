//! [`Admin`], the service's namespace, table and region administration: handed to the
//! table directory, and to the splitter for splits and merges. In cluster mode, a server
//! that is not master sends what changes the catalog to the master (`remote/admin.rs`),
//! then reads the catalog, so the change is visible here when the call returns.
//!
//! `regions.rs` has the calls on regions (sizes, snapshots, flushes, compactions, splits and
//! merges), `cluster.rs` cluster administration (moves, the balancer) and what the cluster
//! has.

mod access;
mod at_master;
mod cluster;
mod regions;

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::RwLock;
use strata_engine::FamilyOptions;

use strata_access::{AdminOp, Target};

use crate::access::AccessControl;
use crate::catalog::NamespaceConfig;
use crate::directory::TableDirectory;
use crate::durability::WriteDurability;
use crate::error::Result;
use crate::names::TableName;
use crate::registry::ClusterAdmin;
use crate::remote::{AdminReply, AdminRequest, MasterLink};
use crate::splitter::Splitter;
use crate::table::TableDescriptor;
use crate::table_changes::AlterOp;

/// Namespaces, tables, regions and the cluster, for every front end's administration.
pub struct Admin {
    directory: Arc<TableDirectory>,
    splitter: Arc<Splitter>,
    /// Where the master is (cluster mode); `None` standalone.
    master_link: Option<Arc<dyn MasterLink>>,
    /// The master's own cluster administration, installed when this server became master.
    cluster_admin: RwLock<Option<Arc<dyn ClusterAdmin>>>,
    /// Asked before each call (`access/`).
    access: Arc<AccessControl>,
}

impl Admin {
    pub(crate) fn new(
        directory: Arc<TableDirectory>,
        splitter: Arc<Splitter>,
        master_link: Option<Arc<dyn MasterLink>>,
        access: Arc<AccessControl>,
    ) -> Admin {
        Admin {
            directory,
            splitter,
            master_link,
            cluster_admin: RwLock::new(None),
            access,
        }
    }

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
        self.require(AdminOp::CreateNamespace, Target::Namespace(namespace))?;
        let request = || AdminRequest::CreateNamespace(namespace.into(), config.clone());
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        self.directory.namespaces().create(namespace, config)
    }

    /// Replaces a namespace's configuration with `config`.
    pub fn modify_namespace(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        self.require(AdminOp::ModifyNamespace, Target::Namespace(namespace))?;
        let request = || AdminRequest::ModifyNamespace(namespace.into(), config.clone());
        if let Some(reply) = self.at_master(request) {
            return reply?.done();
        }
        self.directory.namespaces().modify(namespace, config)
    }

    /// A namespace's configuration.
    pub fn namespace_config(&self, namespace: &str) -> Result<NamespaceConfig> {
        self.require(
            AdminOp::GetNamespaceDescriptor,
            Target::Namespace(namespace),
        )?;
        self.directory.namespaces().config(namespace)
    }

    /// Drops an empty namespace (the default and system namespaces cannot be dropped).
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        self.require(AdminOp::DeleteNamespace, Target::Namespace(namespace))?;
        if let Some(reply) = self.at_master(|| AdminRequest::DropNamespace(namespace.into())) {
            return reply?.done();
        }
        self.directory.namespaces().delete(namespace)
    }

    /// Every table the caller holds a permission on, in name order.
    pub fn list_tables(&self) -> Vec<TableName> {
        let mut tables = self.directory.list_tables();
        if self.access.is_enabled() {
            tables.retain(|t| self.access.may_see_table(t));
        }
        tables
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

    /// [`Admin::create_table`] with the table's DURABILITY attribute.
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
    /// metadata), DURABILITY and the table's metadata, which [`Admin::describe_table`]
    /// returns exactly as given. Pre-split at `split_keys`.
    pub fn create_table_from(
        &self,
        descriptor: TableDescriptor,
        split_keys: Vec<Bytes>,
    ) -> Result<()> {
        self.require(
            AdminOp::CreateTable,
            Target::Namespace(&descriptor.name.namespace),
        )?;
        let name = descriptor.name.clone();
        self.create_table_unchecked(descriptor, split_keys)?;
        self.grant_owner(&name)
    }

    fn create_table_unchecked(
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
        self.require_table(AdminOp::DeleteTable, name)?;
        if let Some(reply) = self.at_master(|| AdminRequest::DeleteTable(name.clone())) {
            return reply?.done();
        }
        self.directory.table_admin().delete(name)?;
        self.forget_table_grants(name)
    }

    /// Enables a table.
    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        self.require_table(AdminOp::EnableTable, name)?;
        if let Some(reply) = self.at_master(|| AdminRequest::EnableTable(name.clone())) {
            return reply?.done();
        }
        self.directory.table_admin().enable(name)
    }

    /// Disables a table: reads and writes are refused until it is enabled again.
    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        self.require_table(AdminOp::DisableTable, name)?;
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
        if !self.access.may_see_table(name) {
            self.require_table(AdminOp::ModifyTable, name)?;
        }
        self.directory.describe_table(name)
    }

    /// Makes the table's schema `descriptor` (HBase's modifyTable): its DURABILITY and
    /// metadata are replaced, families it changes are modified (online), and families it
    /// adds or leaves out are added or deleted (which needs the table disabled). Each change
    /// is one [`Admin::alter_table`]; a refused one leaves the earlier ones made.
    pub fn modify_table(&self, descriptor: &TableDescriptor) -> Result<()> {
        let current = self.describe_table(&descriptor.name)?;
        for op in crate::table_changes::changes_between(&current, descriptor) {
            self.alter_table(&descriptor.name, op)?;
        }
        Ok(())
    }

    /// Applies one schema change to `name`.
    pub fn alter_table(&self, name: &TableName, op: AlterOp) -> Result<()> {
        self.require_table(AdminOp::ModifyTable, name)?;
        if let Some(reply) = self.at_master(|| AdminRequest::AlterTable(name.clone(), op.clone())) {
            return reply?.done();
        }
        self.directory.schema_changes().alter(name, op)
    }

    /// Empties a disabled table (see [`SchemaChanges::truncate`]).
    ///
    /// [`SchemaChanges::truncate`]: crate::directory::SchemaChanges::truncate
    pub fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        self.require_table(AdminOp::TruncateTable, name)?;
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

    /// Cluster mode, on a server that is not master: `request` carried out by the master,
    /// then this server's view of the catalog brought up to date. `None` standalone and on
    /// the master, which carry the request out themselves.
    fn at_master(&self, request: impl FnOnce() -> AdminRequest) -> Option<Result<AdminReply>> {
        let link = self.master_link.as_deref()?;
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
