//! Backpressure on a region's writers: they wait while the process's memstores are over
//! the memory limit, the region's own memstores hold the blocking multiple of the flush
//! size, or one of the region's stores has too many files, and fail with TooBusy if that
//! lasts past the configured timeout. A finished flush or compaction wakes them (no
//! polling), so a writer goes on as soon as the memory is freed or the files are merged.

use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use super::Region;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::util::clock::Clock;
use crate::util::wait::wait_until;

/// Wakes writers waiting for a store's file count to go down.
#[derive(Debug, Default)]
pub(super) struct FileCountSignal {
    /// Held while a writer checks the counts and until it waits, and taken by `notify`:
    /// a change between the check and the wait cannot be missed.
    lock: Mutex<()>,
    changed: Condvar,
}

impl FileCountSignal {
    /// Called after a flush or compaction changed (or may have changed) the file counts.
    pub(super) fn notify(&self) {
        let _lock = self.lock.lock();
        self.changed.notify_all();
    }

    /// Waits, while `blocked`, until a notification or `deadline`; true once the deadline
    /// has passed.
    fn wait(&self, blocked: impl Fn() -> bool, clock: &dyn Clock, deadline: Instant) -> bool {
        let mut lock = self.lock.lock();
        // Checked again under the lock: a change since the caller looked was notified
        // before this wait began.
        blocked() && wait_until(&self.changed, &mut lock, clock, deadline)
    }
}

impl Region {
    /// Waits, as a write would, until the region has room for writes; a caller that takes
    /// locks before writing calls it first, so that it waits holding none.
    pub fn wait_for_write_capacity(&self) -> Result<()> {
        self.wait_for_capacity()
    }

    /// Waits for room in the memstores and for stores under the blocking file count.
    pub(super) fn wait_for_capacity(&self) -> Result<()> {
        self.wait_for_own_flush()?;
        self.ctx
            .memory
            .wait_for_room(&|| self.tell_host(|host| host.memory_pressure(self.id)))?;
        self.wait_for_compaction()
    }

    /// Waits while the region's memstores hold the blocking multiple of the flush size:
    /// a region whose flushes are slow (its files on a slow device) then holds up only its
    /// own writers, not every region's by filling the process's memory limit.
    fn wait_for_own_flush(&self) -> Result<()> {
        if !self.over_memstore_block() {
            return Ok(()); // the common case: no clock read on the write path
        }
        let clock = self.ctx.clock.as_ref();
        let deadline = clock.now() + self.ctx.limits.write_wait_timeout;
        while self.over_memstore_block() {
            self.maybe_request_flush();
            let blocked = || self.over_memstore_block();
            if self.files_changed.wait(blocked, clock, deadline) && self.over_memstore_block() {
                let limits = &self.ctx.limits;
                return Err(Error::TooBusy(format!(
                    "region {} is over its memstore limit ({} bytes held, the limit {} x \
                     {} bytes) and its flush did not free room within {:?}",
                    self.id,
                    self.memstore_bytes(),
                    limits.memstore_block_multiplier,
                    limits.memstore_flush_size,
                    limits.write_wait_timeout
                )));
            }
        }
        Ok(())
    }

    fn over_memstore_block(&self) -> bool {
        let limits = &self.ctx.limits;
        let block = limits
            .memstore_flush_size
            .saturating_mul(limits.memstore_block_multiplier.max(1));
        self.memstore_bytes() >= block
    }

    /// Waits while a store has the blocking number of files, asking for a compaction.
    fn wait_for_compaction(&self) -> Result<()> {
        if self.blocking_store().is_none() {
            return Ok(()); // the common case: no clock read on the write path
        }
        let clock = self.ctx.clock.as_ref();
        let deadline = clock.now() + self.ctx.limits.write_wait_timeout;
        while self.blocking_store().is_some() {
            // Asked without the signal's lock: a host may compact at once, in this thread.
            self.tell_host(|host| host.compaction_wanted(self.id));
            let blocked = || self.blocking_store().is_some();
            if self.files_changed.wait(blocked, clock, deadline) {
                if let Some(store) = self.blocking_store() {
                    return Err(self.too_many_files(store));
                }
            }
        }
        Ok(())
    }

    /// A store with at least the blocking number of files, if any.
    fn blocking_store(&self) -> Option<&Store> {
        let blocking = self.ctx.limits.blocking_store_files;
        self.stores
            .values()
            .find(|s| s.file_count() >= blocking)
            .map(|s| s.as_ref())
    }

    fn too_many_files(&self, store: &Store) -> Error {
        let limits = &self.ctx.limits;
        Error::TooBusy(format!(
            "store '{}' of region {} has {} files (blocking threshold {}) and compaction did \
             not catch up within {:?}",
            String::from_utf8_lossy(store.family_name()),
            self.id,
            store.file_count(),
            limits.blocking_store_files,
            limits.write_wait_timeout
        ))
    }
}
