//! The archive pass: files only a snapshot still holds go to the archive tier.
//!
//! While a snapshot file's live original exists, the two names share one file, and moving
//! it would only double its bytes. Once the original is gone (compacted away, moved by
//! the mover, or its table dropped), the snapshot alone holds it: if its volume is not of
//! the storage type the placement policy names for the archive category, it is copied to
//! a volume of that type (paced by the mover's rate limit), the descriptor is rewritten to
//! name the copy, and only then the old link is removed. A crash leaves either the old
//! descriptor (the copy is a leftover) or the new one (the old link is), and
//! `collect_snapshot_leftovers` removes the leftover at the next open.

use std::path::Path;

use super::{Engine, MoveReport};
use crate::error::Result;
use crate::fs::{FileCategory, StorageType};
use crate::snapshot::SnapshotDescriptor;
use crate::store::copy_file;

impl Engine {
    /// Moves every snapshot file that only its snapshot holds to the archive tier. Blocking;
    /// run it from a background thread (the server runs it after each mover pass).
    pub fn archive_snapshot_files(&self) -> Result<MoveReport> {
        let mut report = MoveReport::default();
        let Some(archive) = self.volumes.preferred_type(FileCategory::Archive, None) else {
            return Ok(report); // the placement policy does not place by storage type
        };
        let _lock = self.snapshot_lock.lock();
        for name in self.snapshot_names()? {
            let mut d = self.read_descriptor(&name)?;
            let replaced = self.archive_files_of(&mut d, archive, &mut report);
            if replaced.is_empty() {
                continue;
            }
            self.write_descriptor(&d)?;
            for (volume, path) in replaced {
                let old = self.volumes.resolve(&volume, Path::new(&path))?;
                if let Err(e) = self.volumes.fs().remove(&old) {
                    tracing::warn!(path = %old.display(), error = %e, "could not remove an archived snapshot file's old link");
                }
            }
        }
        Ok(report)
    }

    /// Copies the files of `d` that belong in the archive tier and points `d` at the
    /// copies; returns the (volume, path) of the links the copies replace.
    fn archive_files_of(
        &self,
        d: &mut SnapshotDescriptor,
        archive: StorageType,
        report: &mut MoveReport,
    ) -> Vec<(String, String)> {
        let mut replaced = Vec::new();
        let files = d
            .regions
            .iter_mut()
            .flat_map(|r| r.stores.iter_mut())
            .flat_map(|s| s.files.iter_mut());
        for file in files {
            let entry = &mut file.entry;
            if self.volumes.type_of(&entry.volume) == Some(archive)
                || self.origin_exists(&file.origin_volume, &file.origin_path)
            {
                continue;
            }
            match self.copy_to_type(&entry.volume, &entry.relative_path, archive) {
                Ok(Some((volume, bytes))) => {
                    replaced.push((
                        std::mem::replace(&mut entry.volume, volume),
                        entry.relative_path.clone(),
                    ));
                    report.files += 1;
                    report.bytes += bytes;
                }
                Ok(None) => {}
                Err(e) => {
                    report.failed += 1;
                    tracing::warn!(snapshot = d.name, path = entry.relative_path, error = %e, "could not archive a snapshot file");
                }
            }
        }
        replaced
    }

    /// True while the live file a snapshot linked still exists (or cannot be checked: then
    /// the file is left where it is).
    fn origin_exists(&self, volume: &str, path: &str) -> bool {
        match self.volumes.resolve(volume, Path::new(path)) {
            Ok(full) => self.volumes.fs().exists(&full).unwrap_or(true),
            Err(_) => false, // the volume is no longer configured: nothing live is there
        }
    }

    /// Copies `relative` from `volume` to the same relative path on a volume of `target`;
    /// returns that volume and the bytes copied, `None` when no volume has the type.
    fn copy_to_type(
        &self,
        volume: &str,
        relative: &str,
        target: StorageType,
    ) -> Result<Option<(String, u64)>> {
        let relative = Path::new(relative);
        let Some(place) = self.volumes.place_on_type(target, relative)? else {
            return Ok(None);
        };
        let from = self.volumes.resolve(volume, relative)?;
        let fs = self.volumes.fs().as_ref();
        match copy_file(fs, &from, &place.path, &self.mover_limiter) {
            Ok(bytes) => Ok(Some((place.volume, bytes))),
            Err(e) => {
                if let Err(cleanup) = fs.remove(&place.path) {
                    tracing::warn!(path = %place.path.display(), error = %cleanup, "could not remove a failed copy");
                }
                Err(e)
            }
        }
    }
}
