//! The process-wide WAL: open (with replay), append with group commit, sync, dropping
//! flushed edits (through the backend), close.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use parking_lot::Mutex;

use super::backend::{WalBackend, WalBackendOpener, WalBatch};
use super::edit::WalEdit;
use super::flusher::{self, StopSignal};
use super::format::{encode_record, MAX_RECORD_LEN, RECORD_TYPE_EDIT};
use super::group_commit::{Batch, FailedWait, FailureGuard, GroupCommit, Request, Ticket};
use super::local::LocalSegments;
use super::stats::{WalCounters, WalStats};
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::options::{Durability, WalOptions};
use crate::util::clock::Clock;

/// The write-ahead log shared by every region of a process: the group commit queue in
/// front of a [`WalBackend`] that stores the batches.
pub struct Wal {
    backend: Arc<dyn WalBackend>,
    /// The local backend, when it is the one in use, for tests that look at segments.
    #[cfg_attr(not(test), allow(dead_code))]
    local: Option<Arc<LocalSegments>>,
    queue: GroupCommit,
    counters: Arc<WalCounters>,
    closed: AtomicBool,
    stop: Arc<StopSignal>,
    flusher: Mutex<Option<JoinHandle<()>>>,
    /// `WalOptions::min_durability`.
    min_durability: Durability,
}

impl std::fmt::Debug for Wal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wal").finish_non_exhaustive()
    }
}

impl Wal {
    /// Opens the WAL in `dir` (created if missing) on local segment files: replays every
    /// existing segment in order, calling `on_edit` for each edit, then starts a new
    /// segment numbered above all of them. Replayed segments are kept until
    /// [`Wal::mark_flushed`] deletes them. `clock` times the syncs for [`Wal::stats`].
    pub fn open(
        fs: Arc<dyn FileSystem>,
        clock: Arc<dyn Clock>,
        dir: PathBuf,
        opts: WalOptions,
        on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
    ) -> Result<Arc<Wal>> {
        let counters = Arc::new(WalCounters::new(clock));
        let segment_size = opts.segment_size;
        let local = Arc::new(LocalSegments::open(
            fs,
            dir,
            segment_size,
            Arc::clone(&counters),
            on_edit,
        )?);
        let backend: Arc<dyn WalBackend> = local.clone();
        Self::start(backend, Some(local), counters, opts)
    }

    /// Opens the WAL on the backend `opener` opens (after it replayed into `on_edit`).
    pub fn open_backend(
        opener: &dyn WalBackendOpener,
        clock: Arc<dyn Clock>,
        opts: WalOptions,
        on_edit: &mut dyn FnMut(WalEdit) -> Result<()>,
    ) -> Result<Arc<Wal>> {
        let counters = Arc::new(WalCounters::new(clock));
        let backend: Arc<dyn WalBackend> = Arc::from(opener.open(on_edit)?);
        Self::start(backend, None, counters, opts)
    }

    /// The WAL over `backend`, with its background flusher running.
    fn start(
        backend: Arc<dyn WalBackend>,
        local: Option<Arc<LocalSegments>>,
        counters: Arc<WalCounters>,
        opts: WalOptions,
    ) -> Result<Arc<Wal>> {
        let wal = Arc::new(Wal {
            backend,
            local,
            queue: GroupCommit::new(),
            counters,
            closed: AtomicBool::new(false),
            stop: Arc::new(StopSignal::default()),
            flusher: Mutex::new(None),
            min_durability: opts.min_durability,
        });
        let weak = Arc::downgrade(&wal);
        let handle = flusher::spawn(
            Arc::clone(&wal.stop),
            opts.async_flush_interval,
            move || flush_tick(&weak),
        )?;
        *wal.flusher.lock() = Some(handle);
        Ok(wal)
    }

    /// Logs `edit` and returns once it meets `durability`: `SkipWal` does not log at all,
    /// `AsyncWal` returns once the edit is queued in the process, `SyncWal` once it was
    /// handed to the OS, `FsyncWal` once it is on stable storage. On an error the edit is
    /// not acknowledged (it may or may not be replayed later). An edit whose payload exceeds
    /// 256 MiB is `Error::InvalidArgument`.
    #[cfg(test)]
    pub fn append(&self, edit: &WalEdit, durability: Durability) -> Result<()> {
        match self.enqueue(edit, durability, None)? {
            None => Ok(()),
            Some(ticket) => self.wait(ticket).map_err(|failed| failed.error()),
        }
    }

