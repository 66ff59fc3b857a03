//! The engine's side of table snapshots (`snapshot/`): taking one by hard links, listing,
//! deleting, and the leftovers a crash can leave. Cloning is in `snapshot_clone.rs`, the
//! archive pass in `snapshot_archive.rs`.
//!
//! Every operation holds the engine's snapshot lock, so a take, a delete, a clone and the
//! archive pass never see each other's half-done work.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::Engine;
use crate::error::{Error, Result};
use crate::manifest::RowRange;
use crate::snapshot::{
    check_name, decode_descriptor, encode_descriptor, file_path, snapshot_dir, SnapshotDescriptor,
    SnapshotFile, SnapshotRegion, SnapshotStore, SnapshotSummary, DESCRIPTOR_FILE, SNAPSHOTS_DIR,
};

impl Engine {
    /// Snapshots the regions `regions` (id and rows, in row order) of a table whose schema
    /// its owner encoded as `table`: each region is flushed and its files hard-linked under
    /// `snapshots/<name>/`. Copies no data. Fails if the name is taken or a region is not
    /// open; a failed take leaves nothing behind.
    pub fn take_snapshot(
        &self,
        name: &str,
        table: Vec<u8>,
        regions: &[(u64, RowRange)],
    ) -> Result<SnapshotDescriptor> {
        check_name(name)?;
        self.refuse_snapshots_on_shared_storage()?;
        let _lock = self.snapshot_lock.lock();
        if self.fs().exists(&self.descriptor_path(name)?)? {
            return Err(Error::InvalidArgument(format!(
                "snapshot {name} already exists"
            )));
        }
        self.remove_snapshot_dirs(name)?;
        let result = self.link_regions(name, regions).and_then(|linked| {
            let descriptor = SnapshotDescriptor {
                name: name.to_string(),
                table,
                created_at_ms: self.options.clock.now_millis(),
                regions: linked,
            };
            self.write_descriptor(&descriptor)?;
            Ok(descriptor)
        });
        if result.is_err() {
            if let Err(e) = self.remove_snapshot_dirs(name) {
                tracing::warn!(snapshot = name, error = %e, "could not remove a failed snapshot's links");
            }
        }
        result
    }

    /// Every snapshot, by name. A damaged descriptor is logged and left out.
    pub fn list_snapshots(&self) -> Result<Vec<SnapshotSummary>> {
        let _lock = self.snapshot_lock.lock();
        let mut out = Vec::new();
        for name in self.snapshot_names()? {
            match self.read_descriptor(&name) {
                Ok(d) => out.push(SnapshotSummary::from(&d)),
                Err(e) => tracing::warn!(snapshot = name, error = %e, "unreadable snapshot"),
            }
        }
        Ok(out)
    }

    /// One snapshot's descriptor; `NotFound` if there is none by that name.
    pub fn read_snapshot(&self, name: &str) -> Result<SnapshotDescriptor> {
        check_name(name)?;
        let _lock = self.snapshot_lock.lock();
        self.read_descriptor(name)
    }

