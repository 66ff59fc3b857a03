//! Flushing a store: the memstore is set aside as a read-only snapshot (while writes go to a
//! fresh memstore), written out as an SSTable, made live through the manifest, and dropped.

use std::path::Path;
use std::sync::Arc;

use super::file::StoreFile;
use super::Store;
use crate::error::Result;
use crate::fs::{FileCategory, TierSettings};
use crate::iter::KvIter;
use crate::manifest::{FileOrigin, StoreFileEntry};
use crate::memstore::Memstore;
use crate::table::{CachePolicy, TableBuilder, TableMeta, TableOptions, TableReader};

impl Store {
    /// Sets the memstore aside for flushing. The caller holds the region's update lock in
    /// write mode, so no write is half inserted. A snapshot left by a failed flush is kept
    /// (and retried) instead of being replaced. Returns true if there is something to flush.
    pub fn prepare_flush(&self) -> bool {
        let mut view = self.view.write();
        if view.snapshot.is_some() {
            return true;
        }
        if view.memstore.is_empty() {
            return false;
        }
        let mut next = view.successor();
        next.snapshot = Some(std::mem::replace(&mut next.memstore, Memstore::new()));
        *view = Arc::new(next);
        true
    }

    /// Writes the snapshot to an SSTable and makes it live. Returns the memstore bytes freed.
    /// `before_write` runs first with the snapshot's highest seq, once the snapshot to write
    /// is known (the region makes the WAL durable there, so every edit of the snapshot can be
    /// replayed in full, and waits for every write in it to be resolved).
    pub fn flush_snapshot(
        &self,
        now_ms: i64,
        before_write: &dyn Fn(u64) -> Result<()>,
    ) -> Result<u64> {
        let _guard = self.flush_lock.lock();
        let Some(snapshot) = self.view().snapshot.clone() else {
            return Ok(0);
        };
        if !snapshot.is_empty() {
            before_write(snapshot.max_seq())?;
        }
        // Writes whose WAL batch failed were taken back out meanwhile, maybe all of them.
        if !snapshot.is_empty() {
            let file = self.write_table(&snapshot, now_ms)?;
            self.install_flushed(file, snapshot.max_seq())?;
        }
        let mut view = self.view.write();
        let mut next = view.successor();
        next.snapshot = None;
        *view = Arc::new(next);
        Ok(snapshot.size())
    }

    fn write_table(&self, snapshot: &Arc<Memstore>, now_ms: i64) -> Result<Arc<StoreFile>> {
        let mut iter = snapshot.iter();
        iter.seek_to_first()?;
        self.build_table(&mut iter, FileOrigin::Flush, now_ms, &mut |_| true, None)?
            .ok_or_else(|| crate::Error::InvalidArgument("flush of an empty memstore".into()))
    }

    /// Writes the entries of `iter` that `keep` accepts into a new SSTable on the volume the
    /// placement policy picks for `origin`, and opens it. `None` if nothing was kept.
    pub(super) fn build_table(
        &self,
        iter: &mut dyn KvIter,
        origin: FileOrigin,
        now_ms: i64,
        keep: &mut dyn FnMut(&[u8]) -> bool,
        throttle: Option<&dyn Fn(u64)>,
    ) -> Result<Option<Arc<StoreFile>>> {
        let family = self.family();
        let file_number = self.manifest.lock().allocate_file_number();
        let relative = self.ctx.table_path(file_number);
        let category = match origin {
            FileOrigin::Flush => FileCategory::Flush,
            FileOrigin::Compaction => FileCategory::Compaction,
        };
        let placement = self
            .ctx
            .volumes
            .place_for(category, family.storage_policy, &relative)?;
        let fs = Arc::clone(self.ctx.volumes.fs());
        let writer = fs.create(&placement.path)?;
        let build = || -> Result<Option<Arc<StoreFile>>> {
            let mut builder = TableBuilder::new(
                writer,
                placement.path.clone(),
                table_options(
                    &family,
                    self.ctx.volumes.tier_settings(placement.storage_type),
                ),
            );
            let mut written = 0u64;
            while iter.valid() {
                if keep(iter.key()) {
                    builder.add(iter.key(), iter.value())?;
                    written += 1;
                    if let Some(throttle) = throttle {
                        throttle((iter.key().len() + iter.value().len()) as u64);
                    }
                }
                iter.next()?;
            }
            if written == 0 {
                drop(builder);
                fs.remove(&placement.path)?;
                return Ok(None);
            }
            let meta = builder.finish()?;
            let entry = file_entry(
                file_number,
                &placement.volume,
                &relative,
                &meta,
                &fs,
                &placement.path,
                origin,
                now_ms,
            )?;
            let reader = TableReader::open(
                fs.open_read(&placement.path)?,
                placement.path.clone(),
                Some(Arc::clone(&self.ctx.cache)),
                CachePolicy::from_family(&family),
            )?;
            Ok(Some(StoreFile::new(
                entry,
                reader,
                placement.path.clone(),
                Arc::clone(&fs),
                &self.ctx.held,
            )))
        };
        let result = build();
        if result.is_err() {
            // The half-written table is in no manifest. Removing it now keeps retries of a
            // failing flush from filling the disk (the next open would remove it too).
            if let Err(e) = fs.remove(&placement.path) {
                tracing::warn!(path = %placement.path.display(), error = %e, "could not remove a failed SSTable");
            }
        }
        result
    }

    fn install_flushed(&self, file: Arc<StoreFile>, max_seq: u64) -> Result<()> {
        let mut manifest = self.manifest.lock();
        let mut state = manifest.state().clone();
        state.files.push(file.entry.clone());
        state.flushed_seq = state.flushed_seq.max(max_seq);
        if let Err(e) = manifest.commit(state) {
            // Deleted only if the commit surely did not land; otherwise the next open
            // finds it listed, or removes it as unlisted.
            if !manifest.may_hold_uncommitted_state() {
                file.mark_obsolete();
            }
            return Err(e);
        }
        drop(manifest);
        let mut view = self.view.write();
        let mut next = view.successor();
        next.files.insert(0, file);
        *view = Arc::new(next);
        Ok(())
    }
}

#[allow(clippy::too_many_arguments)]
fn file_entry(
    file_number: u64,
    volume: &str,
    relative: &Path,
    meta: &TableMeta,
    fs: &Arc<dyn crate::fs::FileSystem>,
    path: &Path,
    origin: FileOrigin,
    now_ms: i64,
) -> Result<StoreFileEntry> {
    Ok(StoreFileEntry {
        file_number,
        volume: volume.to_string(),
        relative_path: relative.to_string_lossy().into_owned(),
        size: fs.file_size(path)?,
        entries: meta.entry_count,
        min_ts: meta.min_timestamp,
        max_ts: meta.max_timestamp,
        max_seq: meta.max_seq,
        first_key: meta.first_key.clone(),
        last_key: meta.last_key.clone(),
        origin,
        created_at_ms: now_ms,
        range: None,
    })
}

/// The family's table settings, with what the volume's storage type overrides.
fn table_options(family: &crate::options::FamilyOptions, tier: TierSettings) -> TableOptions {
    let mut options = TableOptions::from_family(family);
    if let Some(compression) = tier.compression {
        options.compression = compression;
    }
    if let Some(block_size) = tier.block_size {
        options.block_size = block_size;
    }
    options
}
