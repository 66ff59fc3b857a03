//! Following a catalog another server changes (cluster mode: the master writes the catalog
//! in etcd; every other server follows it). The directory is brought to what the catalog
//! says: new tables are opened (each region where the registry places it), dropped tables
//! are closed, and a changed table keeps the regions it still lists, opens those it lists
//! anew and closes those it lists no more (split and merge parents).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::open::open_table;
use super::TableDirectory;
use crate::catalog::{Catalog, TableRecord, CATALOG_REGION_ID};
use crate::error::Result;
use crate::names::TableName;
use crate::table::{OpenRegion, TableState};

/// A directory following its catalog (see [`TableDirectory::catalog_sync`]).
pub struct CatalogSync<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl CatalogSync<'_> {
    /// Reads the catalog again and follows it; returns how many tables changed.
    pub fn follow(&self) -> Result<usize> {
        crate::inline::refuse_wait("the catalog")?;
        let _admin = self.dir.lock_admin();
        let contents = self.dir.catalog.load()?;
        // Ids the master allocated are used: if this server becomes master, it allocates
        // above them.
        self.dir
            .region_ids
            .reserve_above(Catalog::max_region_id(&contents));
        *self.dir.namespace_configs.write() =
            super::namespaces::with_builtin_namespaces(contents.namespaces);
        self.dir.grants.follow(contents.grants);
        let current: BTreeMap<TableName, Arc<TableState>> = self.dir.tables.read().clone();
        let mut changed = 0;
        for (name, state) in &current {
            if !contents.tables.contains_key(name) {
                self.dir.unpublish(name);
                self.close_local(state.regions.iter());
                changed += 1;
            }
        }
        for (name, record) in contents.tables {
            let state = match current.get(&name) {
                Some(state) if state.record == record => continue,
                Some(state) => self.follow_table(state, record)?,
                None => open_table(&self.dir.opener, name, record)?,
            };
            self.dir.publish(state);
            changed += 1;
        }
        if changed > 0 {
            tracing::info!(tables = changed, "followed catalog changes");
        }
        Ok(changed)
    }

    /// Makes every region id this directory allocates from now on larger than `in_use`,
    /// than every region the catalog names and than every region the engine holds files
    /// of. A server that becomes master calls it: the previous master allocated ids since
    /// this directory opened, some of them (those of a split that never committed) named
    /// only in the cluster's directory and the store. A reused id would open another
    /// region's files.
    pub fn reserve_region_ids_above(&self, in_use: u64) -> Result<()> {
        let on_disk = self
            .dir
            .engine
            .region_ids_on_disk()?
            .last()
            .copied()
            .unwrap_or(0);
        let named = self.catalog_region_ids().into_iter().max().unwrap_or(0);
        let floor = in_use.max(on_disk).max(named);
        self.dir.region_ids.reserve_above(floor);
        Ok(())
    }

    /// Runs `f` with the id of every region the catalog names (every table's, enabled or
    /// not) while no catalog change runs here, so that a region `f` finds missing is not
    /// one a split or a new table is creating at that moment.
    pub fn with_catalog_regions<R>(&self, f: impl FnOnce(&HashSet<u64>) -> R) -> R {
        let _admin = self.dir.lock_admin();
        f(&self.catalog_region_ids())
    }

    fn catalog_region_ids(&self) -> HashSet<u64> {
        let tables = self.dir.tables.read();
        std::iter::once(CATALOG_REGION_ID)
            .chain(
                tables
                    .values()
                    .flat_map(|t| t.record.regions.iter().map(|r| r.id)),
            )
            .collect()
    }

    /// `state` brought to `record`. A change of families reopens the regions served here
    /// (the table was disabled for it, as HBase requires).
    fn follow_table(&self, state: &TableState, record: TableRecord) -> Result<TableState> {
        if state.record.families != record.families {
            self.close_local(state.regions.iter());
            return open_table(&self.dir.opener, state.name.clone(), record);
        }
        let table = state.name.to_string();
        let mut regions = Vec::with_capacity(record.regions.len());
        for entry in &record.regions {
            let kept = state.regions.iter().find(|r| r.entry == *entry);
            let location = match kept {
                Some(open) => open.location.clone(),
                None => self.dir.opener.locate(&table, entry, &record.families)?,
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
            if let Err(e) = self.dir.engine.close_region(region.id()) {
                tracing::warn!(region = region.id(), error = %e, "could not close a region the catalog no longer lists here");
            }
        }
    }
}
