//! Schema changes of existing tables: alter (add, modify or delete a column family, set the
//! table's DURABILITY or its metadata) and truncate.
//!
//! Setting DURABILITY works online: writes resolve it from the table's record, which is
//! replaced at once. Modifying a family's settings works online too: every open store takes the new settings at
//! once (reads use them immediately, files written from then on use the new block size,
//! codec and bloom type). Adding or deleting a family reopens the table's regions, so the
//! table must be disabled first, as HBase 1.x required (HBase 2 also does this online).

use bytes::Bytes;

use super::open::{check_families, open_table};
use super::{same_regions, TableDirectory};
use crate::catalog::TableRecord;
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::table::region_ranges;
use crate::table_changes::AlterOp;

/// Schema changes of a directory's tables (see [`TableDirectory::schema_changes`]).
pub struct SchemaChanges<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl SchemaChanges<'_> {
    /// Applies one schema change to `name`.
    pub fn alter(&self, name: &TableName, op: AlterOp) -> Result<()> {
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(name)?;
        let mut record = state.record.clone();
        let position = |family: &[u8]| record.families.iter().position(|f| f.name == family);
        let missing = |family: &[u8]| ServiceError::FamilyNotFound {
            table: name.to_string(),
            family: String::from_utf8_lossy(family).into_owned(),
        };
        match &op {
            AlterOp::ModifyFamily(f) => {
                let i = position(&f.name).ok_or_else(|| missing(&f.name))?;
                record.families[i] = f.clone();
            }
            AlterOp::AddFamily(f) => {
                if position(&f.name).is_some() {
                    return Err(ServiceError::InvalidArgument(format!(
                        "column family {} already exists",
                        String::from_utf8_lossy(&f.name)
                    )));
                }
                record.families.push(f.clone());
            }
            AlterOp::DeleteFamily(family) => {
                let i = position(family).ok_or_else(|| missing(family))?;
                record.families.remove(i);
            }
            AlterOp::SetDurability(durability) => record.durability = *durability,
            AlterOp::SetMetadata(metadata) => {
                crate::schema_metadata::check_table(metadata)?;
                record.metadata = metadata.clone();
            }
        }
        check_families(&record.families)?;
        if let AlterOp::SetDurability(_) | AlterOp::SetMetadata(_) = &op {
            self.dir.catalog.put_table(name, &record)?;
            self.replace_state(name, record, &state);
            return Ok(());
        }
        if let AlterOp::ModifyFamily(f) = &op {
            self.dir.catalog.put_table(name, &record)?;
            // The family is in the table's record (checked above), so every open region
            // has its store; one that does not has nothing to alter. Regions served
            // elsewhere take the record's settings when they open there.
            for region in state.regions.iter().filter_map(|r| r.local()) {
                region.set_family(f.clone());
            }
            self.replace_state(name, record, &state);
            return Ok(());
        }
        if state.record.enabled {
            return Err(ServiceError::TableNotDisabled(name.to_string()));
        }
        self.dir.catalog.put_table(name, &record)?;
        self.reopen_regions(name, record, &state, &op)
    }

    /// Keeps the open regions, with a new record.
    fn replace_state(
        &self,
        name: &TableName,
        record: TableRecord,
        state: &crate::table::TableState,
    ) {
        self.dir.publish(crate::table::TableState::new(
            name.clone(),
            record,
            same_regions(state),
        ));
    }

    /// Closes (flushing) and reopens every region of a disabled table with the new families,
    /// deleting a removed family's files.
    fn reopen_regions(
        &self,
        name: &TableName,
        record: TableRecord,
        state: &crate::table::TableState,
        op: &AlterOp,
    ) -> Result<()> {
        self.dir.unpublish(name);
        // Regions served elsewhere are reopened by their owners.
        for r in state.regions.iter().filter(|r| r.local().is_some()) {
            self.dir.engine.close_region(r.entry.id)?;
            // A deleted family's files go; so do leftovers under an added family's name (a
            // crash between an earlier delete's catalog write and its file removal), so an
            // added family always starts empty.
            match op {
                AlterOp::DeleteFamily(family) => self.dir.engine.drop_store(r.entry.id, family)?,
                AlterOp::AddFamily(f) => self.dir.engine.drop_store(r.entry.id, &f.name)?,
                AlterOp::ModifyFamily(_) | AlterOp::SetDurability(_) | AlterOp::SetMetadata(_) => {}
            }
        }
        self.dir
            .publish(open_table(&self.dir.opener, name.clone(), record)?);
        Ok(())
    }

    /// Empties a disabled table: its data is deleted and it gets fresh regions (split at the
    /// same keys when `preserve_splits`), then it is enabled again, as HBase's truncate does.
    pub fn truncate(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(name)?;
        if state.record.enabled {
            return Err(ServiceError::TableNotDisabled(name.to_string()));
        }
        let splits: Vec<Bytes> = if preserve_splits {
            state
                .regions
                .iter()
                .skip(1)
                .map(|r| r.entry.start_key.clone())
                .collect()
        } else {
            Vec::new()
        };
        let regions = self.dir.region_ids.entries(region_ranges(&splits)?);
        let record = TableRecord {
            families: state.record.families.clone(),
            enabled: true,
            regions,
            durability: state.record.durability,
            metadata: state.record.metadata.clone(),
        };
        let fresh = open_table(&self.dir.opener, name.clone(), record.clone())?;
        // The catalog write is the commit point: before it the old regions are the table.
        self.dir.catalog.put_table(name, &record)?;
        self.dir.publish(fresh);
        for r in state.regions.iter().filter(|r| r.local().is_some()) {
            self.dir.engine.close_region(r.entry.id)?;
            self.dir.engine.drop_region(r.entry.id)?;
        }
        self.dir.engine.collect_retired()?;
        tracing::info!(table = %name, "table truncated");
        Ok(())
    }
}
