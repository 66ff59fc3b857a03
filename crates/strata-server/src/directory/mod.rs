//! The table directory: namespaces, tables, the catalog that persists them, and the open
//! regions of every table, with the one `route()` that finds the region holding a row.
//!
//! Every table change (create, drop, enable, alter, split, merge) runs here under the
//! admin lock and ends by publishing a new immutable [`TableState`]; readers and writers
//! take the current state without locking anything but the map. Writers that met a region
//! sealed by a split or merge wait for the next publication with [`TableDirectory::
//! wait_for_change`] instead of polling.

mod admin_lock;
mod maintain;
mod open;
mod placement;
mod regions;
mod schema;
mod snapshots;
mod sync;
mod tables;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use parking_lot::{Condvar, Mutex, RwLock};
use strata_engine::util::clock::Clock;
use strata_engine::Engine;

use crate::catalog::{Catalog, CatalogStore, NamespaceConfig, RegionEntry, CATALOG_REGION_ID};
use crate::error::{Result, ServiceError};
use crate::names::{TableName, DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use crate::registry::{RegionRegistry, ServingGate};
use crate::table::{OpenRegion, TableState};

pub use snapshots::SnapshotInfo;

/// Namespaces, tables and their regions.
pub struct TableDirectory {
    engine: Arc<Engine>,
    /// Opens regions, telling cluster mode's registry first.
    opener: open::RegionOpener,
    catalog: Catalog,
    /// Serialises catalog changes (creates, drops, enables, splits, merges); reads never
    /// take it.
    admin: Mutex<()>,
    namespaces: RwLock<BTreeMap<String, NamespaceConfig>>,
    tables: RwLock<BTreeMap<TableName, Arc<TableState>>>,
    next_region_id: AtomicU64,
    clock: Arc<dyn Clock>,
    /// Counts publications of table states and unsealed regions; see `wait_for_change`.
    /// Read without a lock on every write (`change_count`); changed only under
    /// `change_lock`, which waiters hold while they check it, so no wake-up is missed.
    changes: AtomicU64,
    change_lock: Mutex<()>,
    changed: Condvar,
    /// Cluster mode: asked before every table lookup (so before every read and write).
    serving_gate: RwLock<Option<Arc<dyn ServingGate>>>,
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
        let namespaces = with_builtin_namespaces(contents.namespaces);
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
            namespaces: RwLock::new(namespaces),
            tables: RwLock::new(tables),
            next_region_id: AtomicU64::new(next_region_id),
            clock,
            changes: AtomicU64::new(0),
            change_lock: Mutex::new(()),
            changed: Condvar::new(),
            serving_gate: RwLock::new(None),
        })
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
            self.sync_with_catalog()?;
            if let Some(state) = published() {
                return Ok(state);
            }
        }
        Err(ServiceError::TableNotFound(name.to_string()))
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
                self.sync_with_catalog()?;
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
        self.note_change();
    }

    /// The number of table changes published so far; pass it to `wait_for_change`.
    pub(crate) fn change_count(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// Waits until a table change is published after `seen` (see `change_count`), or until
    /// `deadline` on the directory's clock. Answers whether one was.
    pub(crate) fn wait_for_change(&self, seen: u64, deadline: Instant) -> bool {
        let mut lock = self.change_lock.lock();
        while self.changes.load(Ordering::Acquire) == seen {
            let Some(left) = deadline.checked_duration_since(self.clock.now()) else {
                return false;
            };
            // A bounded wait also covers a clock that is not the system's (tests).
            let step = left.min(std::time::Duration::from_millis(100));
            self.changed.wait_for(&mut lock, step);
        }
        true
    }

    fn allocate_region_id(&self) -> u64 {
        self.next_region_id.fetch_add(1, Ordering::AcqRel)
    }

    /// Catalog entries with fresh ids for new regions covering `ranges`.
    fn new_region_entries(&self, ranges: Vec<(Bytes, Bytes)>) -> Vec<RegionEntry> {
        ranges
            .into_iter()
            .map(|(start_key, end_key)| RegionEntry {
                id: self.allocate_region_id(),
                start_key,
                end_key,
            })
            .collect()
    }

    /// Publishes `state` as the table's current state.
    fn publish(&self, state: TableState) {
        self.tables
            .write()
            .insert(state.name.clone(), Arc::new(state));
        self.note_change();
    }

    fn unpublish(&self, name: &TableName) {
        self.tables.write().remove(name);
        self.note_change();
    }

    /// Wakes writers waiting for a table change (also after regions were unsealed).
    fn note_change(&self) {
        let _lock = self.change_lock.lock();
        self.changes.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_all();
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

/// `namespaces` with the two every cluster has, which the catalog does not list.
fn with_builtin_namespaces(
    mut namespaces: BTreeMap<String, NamespaceConfig>,
) -> BTreeMap<String, NamespaceConfig> {
    for builtin in [DEFAULT_NAMESPACE, SYSTEM_NAMESPACE] {
        namespaces.entry(builtin.to_string()).or_default();
    }
    namespaces
}

#[cfg(test)]
mod release_tests;
#[cfg(test)]
mod tests;
