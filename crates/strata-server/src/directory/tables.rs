//! Table administration: create, drop, enable and disable.

use bytes::Bytes;
use strata_engine::FamilyOptions;

use super::open::{check_families, open_table};
use super::{same_regions, TableDirectory};
use crate::catalog::TableRecord;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::names::{TableName, SYSTEM_NAMESPACE};
use crate::table::{region_ranges, TableDescriptor, TableState};

/// Creating, dropping, enabling and disabling a directory's tables (see
/// [`TableDirectory::table_admin`]).
pub struct TableAdmin<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl TableAdmin<'_> {
    /// Creates an enabled table with `families`, pre-split at `split_keys`.
    pub fn create(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
    ) -> Result<()> {
        self.create_with_durability(name, families, split_keys, WriteDurability::UseDefault)
    }

    /// [`TableAdmin::create`] with the table's DURABILITY attribute.
    pub fn create_with_durability(
        &self,
        name: &TableName,
        families: Vec<FamilyOptions>,
        split_keys: Vec<Bytes>,
        durability: WriteDurability,
    ) -> Result<()> {
        let mut descriptor = TableDescriptor::new(name.clone(), families);
        descriptor.durability = durability;
        self.create_from(descriptor, split_keys)
    }

    /// Creates an enabled table as `descriptor` describes it (families, DURABILITY,
    /// metadata), pre-split at `split_keys`.
    pub fn create_from(&self, descriptor: TableDescriptor, split_keys: Vec<Bytes>) -> Result<()> {
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
        let _admin = self.dir.lock_admin();
        if name.namespace == SYSTEM_NAMESPACE {
            return Err(ServiceError::InvalidArgument(
                "the hbase namespace is reserved".into(),
            ));
        }
        if !self.dir.namespaces().exists(&name.namespace) {
            return Err(ServiceError::NamespaceNotFound(name.namespace.clone()));
        }
        if self.dir.tables.read().contains_key(name) {
            return Err(ServiceError::TableExists(name.to_string()));
        }
        let regions = self.dir.region_ids.entries(ranges);
        let record = TableRecord {
            families,
            enabled: true,
            regions,
            durability,
            metadata,
        };
        let state = open_table(&self.dir.opener, name.clone(), record.clone())?;
        self.dir.catalog.put_table(name, &record)?;
        self.dir.publish(state);
        tracing::info!(table = %name, "table created");
        Ok(())
    }

    /// Deletes a disabled table and its data.
    pub fn delete(&self, name: &TableName) -> Result<()> {
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(name)?;
        if state.record.enabled {
            return Err(ServiceError::TableNotDisabled(name.to_string()));
        }
        self.dir.catalog.delete_table(name)?;
        self.dir.unpublish(name);
        // Regions served elsewhere are closed and dropped by their owners.
        for region in state.regions.iter().filter(|r| r.local().is_some()) {
            self.dir.engine.close_region(region.entry.id)?;
            self.dir.engine.drop_region(region.entry.id)?;
        }
        // Parents of its regions' splits are referenced no more.
        self.dir.engine.collect_retired()?;
        tracing::info!(table = %name, "table deleted");
        Ok(())
    }

    fn set_enabled(&self, name: &TableName, enabled: bool) -> Result<()> {
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(name)?;
        // Like HBase: enabling an enabled table or disabling a disabled one is an error.
        match (state.record.enabled, enabled) {
            (true, true) => return Err(ServiceError::TableNotDisabled(name.to_string())),
            (false, false) => return Err(ServiceError::TableDisabled(name.to_string())),
            _ => {}
        }
        let mut record = state.record.clone();
        record.enabled = enabled;
        self.dir.catalog.put_table(name, &record)?;
        self.dir
            .publish(TableState::new(name.clone(), record, same_regions(&state)));
        Ok(())
    }

    /// Enables a table.
    pub fn enable(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, true)
    }

    /// Disables a table: reads and writes are refused until it is enabled again.
    pub fn disable(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, false)
    }
}
