//! The segment files: the active one being appended to, and the closed ones kept until
//! their edits are flushed. Only a group-commit leader (or `close` / `mark_flushed`) touches
//! this, under its own mutex, so the queue lock is never held across I/O.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::format::{encode_segment_header, segment_file_name};
use super::recovery::SegmentMeta;
use super::stats::WalCounters;
use crate::error::Result;
use crate::fs::{FileSystem, WritableFile};
use crate::options::Durability;

/// The segment being appended to.
struct ActiveSegment {
    meta: SegmentMeta,
    file: Box<dyn WritableFile>,
    /// Length at the last successful flush / sync, to skip calls with nothing new.
    flushed_len: u64,
    synced_len: u64,
}

/// All segment files of the WAL.
pub(crate) struct SegmentSet {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    segment_size: u64,
    active: Option<ActiveSegment>,
    /// Closed segments, oldest first.
    closed: Vec<SegmentMeta>,
    /// Files of rolled segments whose final fsync is still to do. It is done off the write
    /// path (by the background flusher, or by `Wal::sync`/`close`), so a roll never makes
    /// every writer wait for a full segment's fsync.
    unsynced: Vec<Box<dyn WritableFile>>,
    next_number: u64,
    counters: Arc<WalCounters>,
}

impl SegmentSet {
    /// Tracks the replayed `closed` segments; the next segment created is `next_number`.
    pub(crate) fn new(
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        segment_size: u64,
        closed: Vec<SegmentMeta>,
        next_number: u64,
        counters: Arc<WalCounters>,
    ) -> Self {
        let set = SegmentSet {
            fs,
            dir,
            segment_size,
            active: None,
            closed,
            unsynced: Vec::new(),
            next_number,
            counters,
        };
        set.publish();
        set
    }

    /// The active segment's number, if one is open.
    #[cfg(test)]
    pub(crate) fn active_number(&self) -> Option<u64> {
        self.active.as_ref().map(|a| a.meta.number)
    }

    /// Writes one group-commit batch: appends it, then flushes (at least) or syncs. On
    /// failure the active segment is closed as broken so the next batch starts a new one.
    pub(crate) fn write_batch(
        &mut self,
        bytes: &[u8],
        max_seq: Option<u64>,
        durability: Durability,
    ) -> Result<()> {
        if self
            .active
            .as_ref()
            .is_some_and(|a| a.file.len() > self.segment_size)
        {
            self.roll()?;
        }
        if bytes.is_empty() && self.active.is_none() {
            return Ok(()); // a flush/sync request with nothing to make durable
        }
        self.ensure_active()?;
        let result = self.write_active(bytes, max_seq, durability);
        if result.is_err() {
            WalCounters::bump(&self.counters.write_errors);
            self.close_broken();
        }
        self.publish();
        result
    }

    fn write_active(
        &mut self,
        bytes: &[u8],
        max_seq: Option<u64>,
        durability: Durability,
    ) -> Result<()> {
        let counters = Arc::clone(&self.counters);
        let Some(active) = self.active.as_mut() else {
            return Ok(());
        };
        // Raise max seq before writing: a failed write may still have reached the disk, and
        // the segment must not be deleted while it could hold an unflushed edit.
        active.meta.max_seq = active.meta.max_seq.max(max_seq);
        if !bytes.is_empty() {
            WalCounters::bump(&counters.batches);
            active.file.append(bytes)?;
            counters
                .bytes_written
                .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        }
        if durability == Durability::FsyncWal {
            active.sync(&counters)
        } else {
            // Async batches are flushed too: a leader only runs for them under backpressure
            // or for the background flusher, and both want the bytes handed to the OS.
            active.flush(&counters)
        }
    }

    /// Opens the next segment if none is active: header written and synced, and the new
    /// name made durable, before any record goes in.
    pub(crate) fn ensure_active(&mut self) -> Result<()> {
        if self.active.is_some() {
            return Ok(());
        }
        let number = self.next_number;
        let path = self.dir.join(segment_file_name(number));
        match self.create_segment(&path, number) {
            Ok(file) => {
                let len = file.len();
                let meta = SegmentMeta {
                    number,
                    path,
                    max_seq: None,
                    size: len,
                };
                self.active = Some(ActiveSegment {
                    meta,
                    file,
                    flushed_len: len,
                    synced_len: len,
                });
                self.next_number += 1;
                self.publish();
                Ok(())
            }
            Err(e) => {
                // The number is reused on the next attempt (create truncates), so a
                // half-created file can only ever be the newest segment.
                let _ = self.fs.remove(&path);
                Err(e)
            }
        }
    }