    /// Deletes a snapshot: its descriptor first (then it is gone, whatever happens next),
    /// then its links. Live stores and clones keep their own names for the same files.
    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        check_name(name)?;
        let _lock = self.snapshot_lock.lock();
        let path = self.descriptor_path(name)?;
        if !self.fs().exists(&path)? {
            return Err(not_found(name));
        }
        self.fs().remove(&path)?;
        if let Some(dir) = path.parent() {
            self.fs().sync_dir(dir)?;
        }
        self.remove_snapshot_dirs(name)
    }

    /// Removes what a crash left: directories of snapshots without a descriptor (a take or
    /// delete that did not finish), and in the others, files their descriptor does not
    /// name (a half-done archive move). Runs at open.
    pub(crate) fn collect_snapshot_leftovers(&self) -> Result<()> {
        let _lock = self.snapshot_lock.lock();
        let described: HashSet<String> = self.snapshot_names()?.into_iter().collect();
        for volume in self.volumes.list() {
            let root = self
                .volumes
                .resolve(&volume.name, Path::new(SNAPSHOTS_DIR))?;
            for name in self.fs().list(&root)? {
                if !described.contains(&name) {
                    tracing::info!(
                        snapshot = name,
                        volume = volume.name,
                        "removing a snapshot's leftover directory"
                    );
                    self.fs().remove_dir_all(&root.join(&name))?;
                    continue;
                }
                let d = self.read_descriptor(&name)?;
                let keep: HashSet<PathBuf> = d
                    .files()
                    .filter(|f| f.entry.volume == volume.name)
                    .map(|f| PathBuf::from(&f.entry.relative_path))
                    .collect();
                self.remove_unnamed_links(&volume.name, &name, &keep)?;
            }
        }
        Ok(())
    }

    fn refuse_snapshots_on_shared_storage(&self) -> Result<()> {
        if self.options.manifest_pointers.is_some() {
            return Err(Error::InvalidArgument(
                "snapshots are not available in cluster mode yet: they need hard links on a \
                 local volume"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Flushes each region and links its files; returns the snapshot's regions.
    fn link_regions(&self, name: &str, regions: &[(u64, RowRange)]) -> Result<Vec<SnapshotRegion>> {
        let mut linked = Vec::with_capacity(regions.len());
        let mut links = Links::default();
        for (id, rows) in regions {
            let region = self
                .region(*id)
                .ok_or_else(|| Error::NotFound(format!("region {id} is not open")))?;
            let mut stores = Vec::new();
            for (family, files) in region.flushed_file_sets()? {
                let mut held = Vec::with_capacity(files.len());
                // Views list files newest first; manifests and descriptors oldest first.
                for file in files.iter().rev() {
                    let entry = &file.entry;
                    let to = file_path(name, *id, &family, entry.file_number);
                    let from = self
                        .volumes
                        .resolve(&entry.volume, Path::new(&entry.relative_path))?;
                    links.link(self.fs(), &from, &self.volumes.resolve(&entry.volume, &to)?)?;
                    let mut own = entry.clone();
                    own.relative_path = to.to_string_lossy().into_owned();
                    held.push(SnapshotFile {
                        entry: own,
                        origin_volume: entry.volume.clone(),
                        origin_path: entry.relative_path.clone(),
                    });
                }
                stores.push(SnapshotStore {
                    family,
                    files: held,
                });
            }
            linked.push(SnapshotRegion {
                id: *id,
                rows: rows.clone(),
                stores,
            });
        }
        // The links must survive a power cut before the descriptor names them.
        links.sync(self.fs())?;
        Ok(linked)
    }

    /// Writes a descriptor whole under a temporary name and renames it into place, so a
    /// reader finds the old one or the new one, complete.
    pub(super) fn write_descriptor(&self, d: &SnapshotDescriptor) -> Result<()> {
        let bytes = encode_descriptor(d)?;
        let path = self.descriptor_path(&d.name)?;
        if let Some(dir) = path.parent() {
            self.fs().create_dir_all(dir)?;
        }
        let tmp = path.with_extension("tmp");
        let mut file = self.fs().create(&tmp)?;
        file.append(&bytes)?;
        file.sync()?;
        drop(file);
        self.fs().rename(&tmp, &path)?;
        match path.parent() {
            Some(dir) => self.fs().sync_dir(dir),
            None => Ok(()),
        }
    }

    pub(super) fn read_descriptor(&self, name: &str) -> Result<SnapshotDescriptor> {
        let path = self.descriptor_path(name)?;
        if !self.fs().exists(&path)? {
            return Err(not_found(name));
        }
        let d = decode_descriptor(&path, &self.fs().read_all(&path)?)?;
        if d.name != name {
            return Err(Error::corruption(
                &path,
                0,
                format!("names snapshot {:?}", d.name),
            ));
        }
        Ok(d)
    }

    /// `snapshots/<name>/descriptor` on the primary volume.
    fn descriptor_path(&self, name: &str) -> Result<PathBuf> {
        self.on_primary(&snapshot_dir(name).join(DESCRIPTOR_FILE))
    }

    fn on_primary(&self, relative: &Path) -> Result<PathBuf> {
        let primary = self
            .volumes
            .list()
            .first()
            .ok_or_else(|| Error::InvalidArgument("no volume is configured".into()))?;
        self.volumes.resolve(&primary.name, relative)
    }

    /// Names of the snapshots that have a descriptor.
    pub(super) fn snapshot_names(&self) -> Result<Vec<String>> {
        let root = self.on_primary(Path::new(SNAPSHOTS_DIR))?;
        let mut names = Vec::new();
        for name in self.fs().list(&root)? {
            if check_name(&name).is_ok()
                && self.fs().exists(&root.join(&name).join(DESCRIPTOR_FILE))?
            {
                names.push(name);
            }
        }
        Ok(names)
    }

    /// Removes `snapshots/<name>` on every volume.
    fn remove_snapshot_dirs(&self, name: &str) -> Result<()> {
        for volume in self.volumes.list() {
            let dir = self.volumes.resolve(&volume.name, &snapshot_dir(name))?;
            self.fs().remove_dir_all(&dir)?;
        }
        Ok(())
    }

    /// In `snapshots/<name>/<region>/<family>/` on one volume, removes the files not in
    /// `keep` (paths relative to the volume), and a leftover temporary descriptor.
    fn remove_unnamed_links(
        &self,
        volume: &str,
        name: &str,
        keep: &HashSet<PathBuf>,
    ) -> Result<()> {
        let dir = snapshot_dir(name);
        let fs = self.fs();
        for region in fs.list(&self.volumes.resolve(volume, &dir)?)? {
            let relative = dir.join(&region);
            if region == DESCRIPTOR_FILE {
                continue;
            }
            if region.ends_with(".tmp") {
                fs.remove(&self.volumes.resolve(volume, &relative)?)?;
                continue;
            }
            for family in fs.list(&self.volumes.resolve(volume, &relative)?)? {
                let family_dir = relative.join(family);
                for file in fs.list(&self.volumes.resolve(volume, &family_dir)?)? {
                    let path = family_dir.join(file);
                    if !keep.contains(&path) {
                        tracing::info!(path = %path.display(), volume, "removing a file no snapshot names");
                        fs.remove(&self.volumes.resolve(volume, &path)?)?;
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn fs(&self) -> &dyn crate::fs::FileSystem {
        self.volumes.fs().as_ref()
    }
}

/// Hard links being made, and the directories that must be synced before anything names
/// them (a snapshot's descriptor, a clone's manifests).
#[derive(Default)]
pub(super) struct Links {
    dirs: HashSet<PathBuf>,
}

impl Links {
    /// Gives `from` the new name `to`, creating its directory.
    pub(super) fn link(
        &mut self,
        fs: &dyn crate::fs::FileSystem,
        from: &Path,
        to: &Path,
    ) -> Result<()> {
        if let Some(parent) = to.parent() {
            fs.create_dir_all(parent)?;
            self.dirs.insert(parent.to_path_buf());
        }
        fs.hard_link(from, to)
    }

    /// Makes every new name durable.
    pub(super) fn sync(self, fs: &dyn crate::fs::FileSystem) -> Result<()> {
        self.dirs.iter().try_for_each(|dir| fs.sync_dir(dir))
    }
}

fn not_found(name: &str) -> Error {
    Error::NotFound(format!("snapshot {name} does not exist"))
}
