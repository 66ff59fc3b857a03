//! Flushing a region: every store's memstore becomes an SSTable, and the host hears how far
//! the region's edits are now in files.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::stats::flush_event;
use super::Region;
use crate::error::Result;
use crate::store::Store;

/// Under memory pressure a region flushes once its memstores (not counting what a flush has
/// set aside) hold at least this fraction of the flush size. Without it, while one slow
/// flush held most of the memory, every other region flushed after each of its writes: a
/// run of near-empty files and the compactions to merge them (`bench/tier-lanes.sh`, an HDD
/// slowed to 2 s per sync: 3,468 flushes and 774 compactions during 80,000 writes). A
/// writer that finds no room at all still flushes the largest region, however small.
pub const PRESSURE_FLUSH_SHARE: u64 = 16;

impl Region {
    /// Flushes every store's memstore to SSTables, now, in the calling thread. On success
    /// every write acknowledged before the call is in an SSTable.
    pub fn flush(&self) -> Result<()> {
        let _serial = self.flush_serial.lock();
        self.flush_serialized()
    }

    fn flush_serialized(&self) -> Result<()> {
        // A snapshot that already exists (left by a failed flush, or being written by a
        // concurrent one) holds only older edits and is flushed first; then a second round
        // flushes the memstore as it was at this call.
        if self.flush_round()? {
            self.flush_round()?;
        }
        Ok(())
    }

    /// One flush of every store; returns true if some store had a snapshot already, so its
    /// memstore was not taken.
    fn flush_round(&self) -> Result<bool> {
        let (prepared, had_snapshot) = self.prepare_flush();
        let mut result = Ok(());
        for store in prepared {
            if let Err(e) = self.flush_store(store) {
                tracing::error!(region = self.id, error = %e, "flush failed; the snapshot stays in memory and is retried");
                result = Err(e);
            }
        }
        self.flush_requested.store(false, Ordering::Release);
        self.files_changed.notify();
        // Told even after a failure: what is in files is in files either way.
        let seq = self.flushed_through();
        self.tell_host(|host| host.flushed(self.id, seq));
        if result.is_ok() {
            // Writes that arrived during the flush found a flush already requested; if they
            // filled the memstore again, ask for the next one now rather than at the next
            // write, which may never come.
            self.maybe_request_flush();
        }
        result.map(|()| had_snapshot)
    }

    /// Sets each store's memstore aside as its snapshot, between two writes. Returns the
    /// stores with something to flush, and whether some store had a snapshot already.
    fn prepare_flush(&self) -> (Vec<&Arc<Store>>, bool) {
        let mut had_snapshot = false;
        let _exclusive = self.updates.write();
        let prepared = self
            .stores
            .values()
            .filter(|s| {
                had_snapshot |= s.view().snapshot.is_some();
                s.prepare_flush()
            })
            .collect();
        (prepared, had_snapshot)
    }

    /// Writes one store's snapshot to an SSTable and releases its memory.
    fn flush_store(&self, store: &Store) -> Result<()> {
        // The stores commit their flushes one by one, so a crash between two commits keeps
        // part of each flushed write in SSTables and the rest only in the WAL. Making the WAL
        // durable before each snapshot is written (as HBase does before a flush) lets replay
        // restore the rest of every logged write, however it was acknowledged. (Per snapshot,
        // because a concurrent flush may have set aside the snapshot a store writes.)
        // A snapshot may hold writes queued on the WAL and not yet resolved; it is written
        // only once each is durable and visible, or was taken back out (its batch failed).
        let before_write = |max_seq: u64| {
            self.wal().sync()?;
            self.mvcc.wait_until_visible(max_seq);
            Ok(())
        };
        let clock = &self.ctx.clock;
        let started = clock.now();
        let freed = store.flush_snapshot(clock.now_millis(), &before_write)?;
        self.ctx.memory.release(freed);
        let elapsed = clock.now() - started;
        if let Some(event) = flush_event(self.id, store, freed, elapsed, clock.now_millis()) {
            self.ctx.events.record(event);
        }
        Ok(())
    }

    /// The highest sequence id up to which every edit of this region is in its files.
    fn flushed_through(&self) -> u64 {
        // Read before the stores: a write that gets its sequence id later is above it.
        let last = self.ctx.sequence.last();
        self.min_unflushed_seq()
            .map_or(last, |seq| seq.saturating_sub(1))
    }

    /// Asks the host for a flush once the region's memstores reach the flush size, or the
    /// process's memstores reach the point where flushing should start and this region
    /// holds a share worth a file ([`PRESSURE_FLUSH_SHARE`]).
    pub(super) fn maybe_request_flush(&self) {
        let flush_size = self.ctx.limits.memstore_flush_size;
        let over_region = self.memstore_bytes() >= flush_size;
        let under_pressure = self.ctx.memory.should_flush()
            && self.active_memstore_bytes() >= flush_size / PRESSURE_FLUSH_SHARE;
        if (over_region || under_pressure) && !self.flush_requested.swap(true, Ordering::AcqRel) {
            self.tell_host(|host| host.flush_wanted(self.id));
        }
    }
}

/// Each family's name and live files, newest first.
pub(crate) type FileSets = Vec<(Vec<u8>, Vec<Arc<crate::store::StoreFile>>)>;

impl Region {
    /// Flushes, then takes every store's file set before any other flush can start, so a
    /// row written to several families is in all of the sets or in none (a snapshot's
    /// per-region consistency, as HBase's flush snapshots have). The sets hold the files
    /// open: none is deleted while the caller holds them.
    pub(crate) fn flushed_file_sets(&self) -> Result<FileSets> {
        let _serial = self.flush_serial.lock();
        self.flush_serialized()?;
        // After a complete flush every family is flushed up to the same write; a store
        // still holding a memstore aside means that flush failed part way.
        let views: Vec<_> = self
            .stores
            .iter()
            .map(|(f, s)| (f.to_vec(), s.view()))
            .collect();
        if views.iter().any(|(_, v)| v.snapshot.is_some()) {
            return Err(crate::error::Error::TooBusy(format!(
                "region {} could not flush every family; try again",
                self.id
            )));
        }
        Ok(views
            .into_iter()
            .map(|(f, v)| (f, v.files.clone()))
            .collect())
    }
}
