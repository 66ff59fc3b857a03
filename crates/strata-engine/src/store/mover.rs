//! Moving a store's files between storage types: when a family's storage policy changed,
//! a file aged past the age rule (Bigtable's age-based tiering), or grew past the size
//! rule (large compaction outputs to HDD). The age rule wins over the size rule, which
//! wins over the policy.
//!
//! A move is a copy to a volume of the target type under a new file number, then a
//! manifest commit that swaps the entry, then the old file goes once its last reader lets
//! go, exactly as a compaction's inputs do. Reads and writes never wait: the copy is paced
//! by a rate limiter and holds only the compaction lock (so no compaction replaces the file
//! meanwhile), and readers keep whichever view they began with. A crash at any point
//! leaves either the old entry (the copy is unreferenced and removed at the next open) or
//! the new one (the old file is unreferenced and removed at the next open).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::file::StoreFile;
use super::Store;
use crate::error::Result;
use crate::fs::{FileCategory, FileSystem, StorageType};
use crate::manifest::FileOrigin;
use crate::table::{CachePolicy, TableReader};
use crate::util::rate_limiter::RateLimiter;

/// Bytes copied per read and write while moving a file.
const COPY_CHUNK: usize = 1 << 20;

/// Which files belong on another storage type, beyond what the storage policies say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MoveRules {
    /// Files older than this (by creation time) go to that storage type.
    pub age: Option<(Duration, StorageType)>,
    /// Files at least this many bytes (large compaction outputs) go to that storage type.
    pub size: Option<(u64, StorageType)>,
}

impl Store {
    /// This store's files that should now live on another storage type, with that type.
    /// References (files of another region) are never moved here.
    pub fn misplaced_files(&self, rules: &MoveRules, now_ms: i64) -> Vec<(u64, StorageType)> {
        let family = self.family();
        let volumes = &self.ctx.volumes;
        self.view()
            .files
            .iter()
            .filter(|f| !f.is_reference())
            .filter_map(|f| {
                let current = volumes.type_of(&f.entry.volume)?;
                let age_ms = now_ms.saturating_sub(f.entry.created_at_ms);
                let aged = rules
                    .age
                    .filter(|(age, _)| i128::from(age_ms) >= age.as_millis() as i128)
                    .map(|(_, storage_type)| storage_type);
                let category = match f.entry.origin {
                    FileOrigin::Flush => FileCategory::Flush,
                    FileOrigin::Compaction => FileCategory::Compaction,
                };
                let large = rules
                    .size
                    .filter(|&(min, _)| f.entry.size >= min)
                    .map(|(_, storage_type)| storage_type);
                let target = aged
                    .or(large)
                    .or_else(|| volumes.preferred_type(category, family.storage_policy))?;
                (target != current).then_some((f.entry.file_number, target))
            })
            .collect()
    }

    /// Moves file `file_number` to a volume of `target`; returns the bytes copied (0 when
    /// there was nothing to do: the file is gone, or no volume has that type).
    pub fn move_file(
        &self,
        file_number: u64,
        target: StorageType,
        limiter: &RateLimiter,
    ) -> Result<u64> {
        let _guard = self.compaction_lock.lock();
        if self.is_frozen() {
            return Ok(0);
        }
        let view = self.view();
        let Some(source) = view
            .files
            .iter()
            .find(|f| f.entry.file_number == file_number && !f.is_reference())
            .cloned()
        else {
            return Ok(0); // compacted away meanwhile
        };
        let number = self.manifest.lock().allocate_file_number();
        let relative = self.ctx.table_path(number);
        let Some(placement) = self.ctx.volumes.place_on_type(target, &relative)? else {
            return Ok(0);
        };
        let fs = Arc::clone(self.ctx.volumes.fs());
        let from = self
            .ctx
            .volumes
            .resolve(&source.entry.volume, Path::new(&source.entry.relative_path))?;
        let copied = copy_file(fs.as_ref(), &from, &placement.path, limiter).and_then(|bytes| {
            let reader = TableReader::open(
                fs.open_read(&placement.path)?,
                placement.path.clone(),
                Some(Arc::clone(&self.ctx.cache)),
                CachePolicy::from_family(&self.family()),
            )?;
            let mut entry = source.entry.clone();
            entry.file_number = number;
            entry.volume = placement.volume.clone();
            entry.relative_path = relative.to_string_lossy().into_owned();
            let moved = StoreFile::new(
                entry,
                reader,
                placement.path.clone(),
                Arc::clone(&fs),
                &self.ctx.held,
            );
            Ok((bytes, moved))
        });
        let (bytes, moved) = match copied {
            Ok(done) => done,
            Err(e) => {
                if let Err(cleanup) = fs.remove(&placement.path) {
                    tracing::warn!(path = %placement.path.display(), error = %cleanup, "could not remove a failed copy");
                }
                return Err(e);
            }
        };
        self.install_moved(&source, moved)?;
        tracing::info!(from = %from.display(), to = %placement.path.display(), bytes, "moved a store file");
        Ok(bytes)
    }

    /// Swaps `old` for `new` in the manifest, then in the view.
    fn install_moved(&self, old: &Arc<StoreFile>, new: Arc<StoreFile>) -> Result<()> {
        let mut manifest = self.manifest.lock();
        let mut state = manifest.state().clone();
        let Some(slot) = state
            .files
            .iter_mut()
            .find(|e| e.file_number == old.entry.file_number)
        else {
            new.mark_obsolete();
            return Ok(());
        };
        *slot = new.entry.clone();
        if let Err(e) = manifest.commit(state) {
            // As after a failed flush: the copy goes only if the commit surely did not land.
            if !manifest.may_hold_uncommitted_state() {
                new.mark_obsolete();
            }
            return Err(e);
        }
        drop(manifest);
        let mut view = self.view.write();
        let mut next = view.successor();
        for file in next.files.iter_mut() {
            if file.entry.file_number == old.entry.file_number {
                *file = Arc::clone(&new);
            }
        }
        *view = Arc::new(next);
        old.mark_obsolete();
        Ok(())
    }
}

/// Copies `from` to a new file `to`, paced by `limiter`, and makes it durable.
pub(crate) fn copy_file(
    fs: &dyn FileSystem,
    from: &Path,
    to: &Path,
    limiter: &RateLimiter,
) -> Result<u64> {
    let source = fs.open_read(from)?;
    let mut dest = fs.create(to)?;
    let len = source.len();
    let mut offset = 0u64;
    while offset < len {
        let n = usize::try_from(len - offset).map_or(COPY_CHUNK, |left| left.min(COPY_CHUNK));
        limiter.acquire(n as u64);
        dest.append(&source.read_at(offset, n)?)?;
        offset += n as u64;
    }
    dest.sync()?;
    drop(dest);
    if let Some(dir) = to.parent() {
        fs.sync_dir(dir)?;
    }
    Ok(len)
}
