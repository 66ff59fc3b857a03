//! Regions made from a snapshot (HBase's `clone_snapshot` and `restore_snapshot`): each new
//! store gets hard links to the snapshot's files in its own directory, under file numbers
//! of its own, and a manifest listing them. No data is copied, and the clone owns its
//! files outright: deleting the snapshot later takes nothing from it.

use std::collections::HashSet;
use std::path::Path;

use super::Engine;
use crate::error::{Error, Result};
use crate::manifest::ManifestState;
use crate::options::FamilyOptions;

impl Engine {
    /// Writes the stores of a new region `id` (not opened) holding what region `index` of
    /// snapshot `name` held, for each of `families` (a family the snapshot does not have
    /// starts empty). Leftovers of an earlier attempt under the same id are removed first;
    /// each store's manifest is durable when this returns.
    pub fn create_region_from_snapshot(
        &self,
        id: u64,
        families: &[FamilyOptions],
        name: &str,
        index: usize,
    ) -> Result<()> {
        let _lock = self.snapshot_lock.lock();
        let snapshot = self.read_descriptor(name)?;
        let region = snapshot.regions.get(index).ok_or_else(|| {
            Error::InvalidArgument(format!("snapshot {name} has no region {index}"))
        })?;
        self.remove_region_dirs(id)?;
        let fs = self.volumes.fs();
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
            let mut dirs = HashSet::new();
            for file in files {
                let number = manifest.allocate_file_number();
                let relative = store.table_path(number);
                let volume = &file.entry.volume;
                let from = self
                    .volumes
                    .resolve(volume, Path::new(&file.entry.relative_path))?;
                let to = self.volumes.resolve(volume, &relative)?;
                if let Some(parent) = to.parent() {
                    fs.create_dir_all(parent)?;
                    dirs.insert(parent.to_path_buf());
                }
                fs.hard_link(&from, &to)?;
                let mut entry = file.entry.clone();
                entry.file_number = number;
                entry.relative_path = relative.to_string_lossy().into_owned();
                state.flushed_seq = state.flushed_seq.max(entry.max_seq);
                state.files.push(entry);
            }
            for dir in dirs {
                fs.sync_dir(&dir)?;
            }
            state.next_file_number = manifest.allocate_file_number();
            manifest.commit(state)?;
        }
        Ok(())
    }
}
