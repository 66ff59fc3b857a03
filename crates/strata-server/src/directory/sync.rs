//! Following a catalog another server changes (cluster mode: the master writes the catalog
//! in etcd; every other server follows it). The directory is brought to what the catalog
//! says: new tables are opened (each region where the registry places it), dropped tables
//! are closed, and a changed table keeps the regions it still lists, opens those it lists
//! anew and closes those it lists no more (split and merge parents).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::open::open_table;
use super::TableDirectory;
use crate::catalog::TableRecord;
use crate::error::Result;
use crate::names::{TableName, DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use crate::table::{OpenRegion, TableState};

impl TableDirectory {
    /// Reads the catalog again and follows it; returns how many tables changed.
    pub fn sync_with_catalog(&self) -> Result<usize> {
        let _admin = self.lock_admin();
        let contents = self.catalog.load()?;
        let mut namespaces = contents.namespaces;
        namespaces.insert(DEFAULT_NAMESPACE.to_string());
        namespaces.insert(SYSTEM_NAMESPACE.to_string());
        *self.namespaces.write() = namespaces;
        let current: BTreeMap<TableName, Arc<TableState>> = self.tables.read().clone();
        let mut changed = 0;
        for (name, state) in &current {
            if !contents.tables.contains_key(name) {
                self.unpublish(name);
                self.close_local(state.regions.iter());
                changed += 1;
            }
        }
        for (name, record) in contents.tables {
            let state = match current.get(&name) {
                Some(state) if state.record == record => continue,
                Some(state) => self.follow_table(state, record)?,
                None => open_table(&self.opener, name, record)?,
            };
            self.publish(state);
            changed += 1;
        }
        if changed > 0 {
            tracing::info!(tables = changed, "followed catalog changes");
        }
        Ok(changed)
    }

    /// `state` brought to `record`. A change of families reopens the regions served here
    /// (the table was disabled for it, as HBase requires).
    fn follow_table(&self, state: &TableState, record: TableRecord) -> Result<TableState> {
        if state.record.families != record.families {
            self.close_local(state.regions.iter());
            return open_table(&self.opener, state.name.clone(), record);
        }
        let table = state.name.to_string();
        let mut regions = Vec::with_capacity(record.regions.len());
        for entry in &record.regions {
            let kept = state.regions.iter().find(|r| r.entry == *entry);
            let location = match kept {
                Some(open) => open.location.clone(),
                None => self.opener.locate(&table, entry, &record.families)?,
            };
            regions.push(OpenRegion {
                entry: entry.clone(),
                location,
            });
        }
        let gone = state
            .regions
            .iter()
            .filter(|r| !record.regions.contains(&r.entry));
        self.close_local(gone);
        regions.sort_by(|a, b| a.entry.start_key.cmp(&b.entry.start_key));
        Ok(TableState::new(state.name.clone(), record, regions))
    }

    /// Closes the regions among `regions` served here (flushing them).
    fn close_local<'a>(&self, regions: impl Iterator<Item = &'a OpenRegion>) {
        for region in regions.filter_map(|r| r.local()) {
            if let Err(e) = self.engine.close_region(region.id()) {
                tracing::warn!(region = region.id(), error = %e, "could not close a region the catalog no longer lists here");
            }
        }
    }
}
