//! The table directory: namespaces, tables, the catalog that persists them, and the open
//! regions of every table, with the one `route()` that finds the region holding a row.
//!
//! Every table change (create, drop, enable, alter, split, merge) runs here under the
//! admin lock and ends by publishing a new immutable [`TableState`]; readers and writers
//! take the current state without locking anything but the map. Writers that met a region
//! sealed by a split or merge wait for the next publication ([`TableChanges`]) instead of
//! polling.
//!
//! This file holds the state, the lookups (`table`, `route`) and the publication. Each
//! other concern is a type of its own file, reached through an accessor: [`TableAdmin`]
//! (create, drop, enable), [`Namespaces`], [`SchemaChanges`] (alter, truncate),
//! [`RegionChanges`] (split, merge), [`Placements`], [`CatalogSync`], [`Maintenance`]
//! (flush, compact) and [`Snapshots`]. They are views over the directory rather than
//! parts of it: a change takes the admin lock and touches several parts of the state (the
//! catalog, the tables, the engine). The change counter ([`TableChanges`]) and the region
//! ids are components the directory holds.

mod admin_lock;
mod changes;
mod maintain;
mod namespaces;
mod open;
mod placement;
mod region_ids;
mod regions;
mod schema;
mod snapshots;
mod sync;
mod tables;

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use strata_engine::Engine;
use strata_runtime::clock::Clock;

use crate::catalog::{Catalog, CatalogStore, NamespaceConfig, CATALOG_REGION_ID};
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::registry::{RegionRegistry, ServingGate};
use crate::table::{OpenRegion, RegionInfo, TableDescriptor, TableState};

pub(crate) use changes::TableChanges;
pub use maintain::Maintenance;
pub use namespaces::Namespaces;
pub use placement::Placements;
pub use regions::RegionChanges;
pub use schema::SchemaChanges;
pub use snapshots::{SnapshotInfo, Snapshots};
pub use sync::CatalogSync;
pub use tables::TableAdmin;

/// Namespaces, tables and their regions.
pub struct TableDirectory {
    engine: Arc<Engine>,
    /// Opens regions, telling cluster mode's registry first.
    opener: open::RegionOpener,
    catalog: Catalog,
    /// Serialises catalog changes (creates, drops, enables, splits, merges); reads never
    /// take it.
    admin: Mutex<()>,
    /// Every namespace's configuration; see [`Namespaces`].
    namespace_configs: RwLock<BTreeMap<String, NamespaceConfig>>,
    tables: RwLock<BTreeMap<TableName, Arc<TableState>>>,
    /// The ids of new regions.
    region_ids: region_ids::RegionIds,
    clock: Arc<dyn Clock>,
    /// Publications of table states, which writers that met a sealed region wait for.
    changes: TableChanges,
    /// Cluster mode: asked before every table lookup (so before every read and write).
    serving_gate: RwLock<Option<Arc<dyn ServingGate>>>,
    /// The access-control grants the catalog holds, followed with it.
    grants: Arc<crate::access::Grants>,
}

impl TableDirectory {
    /// Loads the catalog from `engine`, opens every table's regions and retires region
    /// directories no table lists (leftovers of interrupted splits and merges).
    /// Cluster mode passes its `registry` and the `catalog` store every server shares.
    pub fn open(
        engine: Arc<Engine>,
        clock: Arc<dyn Clock>,
        registry: Option<Arc<dyn RegionRegistry>>,
        catalog: Option<Arc<dyn CatalogStore>>,
    ) -> Result<TableDirectory> {
        let opener = open::RegionOpener {
            engine: Arc::clone(&engine),
            registry,
        };
        let catalog = Catalog::open(catalog, |table, entry, families| {
            opener.open(table, entry, families)
        })?;
        let contents = catalog.load()?;
        // Above every directory too: a retired parent's files may outlive its catalog entry.
        let on_disk = engine.region_ids_on_disk()?.last().copied().unwrap_or(0);
        let next_region_id = Catalog::max_region_id(&contents).max(on_disk) + 1;
        let namespaces = namespaces::with_builtin_namespaces(contents.namespaces);
        let grants = Arc::new(crate::access::Grants::new(contents.grants));
        let mut tables = BTreeMap::new();
        for (name, record) in contents.tables {
            let state = open::open_table(&opener, name.clone(), record)?;
            tables.insert(name, Arc::new(state));
        }
        tracing::info!(tables = tables.len(), "catalog loaded");
        let live: std::collections::HashSet<u64> = std::iter::once(CATALOG_REGION_ID)
            .chain(
                tables
                    .values()
                    .flat_map(|t: &Arc<TableState>| t.regions.iter().map(|r| r.entry.id)),
            )
            .collect();
        engine.retire_all_except(&live)?;
        Ok(TableDirectory {
            engine,
            opener,
            catalog,
            admin: Mutex::new(()),
            namespace_configs: RwLock::new(namespaces),
            tables: RwLock::new(tables),
            region_ids: region_ids::RegionIds::starting_at(next_region_id),
            changes: TableChanges::new(Arc::clone(&clock)),
            clock,
            serving_gate: RwLock::new(None),
            grants,
        })
    }

    /// The access-control grants in force, as the catalog holds them.
    pub fn grants(&self) -> &Arc<crate::access::Grants> {
        &self.grants
    }

