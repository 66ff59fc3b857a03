//! The local backend: segment files in one directory (today's WAL, formats unchanged).

use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;

use super::backend::{WalBackend, WalBatch};
use super::edit::WalEdit;
use super::recovery::recover;
use super::segment::SegmentSet;
use super::stats::WalCounters;
use crate::error::Result;
use crate::fs::FileSystem;

/// Segment files: the active one, rolled ones awaiting their final fsync, and closed ones
/// kept until every edit in them is flushed.
pub(crate) struct LocalSegments {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    segments: Mutex<SegmentSet>,
    counters: Arc<WalCounters>,
    /// Held for the whole of a rolled-segment sync, so a caller never returns while another
    /// thread (the background flusher) still has a segment it took out of the list.
    rolled_sync: Mutex<()>,
}

impl LocalSegments {
    /// Opens the segments in `dir` (created if missing): replays every existing segment in
    /// order, calling `on_edit` for each edit, then starts a new segment numbered above all
    /// of them. Replayed segments are kept until `mark_flushed` deletes them.
    pub(crate) fn open(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        segment_size: u64,
        counters: Arc<WalCounters>,
        on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
    ) -> Result<LocalSegments> {
        let local = Self::replay(fs, dir, segment_size, counters, on_edit)?;
        local.segments.lock().ensure_active()?;
        Ok(local)
    }

    /// Replays the segments in `dir` and keeps them until `mark_flushed` deletes them, but
    /// starts no segment there: the directory of a WAL group that no longer exists, or
    /// that now lives on another volume, whose edits must still be replayed and kept.
    pub(crate) fn replay_only(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        counters: Arc<WalCounters>,
        on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
    ) -> Result<LocalSegments> {
        Self::replay(fs, dir, u64::MAX, counters, on_edit)
    }

    fn replay(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        segment_size: u64,
        counters: Arc<WalCounters>,
        on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
    ) -> Result<LocalSegments> {
        fs.create_dir_all(&dir)?;
        let recovered = recover(fs.as_ref(), &dir, on_edit)?;
        tracing::info!(dir = %dir.display(), edits = recovered.edits, segments = recovered.segments.len(), "WAL replayed");
        let segments = SegmentSet::new(
            Arc::clone(&fs),
            dir.clone(),
            segment_size,
            recovered.segments,
            recovered.next_number,
            Arc::clone(&counters),
        );
        Ok(LocalSegments {
            fs,
            dir,
            segments: Mutex::new(segments),
            counters,
            rolled_sync: Mutex::new(()),
        })
    }

    /// The number of the segment being appended to, if one is open.
    #[cfg(test)]
    pub(crate) fn active_segment(&self) -> Option<u64> {
        self.segments.lock().active_number()
    }
}

impl WalBackend for LocalSegments {
    fn write_batch(&self, batch: &WalBatch<'_>) -> Result<()> {
        self.segments
            .lock()
            .write_batch(batch.records, batch.max_seq, batch.durability)
    }

    /// Fsyncs rolled segments whose final sync is pending, without holding the segment
    /// lock, so writers go on appending to the new segment meanwhile.
    fn sync_deferred(&self) -> Result<()> {
        let _one_at_a_time = self.rolled_sync.lock();
        let files = self.segments.lock().take_unsynced();
        let mut failed = Vec::new();
        let mut first_error = None;
        for mut file in files {
            if let Err(e) = self.counters.timed_sync(file.as_mut()) {
                first_error.get_or_insert(e);
                failed.push(file);
            }
        }
        if !failed.is_empty() {
            self.segments.lock().return_unsynced(failed);
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Deletes every closed segment whose edits all have seq below `min_unflushed_seq`,
    /// then syncs the directory. Never deletes the active segment.
    fn mark_flushed(&self, min_unflushed_seq: u64) -> Result<usize> {
        let victims = self.segments.lock().take_flushed(min_unflushed_seq);
        if victims.is_empty() {
            return Ok(0);
        }
        let mut failed = Vec::new();
        let mut first_error = None;
        for segment in victims.iter() {
            if let Err(e) = self.fs.remove(&segment.path) {
                failed.push(segment.clone());
                first_error.get_or_insert(e);
            }
        }
        let deleted = victims.len() - failed.len();
        if !failed.is_empty() {
            self.segments.lock().restore(failed);
        }
        self.fs.sync_dir(&self.dir)?;
        match first_error {
            Some(e) => Err(e),
            None => Ok(deleted),
        }
    }

    fn close(&self) -> Result<()> {
        self.segments.lock().close_active()
    }
}
