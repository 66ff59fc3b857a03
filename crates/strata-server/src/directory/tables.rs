//! Namespace and table administration: create, drop, enable, disable, describe, flush and
//! compact.

use bytes::Bytes;
use strata_engine::FamilyOptions;

use super::open::{check_families, open_table};
use super::{same_regions, TableDirectory};
use crate::catalog::{NamespaceConfig, TableRecord};
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::names::{check_namespace, TableName, DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use crate::remote::{Origin, RegionWork, RowSpan};
use crate::table::{region_ranges, RegionInfo, TableDescriptor, TableState};

impl TableDirectory {
    /// Every namespace.
    pub fn list_namespaces(&self) -> Vec<String> {
        self.namespaces.read().keys().cloned().collect()
    }

    /// A namespace's configuration.
    pub fn namespace_config(&self, namespace: &str) -> Result<NamespaceConfig> {
        self.namespaces
            .read()
            .get(namespace)
            .cloned()
            .ok_or_else(|| ServiceError::NamespaceNotFound(namespace.to_string()))
    }

    /// Creates a namespace with `config`.
    pub fn create_namespace(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        check_namespace(namespace)?;
        let _admin = self.lock_admin();
        if self.namespaces.read().contains_key(namespace) {
            return Err(ServiceError::NamespaceExists(namespace.to_string()));
        }
        self.catalog.put_namespace(namespace, &config)?;
        self.namespaces
            .write()
            .insert(namespace.to_string(), config);
        Ok(())
    }

    /// Replaces an existing namespace's configuration with `config`, as HBase's
    /// modifyNamespace does.
    pub fn modify_namespace(&self, namespace: &str, config: NamespaceConfig) -> Result<()> {
        let _admin = self.lock_admin();
        if !self.namespaces.read().contains_key(namespace) {
            return Err(ServiceError::NamespaceNotFound(namespace.to_string()));
        }
        self.catalog.put_namespace(namespace, &config)?;
        self.namespaces
            .write()
            .insert(namespace.to_string(), config);
        Ok(())
    }

    /// Drops an empty namespace (the default and system namespaces cannot be dropped).
    pub fn drop_namespace(&self, namespace: &str) -> Result<()> {
        let _admin = self.lock_admin();
        if namespace == DEFAULT_NAMESPACE || namespace == SYSTEM_NAMESPACE {
            return Err(ServiceError::InvalidArgument(format!(
                "namespace {namespace} cannot be dropped"
            )));
        }
        if !self.namespaces.read().contains_key(namespace) {
            return Err(ServiceError::NamespaceNotFound(namespace.to_string()));
        }
        if self.tables.read().keys().any(|t| t.namespace == namespace) {
            return Err(ServiceError::NamespaceNotEmpty(namespace.to_string()));
        }
        self.catalog.delete_namespace(namespace)?;
        self.namespaces.write().remove(namespace);
        Ok(())
    }

    /// Every table, in name order.
    pub fn list_tables(&self) -> Vec<TableName> {
        self.tables.read().keys().cloned().collect()
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

    /// Creates an enabled table as `descriptor` describes it (families, DURABILITY,
    /// metadata), pre-split at `split_keys`.
    pub fn create_table_from(
        &self,
        descriptor: TableDescriptor,
        split_keys: Vec<Bytes>,
    ) -> Result<()> {
        let TableDescriptor {
            name,
            families,
            durability,
            metadata,
        } = descriptor;
        let name = &name;
        check_families(&families)?;
        crate::schema_metadata::check_table(&metadata)?;
        let ranges = region_ranges(&split_keys)?;
        let _admin = self.lock_admin();
        if name.namespace == SYSTEM_NAMESPACE {
            return Err(ServiceError::InvalidArgument(
                "the hbase namespace is reserved".into(),
            ));
        }
        if !self.namespaces.read().contains_key(&name.namespace) {
            return Err(ServiceError::NamespaceNotFound(name.namespace.clone()));
        }
        if self.tables.read().contains_key(name) {
            return Err(ServiceError::TableExists(name.to_string()));
        }
        let regions = self.new_region_entries(ranges);
        let record = TableRecord {
            families,
            enabled: true,
            regions,
            durability,
            metadata,
        };
        let state = open_table(&self.opener, name.clone(), record.clone())?;
        self.catalog.put_table(name, &record)?;
        self.publish(state);
        tracing::info!(table = %name, "table created");
        Ok(())
    }

    /// Deletes a disabled table and its data.
    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        let _admin = self.lock_admin();
        let state = self.table(name)?;
        if state.record.enabled {
            return Err(ServiceError::TableNotDisabled(name.to_string()));
        }
        self.catalog.delete_table(name)?;
        self.unpublish(name);
        // Regions served elsewhere are closed and dropped by their owners.
        for region in state.regions.iter().filter(|r| r.local().is_some()) {
            self.engine.close_region(region.entry.id)?;
            self.engine.drop_region(region.entry.id)?;
        }
        // Parents of its regions' splits are referenced no more.
        self.engine.collect_retired()?;
        tracing::info!(table = %name, "table deleted");
        Ok(())
    }

    fn set_enabled(&self, name: &TableName, enabled: bool) -> Result<()> {
        let _admin = self.lock_admin();
        let state = self.table(name)?;
        // Like HBase: enabling an enabled table or disabling a disabled one is an error.
        match (state.record.enabled, enabled) {
            (true, true) => return Err(ServiceError::TableNotDisabled(name.to_string())),
            (false, false) => return Err(ServiceError::TableDisabled(name.to_string())),
            _ => {}
        }
        let mut record = state.record.clone();
        record.enabled = enabled;
        self.catalog.put_table(name, &record)?;
        self.publish(TableState::new(name.clone(), record, same_regions(&state)));
        Ok(())
    }

    /// Enables a table.
    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, true)
    }

    /// Disables a table: reads and writes are refused until it is enabled again.
    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, false)
    }

    /// True if the table is enabled.
    pub fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        Ok(self.table(name)?.record.enabled)
    }

    /// The table's schema.
    pub fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        let state = self.table(name)?;
        Ok(TableDescriptor {
            name: name.clone(),
            families: state.record.families.clone(),
            durability: state.record.durability,
            metadata: state.record.metadata.clone(),
        })
    }

    /// The table's regions.
    pub fn table_regions(&self, name: &TableName) -> Result<Vec<RegionInfo>> {
        Ok(self.table(name)?.region_infos())
    }

    /// Flushes every region of the table, wherever it is served.
    pub fn flush_table(&self, name: &TableName) -> Result<()> {
        self.maintain(name, &RowSpan::default(), RegionWork::Flush, Origin::Client)
            .map(|_| ())
    }

    /// Compacts every region of the table, wherever it is served (after a flush, for a
    /// major compaction).
    pub fn compact_table(&self, name: &TableName, major: bool) -> Result<()> {
        let work = if major {
            RegionWork::MajorCompact
        } else {
            RegionWork::Compact
        };
        self.maintain(name, &RowSpan::default(), work, Origin::Client)
            .map(|_| ())
    }
}