    /// The catalog, for the records kept beside the tables (the grants).
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Creating, dropping, enabling and disabling tables.
    pub fn table_admin(&self) -> TableAdmin<'_> {
        TableAdmin { dir: self }
    }

    /// The namespaces and their administration.
    pub fn namespaces(&self) -> Namespaces<'_> {
        Namespaces { dir: self }
    }

    /// The snapshots of the tables and their administration.
    pub fn snapshots(&self) -> Snapshots<'_> {
        Snapshots { dir: self }
    }

    /// Following the catalog when other servers change it (cluster mode).
    pub fn catalog_sync(&self) -> CatalogSync<'_> {
        CatalogSync { dir: self }
    }

    /// Where the regions are served, as the registry says (cluster mode).
    pub fn placements(&self) -> Placements<'_> {
        Placements { dir: self }
    }

    /// Splits and merges of the regions.
    pub fn region_changes(&self) -> RegionChanges<'_> {
        RegionChanges { dir: self }
    }

    /// Schema changes of the tables (alter, truncate).
    pub fn schema_changes(&self) -> SchemaChanges<'_> {
        SchemaChanges { dir: self }
    }

    /// Flushes and compactions of the regions, wherever they are served.
    pub fn maintenance(&self) -> Maintenance<'_> {
        Maintenance { dir: self }
    }

    /// The engine the regions live in.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Installs the gate every table lookup asks (cluster mode), after the open: the
    /// open itself must not depend on it.
    pub(crate) fn set_serving_gate(&self, gate: Option<Arc<dyn ServingGate>>) {
        *self.serving_gate.write() = gate;
    }

    /// `Ok` unless the serving gate refuses (a retryable `Unavailable`).
    pub fn check_serving(&self) -> Result<()> {
        match self.serving_gate.read().as_ref() {
            Some(gate) => gate.check().map_err(|reason| {
                ServiceError::Engine(strata_engine::Error::Closed(format!(
                    "this server is not serving: {reason}"
                )))
            }),
            None => Ok(()),
        }
    }

    /// The current state of a table. In cluster mode a table not known here is looked for
    /// in the catalog again before the answer is no: it may have been created through
    /// another server an instant ago (the follower loop would see it within a round).
    pub fn table(&self, name: &TableName) -> Result<Arc<TableState>> {
        self.check_serving()?;
        let published = || self.tables.read().get(name).cloned();
        if let Some(state) = published() {
            return Ok(state);
        }
        if self.catalog.is_shared() && !admin_lock::holds_admin() {
            self.catalog_sync().follow()?;
            if let Some(state) = published() {
                return Ok(state);
            }
        }
        Err(ServiceError::TableNotFound(name.to_string()))
    }

    /// Every table, in name order.
    pub fn list_tables(&self) -> Vec<TableName> {
        self.tables.read().keys().cloned().collect()
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

    /// Takes the lock that serialises catalog changes.
    pub(crate) fn lock_admin(&self) -> admin_lock::AdminGuard<'_> {
        admin_lock::lock_admin(&self.admin)
    }

    /// True when the catalog is shared with other servers (cluster mode), so this
    /// server's view of it may be behind.
    pub fn follows_shared_catalog(&self) -> bool {
        self.catalog.is_shared()
    }

    /// The current state of an enabled table and its region holding `row`.
    pub fn route(&self, name: &TableName, row: &[u8]) -> Result<(Arc<TableState>, usize)> {
        self.route_checked(name, row, |_| Ok(()))
    }

    /// [`TableDirectory::route`] for a request that `check` must also accept (the families
    /// it names exist).
    pub fn route_checked(
        &self,
        name: &TableName,
        row: &[u8],
        check: impl Fn(&TableState) -> Result<()>,
    ) -> Result<(Arc<TableState>, usize)> {
        let state = self.table_checked(name, |state| {
            state.check_enabled()?;
            check(state)
        })?;
        let index = state.region_index_for(row);
        Ok((state, index))
    }

    /// The current state of a table that `check` accepts. In cluster mode a table that is
    /// disabled here, or lacks a family a request names, is read from the catalog again
    /// before the answer is no: it may have been enabled or altered through another
    /// server an instant ago.
    pub fn table_checked(
        &self,
        name: &TableName,
        check: impl Fn(&TableState) -> Result<()>,
    ) -> Result<Arc<TableState>> {
        let state = self.table(name)?;
        match check(&state) {
            Ok(()) => Ok(state),
            Err(ServiceError::FamilyNotFound { .. } | ServiceError::TableDisabled(_))
                if self.catalog.is_shared() && !admin_lock::holds_admin() =>
            {
                // Checked again even when this sync found nothing new: the catalog
                // watcher may have followed the change between the read above and it.
                self.catalog_sync().follow()?;
                let state = self.table(name)?;
                check(&state)?;
                Ok(state)
            }
            Err(e) => Err(e),
        }
    }

    /// Drops every open table (the engine closes their regions).
    pub(crate) fn clear(&self) {
        self.tables.write().clear();
        self.changes.note();
    }

    /// The count of published table changes, to wait for the next one.
    pub(crate) fn changes(&self) -> &TableChanges {
        &self.changes
    }

    /// Publishes `state` as the table's current state.
    fn publish(&self, state: TableState) {
        self.tables
            .write()
            .insert(state.name.clone(), Arc::new(state));
        self.changes.note();
    }

    fn unpublish(&self, name: &TableName) {
        self.tables.write().remove(name);
        self.changes.note();
    }
}

/// The regions of `state`, sharing the same open regions (for a state built from another).
fn same_regions(state: &TableState) -> Vec<OpenRegion> {
    state
        .regions
        .iter()
        .map(|r| OpenRegion {
            entry: r.entry.clone(),
            location: r.location.clone(),
        })
        .collect()
}

#[cfg(test)]
mod release_tests;
#[cfg(test)]
mod tests;