    fn create_segment(&self, path: &Path, number: u64) -> Result<Box<dyn WritableFile>> {
        let mut file = self.fs.create(path)?;
        file.append(&encode_segment_header(number))?;
        self.counters.timed_sync(file.as_mut())?;
        self.fs.sync_dir(&self.dir)?;
        Ok(file)
    }

    /// Retires the full active segment: its bytes are already with the OS (every batch
    /// flushes at least), so it moves to the closed list at once and its fsync is left to
    /// [`SegmentSet::take_unsynced`]. FsyncWal edits in it were synced when written.
    fn roll(&mut self) -> Result<()> {
        WalCounters::bump(&self.counters.rolls);
        let Some(mut active) = self.active.take() else {
            return Ok(());
        };
        let flushed = active.flush(&self.counters);
        active.meta.size = active.file.len();
        tracing::info!(
            segment = active.meta.number,
            bytes = active.meta.size,
            "WAL segment rolled"
        );
        self.closed.push(active.meta);
        if flushed.is_ok() {
            self.unsynced.push(active.file);
        }
        self.publish();
        flushed
    }

    /// Hands over the rolled segments still to be fsynced; the caller syncs them without
    /// holding the segment lock, and gives back those that failed with `return_unsynced`.
    pub(crate) fn take_unsynced(&mut self) -> Vec<Box<dyn WritableFile>> {
        std::mem::take(&mut self.unsynced)
    }

    /// Puts back rolled segments whose fsync failed, so a later sync retries them.
    pub(crate) fn return_unsynced(&mut self, mut files: Vec<Box<dyn WritableFile>>) {
        self.unsynced.append(&mut files);
    }

    /// Syncs the active segment and moves it to the closed list. A failed sync still closes
    /// it (as broken), so the WAL moves on to a fresh segment.
    pub(crate) fn close_active(&mut self) -> Result<()> {
        let Some(mut active) = self.active.take() else {
            return Ok(());
        };
        let result = active.sync(&self.counters);
        if result.is_err() {
            WalCounters::bump(&self.counters.write_errors);
        }
        active.meta.size = active.file.len();
        self.closed.push(active.meta);
        self.publish();
        result
    }

    /// Drops the active segment after a failed write without touching the file again; its
    /// torn tail, if any, is cut off by the next replay.
    fn close_broken(&mut self) {
        if let Some(mut active) = self.active.take() {
            tracing::warn!(path = %active.meta.path.display(), "closing WAL segment after a write failure");
            active.meta.size = active.file.len();
            self.closed.push(active.meta);
        }
    }

    /// Removes from the closed list every segment whose edits all have seq below
    /// `min_unflushed_seq`, and returns them for deletion.
    pub(crate) fn take_flushed(&mut self, min_unflushed_seq: u64) -> Vec<SegmentMeta> {
        let (gone, kept) = std::mem::take(&mut self.closed)
            .into_iter()
            .partition(|s| s.max_seq.is_none_or(|max| max < min_unflushed_seq));
        self.closed = kept;
        self.publish();
        gone
    }

    /// Puts back segments whose deletion failed, so a later call retries them.
    pub(crate) fn restore(&mut self, mut segments: Vec<SegmentMeta>) {
        self.closed.append(&mut segments);
        self.closed.sort_by_key(|s| s.number);
        self.publish();
    }

    /// Copies the segment count and total size into the counters.
    fn publish(&self) {
        let active_bytes = self.active.as_ref().map_or(0, |a| a.file.len());
        let closed_bytes: u64 = self.closed.iter().map(|s| s.size).sum();
        let count = self.closed.len() + usize::from(self.active.is_some());
        self.counters
            .segments
            .store(count as u64, Ordering::Relaxed);
        self.counters
            .total_bytes
            .store(closed_bytes + active_bytes, Ordering::Relaxed);
    }
}

impl ActiveSegment {
    fn flush(&mut self, counters: &WalCounters) -> Result<()> {
        let len = self.file.len();
        if len > self.flushed_len {
            self.file.flush()?;
            WalCounters::bump(&counters.flushes);
            self.flushed_len = len;
        }
        Ok(())
    }

    fn sync(&mut self, counters: &WalCounters) -> Result<()> {
        let len = self.file.len();
        if len > self.synced_len {
            counters.timed_sync(self.file.as_mut())?;
            self.flushed_len = len;
            self.synced_len = len;
        }
        Ok(())
    }
}
