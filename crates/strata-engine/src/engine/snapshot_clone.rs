//! Regions made from a snapshot (HBase's `clone_snapshot` and `restore_snapshot`): each new
//! store gets hard links to the snapshot's files in its own directory, under file numbers
//! of its own, and a manifest listing them. No data is copied, and the clone owns its
//! files outright: deleting the snapshot later takes nothing from it.

use std::path::Path;

use super::snapshots::Links;
use super::Engine;
use crate::error::{Error, Result};
use crate::manifest::ManifestState;
use crate::options::FamilyOptions;
use crate::snapshot::SnapshotRegion;

impl Engine {
    /// Writes the stores of new regions (not opened), `ids[i]` holding what region `i` of
    /// snapshot `name` held, for each of `families` (a family the snapshot does not have
    /// starts empty). Leftovers of an earlier attempt under the same ids are removed
    /// first; each store's manifest is durable when this returns. The descriptor is read
    /// once, under the snapshot lock, so no archive move changes it meanwhile.
    pub fn create_regions_from_snapshot(
        &self,
        name: &str,
        families: &[FamilyOptions],
        ids: &[u64],
    ) -> Result<()> {
        let _lock = self.snapshot_lock.lock();
        let snapshot = self.read_descriptor(name)?;
        if snapshot.regions.len() != ids.len() {
            return Err(Error::InvalidArgument(format!(
                "snapshot {name} has {} regions, not {}",
                snapshot.regions.len(),
                ids.len()
            )));
        }
        for (region, &id) in snapshot.regions.iter().zip(ids) {
            self.create_region_from(region, id, families)?;
        }
        Ok(())
    }

    fn create_region_from(
        &self,
        region: &SnapshotRegion,
        id: u64,
        families: &[FamilyOptions],
    ) -> Result<()> {
        self.remove_region_dirs(id)?;
        for family in families {
            let store = self.context.stores.for_store(id, &family.name);
            let mut manifest = store.open_manifest()?;
            let mut state = ManifestState::empty();
            let files = region
                .stores
                .iter()
                .find(|s| s.family[..] == family.name[..])
                .map(|s| s.files.as_slice())
                .unwrap_or_default();
            let mut links = Links::default();
            for file in files {
                let number = manifest.allocate_file_number();
                let relative = store.table_path(number);
                let volume = &file.entry.volume;
                let from = self
                    .volumes
                    .resolve(volume, Path::new(&file.entry.relative_path))?;
                links.link(self.fs(), &from, &self.volumes.resolve(volume, &relative)?)?;
                let mut entry = file.entry.clone();
                entry.file_number = number;
                entry.relative_path = relative.to_string_lossy().into_owned();
                state.flushed_seq = state.flushed_seq.max(entry.max_seq);
                state.files.push(entry);
            }
            links.sync(self.fs())?;
            state.next_file_number = manifest.allocate_file_number();
            manifest.commit(state)?;
        }
        Ok(())
    }
}
