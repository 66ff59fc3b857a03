//! Splits and merges at the engine level: new regions whose stores *reference* the files of
//! sealed source regions (each restricted to a row range), and the retirement of the
//! sources, whose directories are deleted once no open region references them.
//!
//! Parent files are tracked by scanning the live regions' current file sets: a retired
//! region's directory goes when no open region, and no region closed for a reopen, lists a
//! reference into it. Daughters drop their references at their first compaction (a store
//! with references always compacts all its files); a region whose last reference went
//! tells the engine (`RegionHost::references_dropped`), which then runs this check.
//! Readers that still hold a parent's file keep reading it: removal only unlinks the name.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use super::region_set::remove_region_dirs;
use super::Engine;
use crate::error::Result;
use crate::manifest::{ManifestState, RowRange};
use crate::options::FamilyOptions;
use crate::region::Region;

impl Engine {
    /// Writes the stores of a new region `id` (not opened) whose files are references to
    /// the files of each sealed `(region, rows)` source restricted to `rows`. Leftovers of
    /// an earlier attempt under the same id are removed first. Each store's manifest is
    /// durable when this returns; the region exists for readers only once opened.
    pub fn create_reference_region(
        &self,
        id: u64,
        families: &[FamilyOptions],
        sources: &[(Arc<Region>, RowRange)],
    ) -> Result<()> {
        self.remove_region_dirs(id)?;
        for family in families {
            let mut manifest = self
                .context
                .stores
                .for_store(id, &family.name)
                .open_manifest()?;
            let mut state = ManifestState::empty();
            for (region, rows) in sources {
                let store = region.store(&family.name)?;
                state.flushed_seq = state.flushed_seq.max(store.flushed_seq());
                for mut entry in store.reference_entries(rows)? {
                    entry.file_number = manifest.allocate_file_number();
                    state.files.push(entry);
                }
            }
            state.next_file_number = manifest.allocate_file_number();
            manifest.commit(state)?;
        }
        Ok(())
    }

    /// Deletes a region's directories on every volume (a split or merge that did not
    /// commit, or a region nothing refers to).
    pub fn remove_region_dirs(&self, id: u64) -> Result<()> {
        remove_region_dirs(&self.volumes, id)
    }

    /// Takes a region out of service for good after its split or merge committed. Its files
    /// stay until no open region references them ([`Engine::collect_retired`]).
    pub fn retire_region(&self, id: u64) {
        self.host.regions.retire(id);
    }

    /// Retires every region directory on disk that is not among `live`, and forgets
    /// recovered WAL edits of regions not among `live`: after a restart, the leftovers of
    /// splits and merges (committed or not). Call once every live region is open.
    pub fn retire_all_except(&self, live: &HashSet<u64>) -> Result<()> {
        let on_disk = self.region_ids_on_disk()?;
        self.host.regions.retire_all_except(live, &on_disk);
        self.collect_retired()
    }

    /// Asks the background worker to compact a region (after a split, so that the new
    /// regions rewrite their references into files of their own).
    pub fn request_compaction(&self, id: u64) {
        self.host.request_compaction(id);
    }

    /// Deletes the directories of retired regions that no open region references.
    pub fn collect_retired(&self) -> Result<()> {
        self.host.collect_retired()
    }

    /// The SSTables that no current manifest of this engine lists any more but that a
    /// reader still holds (a scan that began before a compaction), sorted. On shared
    /// storage the cluster's garbage collector must leave them alone until they go.
    pub fn held_obsolete_files(&self) -> Vec<std::path::PathBuf> {
        self.context.stores.held().paths()
    }

    /// Ids of the retired regions whose files are still referenced.
    pub fn retired_regions(&self) -> Vec<u64> {
        self.host.regions.retired_ids()
    }

    /// Every region id with a directory on some volume.
    pub fn region_ids_on_disk(&self) -> Result<Vec<u64>> {
        let mut ids = HashSet::new();
        for volume in self.volumes.list() {
            let dir = self.volumes.resolve(&volume.name, Path::new("regions"))?;
            if !self.volumes.fs().exists(&dir)? {
                continue;
            }
            for name in self.volumes.fs().list(&dir)? {
                if let Ok(id) = u64::from_str_radix(&name, 16) {
                    ids.insert(id);
                }
            }
        }
        let mut ids: Vec<u64> = ids.into_iter().collect();
        ids.sort_unstable();
        Ok(ids)
    }
}