    /// The first half of [`Wal::append`]: queues `edit` in WAL order and returns at once.
    /// `None` means it already meets `durability` (`SkipWal`, or `AsyncWal` while the
    /// backlog is small); otherwise [`Wal::wait`] on the ticket. A `guard` taken before a
    /// WAL write failed since refuses the edit (retryably), with nothing queued.
    pub fn enqueue(
        &self,
        edit: &WalEdit,
        durability: Durability,
        guard: Option<FailureGuard>,
    ) -> Result<Option<Ticket>> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed("the WAL is closed".into()));
        }
        if durability == Durability::SkipWal {
            WalCounters::bump(&self.counters.skipped);
            return Ok(None);
        }
        let record =
            encode_record(RECORD_TYPE_EDIT, |buf| edit.encode_payload(buf)).map_err(|len| {
                Error::InvalidArgument(format!(
                    "WAL edit of {len} bytes exceeds the {MAX_RECORD_LEN}-byte limit"
                ))
            })?;
        let req = Request {
            record: &record,
            seq: Some(edit.seq),
            durability: durability.max(self.min_durability),
            internal: false,
        };
        let ticket = self.queue.enqueue(req, guard)?;
        WalCounters::bump(&self.counters.appends);
        Ok(ticket)
    }

    /// The second half of [`Wal::append`]: blocks until the ticket's edit is durable. On a
    /// failure, the caller undoes the edit's effects and then drops the [`FailedWait`].
    pub fn wait(&self, ticket: Ticket) -> std::result::Result<(), FailedWait<'_>> {
        self.queue.wait(ticket, &|batch| self.write_batch(batch))
    }

    /// Taken by a read-modify-write before it reads; see [`FailureGuard`].
    pub fn failure_guard(&self) -> Result<FailureGuard> {
        self.queue.failure_guard()
    }

    /// Makes everything appended so far durable, `AsyncWal` edits included, in rolled
    /// segments as well as the active one.
    ///
    /// The order matters: the fsync batch comes first, because the batch itself (or any
    /// batch before it) may roll the segment holding earlier edits; once it is done, every
    /// edit appended before this call is in a segment that is either synced or in the
    /// rolled list that `sync_rolled` then drains.
    pub fn sync(&self) -> Result<()> {
        self.submit_empty(Durability::FsyncWal, false)?;
        self.sync_rolled()
    }

    /// Completes what the backend deferred (rolled segments' final fsync).
    pub(crate) fn sync_rolled(&self) -> Result<()> {
        self.backend.sync_deferred()
    }

    /// Tells the backend that every edit with seq below `min_unflushed_seq` is in SSTables:
    /// the local backend deletes every closed segment holding only such edits (never the
    /// active one). Returns how many segments were deleted.
    pub fn mark_flushed(&self, min_unflushed_seq: u64) -> Result<usize> {
        self.backend.mark_flushed(min_unflushed_seq)
    }

    /// Flushes and syncs everything, stops the background flusher and closes the active
    /// segment. Later appends fail with `Error::Closed`. Calling it twice is harmless.
    /// Dropping the WAL without closing it loses `AsyncWal` edits still queued.
    pub fn close(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.queue.close();
        self.stop.stop();
        if let Some(handle) = self.flusher.lock().take() {
            // A panicked flusher has nothing left to clean up; the final sync below covers
            // whatever it did not flush.
            let _ = handle.join();
        }
        let synced = self.submit_empty(Durability::FsyncWal, true);
        let rolled = self.sync_rolled();
        let closed = self.backend.close();
        synced.and(rolled).and(closed)
    }

    /// A snapshot of the WAL's counters.
    pub fn stats(&self) -> WalStats {
        let mut stats = self.counters.snapshot();
        stats.segments += self.backend.live_units();
        stats
    }

    /// The number of the segment being appended to, if one is open.
    #[cfg(test)]
    pub fn active_segment(&self) -> Option<u64> {
        self.local.as_ref().and_then(|l| l.active_segment())
    }

    /// The background flusher's work: writes queued `AsyncWal` edits to the OS, and
    /// fsyncs segments rolled since the last tick.
    fn flush_pending(&self) -> Result<()> {
        let rolled = self.sync_rolled();
        if !self.queue.has_pending() {
            return rolled;
        }
        rolled.and(self.submit_empty(Durability::SyncWal, false))
    }

    fn submit_empty(&self, durability: Durability, internal: bool) -> Result<()> {
        let req = Request {
            record: &[],
            seq: None,
            durability,
            internal,
        };
        self.queue.submit(req, &|batch| self.write_batch(batch))
    }

    fn write_batch(&self, batch: &Batch) -> Result<()> {
        self.backend.write_batch(&WalBatch {
            records: &batch.bytes,
            durability: batch.durability,
            max_seq: batch.max_seq,
        })
    }
}

/// One tick of the background flusher. The thread holds the WAL only weakly, so dropping
/// every other handle to the WAL ends it: false once the WAL is gone.
fn flush_tick(wal: &Weak<Wal>) -> bool {
    let Some(wal) = wal.upgrade() else {
        return false;
    };
    if let Err(e) = wal.flush_pending() {
        // The edits were acknowledged as AsyncWal, which promises nothing on failure;
        // the next write reports the broken disk to its own caller.
        tracing::warn!(error = %e, "background WAL flush failed");
    }
    true
}

impl Drop for Wal {
    fn drop(&mut self) {
        // Not joined: the last handle may be dropped on the flusher thread itself.
        self.stop.stop();
    }
}
