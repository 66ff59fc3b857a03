//! The write path of a region.
//!
//! A write is applied in two steps so the caller can release its row lock in between, as
//! HBase does: [`Region::mutate_queued`] gives the edit a sequence id, queues it on the WAL
//! and inserts it in the memstores, still invisible to readers; [`PendingWrite::wait`] then
//! waits for the WAL to make it durable and for the MVCC to make it visible. Edits of one
//! hot row thus share group commits instead of each waiting for the previous one's sync.
//! A read-modify-write reads the row's newest queued edits ([`Region::get_queued`]), so it
//! builds on edits that are not yet acknowledged; if one of them fails to be logged, the
//! WAL fails every edit queued behind it too, and the region takes them all back out of
//! its memstores before they become visible.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::Region;
use crate::cache::row_cache::WriteFence;
use crate::cell::{Cell, LATEST_TIMESTAMP};
use crate::error::{Error, Result};
use crate::options::Durability;
use crate::wal::{FailureGuard, Ticket, Wal, WalEdit};

/// A write queued by [`Region::mutate_queued`]: logged (or being logged) and in the
/// memstores, not yet acknowledged. Dropping it without [`PendingWrite::wait`] still waits.
#[must_use = "a queued write is acknowledged only by wait()"]
pub struct PendingWrite {
    region: Arc<Region>,
    queued: Option<Queued>,
}

/// A write between its two steps.
struct Queued {
    edit: WalEdit,
    ticket: Option<Ticket>,
    charged: u64,
    /// Keeps the row cache from caching the rows until the write is visible (or undone).
    fence: Option<WriteFence>,
}

impl Region {
    /// Applies `cells` atomically (all visible at once, all or nothing after a crash) with the
    /// given durability, and returns the write's sequence id. Cells carrying
    /// `LATEST_TIMESTAMP` get the region's server time ([`Region::server_timestamp`]).
    pub fn mutate(&self, cells: Vec<Cell>, durability: Durability) -> Result<u64> {
        let queued = self.queue(cells, durability, None)?;
        self.resolve(queued)
    }

    /// The first step of [`Region::mutate`]: queues the write and returns before it is
    /// durable. A read-modify-write passes the guard it took before reading
    /// ([`Region::failure_guard`]); the write is then refused (retryably, nothing applied)
    /// if a WAL write failed since.
    pub fn mutate_queued(
        self: &Arc<Self>,
        cells: Vec<Cell>,
        durability: Durability,
        guard: Option<FailureGuard>,
    ) -> Result<PendingWrite> {
        let queued = self.queue(cells, durability, guard)?;
        Ok(PendingWrite {
            region: Arc::clone(self),
            queued: Some(queued),
        })
    }

    fn queue(
        &self,
        mut cells: Vec<Cell>,
        durability: Durability,
        guard: Option<FailureGuard>,
    ) -> Result<Queued> {
        self.requests.write();
        self.validate(&cells)?;
        self.wait_for_capacity()?;
        // Before the memstores change; dropped (on every path) only once the write is
        // visible or undone.
        let fence = self.fence_rows(&cells);
        let updates = self.updates.read();
        // Checked under the update lock: `seal` sets the flag under the exclusive lock, so
        // every write either lands before the seal's final flush or is refused.
        self.check_not_sealed()?;
        let seq = self.mvcc.begin(|| self.ctx.sequence.next());
        let mut now = None;
        for cell in &mut cells {
            if cell.timestamp == LATEST_TIMESTAMP {
                cell.timestamp = *now.get_or_insert_with(|| self.server_timestamp(i64::MIN));
            }
            cell.seq = seq;
        }
        let edit = WalEdit {
            region_id: self.id,
            seq,
            cells,
        };
        let ticket = match self.wal().enqueue(&edit, durability, guard) {
            Ok(ticket) => ticket,
            Err(e) => {
                self.mvcc.complete(seq);
                return Err(e);
            }
        };
        let mut charged = 0;
        for cell in &edit.cells {
            charged += self.store(&cell.family)?.insert(cell);
        }
        drop(updates);
        self.ctx.memory.charge(charged);
        Ok(Queued {
            edit,
            ticket,
            charged,
            fence,
        })
    }

    /// The second step: waits until the write is durable and visible, and returns its
    /// sequence id. If its WAL batch failed, the write is taken back out of the memstores (it
    /// never becomes visible) and the WAL's error is returned.
    fn resolve(&self, queued: Queued) -> Result<u64> {
        let seq = queued.edit.seq;
        if let Some(ticket) = queued.ticket {
            if let Err(failed) = self.wal().wait(ticket) {
                self.take_back(&queued.edit, queued.charged);
                self.mvcc.complete(seq);
                // Dropping `failed` tells the WAL this write is undone.
                return Err(failed.error());
            }
        }
        self.mvcc.complete_and_wait(seq);
        drop(queued.fence); // visible: the rows' cached answers go
        self.maybe_request_flush();
        Ok(seq)
    }

    /// Removes an unlogged write's cells from the memstores and releases their memory.
    fn take_back(&self, edit: &WalEdit, charged: u64) {
        let mut freed = 0;
        for cell in &edit.cells {
            if let Ok(store) = self.store(&cell.family) {
                freed += store.remove_unlogged(cell);
            }
        }
        self.ctx.memory.release(freed.min(charged));
    }

    /// A timestamp for a write that takes the server's time: the clock's now, but never
    /// below `at_least` nor below any timestamp this region handed out before, so a later
    /// write is never hidden behind an earlier one that was stamped ahead of the clock (an
    /// increment is stamped at least one past the cell's previous version).
    ///
    /// `at_least` is one past a stored version. A version above everything this region has
    /// stamped was written with a client's explicit timestamp: the write still goes above
    /// it (HBase's `max(now, previous + 1)`), but it does not carry the region's other
    /// writes into that future with it, as HBase's would not be.
    pub fn server_timestamp(&self, at_least: i64) -> i64 {
        let now = self.ctx.clock.now_millis();
        let ts = now.max(at_least);
        let stamped = self.last_server_ts.load(Ordering::Acquire);
        if at_least > now && at_least.saturating_sub(1) > stamped {
            return ts;
        }
        let previous = self.last_server_ts.fetch_max(ts, Ordering::AcqRel);
        ts.max(previous)
    }

    /// Taken by a read-modify-write before it reads the row it will write: see
    /// [`Region::mutate_queued`].
    pub fn failure_guard(&self) -> Result<FailureGuard> {
        self.wal().failure_guard()
    }

    /// The WAL this region logs to: its group's, the same for the region's whole life, so
    /// its edits stay in seq order in one log.
    pub(crate) fn wal(&self) -> &Wal {
        self.ctx.wal.for_region(self.id)
    }

    fn validate(&self, cells: &[Cell]) -> Result<()> {
        if cells.is_empty() {
            return Err(Error::InvalidArgument(
                "a mutation needs at least one cell".into(),
            ));
        }
        for cell in cells {
            cell.validate()?;
            self.store(&cell.family)?;
        }
        Ok(())
    }
}

impl PendingWrite {
    /// The write's sequence id.
    pub fn seq(&self) -> Option<u64> {
        self.queued.as_ref().map(|q| q.edit.seq)
    }

    /// True when the write already meets its durability (`AsyncWal` queued in the process,
    /// `SkipWal`): [`PendingWrite::wait`] then only makes it visible, without waiting for I/O.
    pub fn meets_durability(&self) -> bool {
        self.queued.as_ref().is_some_and(|q| q.ticket.is_none())
    }

    /// Waits until the write is durable and visible, and returns its sequence id. If its
    /// WAL batch failed, the write never becomes visible and the WAL's error is returned.
    pub fn wait(mut self) -> Result<u64> {
        match self.queued.take() {
            Some(queued) => self.region.resolve(queued),
            None => Err(Error::InvalidArgument(
                "the write was already waited for".into(),
            )),
        }
    }
}

impl Drop for PendingWrite {
    fn drop(&mut self) {
        if let Some(queued) = self.queued.take() {
            // The region's MVCC and the WAL's failure count both wait for this write to be
            // resolved; an error here was the caller's to see, and it chose not to.
            let _ = self.region.resolve(queued);
        }
    }
}
