//! Group commit: concurrent writers share one write and one flush or sync.
//!
//! A writer adds its encoded record to the pending batch ([`GroupCommit::enqueue`]) and
//! later waits for it ([`GroupCommit::wait`]); the two are apart so a region can release a
//! row lock in between (edits of one row then share a group commit). A waiter that finds no
//! leader active becomes the leader: it takes the whole pending batch, writes it with the
//! lock released, and publishes the outcome in the batch's slot. Writers that joined that
//! batch (followers) wait on the condvar until the slot is filled; writers that arrived
//! during the write form the next batch, and one of them leads it once the current leader
//! steps down.
//!
//! A failed write fails the batch being written and the batch queued behind it, whose
//! edits may have been computed from the failed ones (a read-modify-write reads the newest
//! queued value). Until every waiter of those batches has cleaned up (dropped its
//! [`FailedWait`]), the queue refuses guarded requests, and a guard taken before the failure
//! never passes: see [`FailureGuard`].

use std::sync::{Arc, OnceLock};

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::error::{Error, Result};
use crate::options::Durability;

/// Above this many pending bytes an `AsyncWal` writer waits like a `SyncWal` one, so a slow
/// disk cannot make the in-process buffer grow without bound.
const ASYNC_BACKLOG_LIMIT: usize = 64 << 20;

/// The outcome of one batch, shared by everyone in it.
type Outcome = std::result::Result<(), Arc<Error>>;

/// A batch as handed to the leader's write function.
#[derive(Debug)]
pub(crate) struct Batch {
    /// Concatenated framed records, in arrival order.
    pub bytes: Vec<u8>,
    /// The strongest durability any member asked for.
    pub durability: Durability,
    /// The highest edit seq in the batch.
    pub max_seq: Option<u64>,
}

/// One request to the queue.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    /// A framed record, or empty for a pure flush/sync request.
    pub record: &'a [u8],
    pub seq: Option<u64>,
    pub durability: Durability,
    /// Internal requests (the final sync of `close`) are accepted after the queue closed.
    pub internal: bool,
}

/// Taken before a read-modify-write reads: the queue's failure count at that moment. A
/// request carrying it is refused if a write failed since, because what it read may have
/// come from an edit that was never logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureGuard(u64);

/// A queued request that waits for its batch.
#[derive(Debug)]
pub struct Ticket {
    slot: Arc<OnceLock<Outcome>>,
}

/// The error of a failed batch, held by one of its waiters while it undoes its edit; the
/// queue accepts guarded requests again once every such waiter has dropped its copy.
pub struct FailedWait<'a> {
    queue: &'a GroupCommit,
    error: Error,
}

impl FailedWait<'_> {
    /// The batch's error.
    pub fn error(&self) -> Error {
        self.error.clone()
    }
}

impl Drop for FailedWait<'_> {
    fn drop(&mut self) {
        let mut st = self.queue.state.lock();
        st.unresolved_failures = st.unresolved_failures.saturating_sub(1);
    }
}

struct Pending {
    batch: Batch,
    slot: Arc<OnceLock<Outcome>>,
    /// Members that will wait for the slot (and must resolve a failure).
    waiters: usize,
}

impl Pending {
    fn new() -> Self {
        Pending {
            batch: Batch {
                bytes: Vec::new(),
                durability: Durability::SkipWal,
                max_seq: None,
            },
            slot: Arc::new(OnceLock::new()),
            waiters: 0,
        }
    }
}

struct QueueState {
    pending: Pending,
    leader_active: bool,
    closed: bool,
    /// How many batch writes have failed.
    failures: u64,
    /// Waiters of failed batches that have not yet dropped their `FailedWait`.
    unresolved_failures: usize,
}

/// The leader/follower queue.
pub(crate) struct GroupCommit {
    state: Mutex<QueueState>,
    cond: Condvar,
}

impl GroupCommit {
    /// An empty, open queue.
    pub(crate) fn new() -> Self {
        GroupCommit {
            state: Mutex::new(QueueState {
                pending: Pending::new(),
                leader_active: false,
                closed: false,
                failures: 0,
                unresolved_failures: 0,
            }),
            cond: Condvar::new(),
        }
    }

    /// Refuses further non-internal requests.
    pub(crate) fn close(&self) {
        self.state.lock().closed = true;
    }

    /// True when records are waiting to be written.
    pub(crate) fn has_pending(&self) -> bool {
        !self.state.lock().pending.batch.bytes.is_empty()
    }

    /// A guard for a read-modify-write about to read; refused while a failed batch's
    /// waiters are still undoing their edits (what it would read may be one of them).
    pub(crate) fn failure_guard(&self) -> Result<FailureGuard> {
        let st = self.state.lock();
        if st.unresolved_failures > 0 {
            return Err(recovering());
        }
        Ok(FailureGuard(st.failures))
    }

    /// Queues `req`. `None` means it is already acknowledged (`AsyncWal` under the backlog
    /// limit); otherwise [`GroupCommit::wait`] on the ticket. A `guard` taken before a
    /// failure since makes the request refused, with nothing queued.
    pub(crate) fn enqueue(
        &self,
        req: Request<'_>,
        guard: Option<FailureGuard>,
    ) -> Result<Option<Ticket>> {
        let mut st = self.state.lock();
        if st.closed && !req.internal {
            return Err(Error::Closed("the WAL is closed".into()));
        }
        if let Some(FailureGuard(seen)) = guard {
            if st.failures != seen || st.unresolved_failures > 0 {
                return Err(recovering());
            }
        }
        let pending = &mut st.pending;
        let batch = &mut pending.batch;
        batch.bytes.extend_from_slice(req.record);
        batch.durability = batch.durability.max(req.durability);
        batch.max_seq = batch.max_seq.max(req.seq);
        if req.durability == Durability::AsyncWal && batch.bytes.len() < ASYNC_BACKLOG_LIMIT {
            return Ok(None);
        }
        pending.waiters += 1;
        Ok(Some(Ticket {
            slot: Arc::clone(&pending.slot),
        }))
    }

    /// Blocks until the ticket's batch was written with at least its durability. `write`
    /// runs on whichever caller leads the batch. On failure the caller undoes its edit and
    /// then drops the returned `FailedWait`.
    pub(crate) fn wait(
        &self,
        ticket: Ticket,
        write: &dyn Fn(&Batch) -> Result<()>,
    ) -> std::result::Result<(), FailedWait<'_>> {
        let mut st = self.state.lock();
        loop {
            if let Some(outcome) = ticket.slot.get() {
                return outcome.as_ref().copied().map_err(|e| FailedWait {
                    queue: self,
                    error: Error::clone(e),
                });
            }
            // Invariant: a taken batch's slot is filled before `leader_active` is cleared, so
            // an unfilled slot with no leader means our batch is still the pending one.
            if !st.leader_active {
                st = self.lead(st, write);
            } else {
                self.cond.wait(&mut st);
            }
        }
    }

    /// Queues `req` and, unless it is `AsyncWal`, blocks until its batch was written.
    pub(crate) fn submit(
        &self,
        req: Request<'_>,
        write: &dyn Fn(&Batch) -> Result<()>,
    ) -> Result<()> {
        match self.enqueue(req, None)? {
            None => Ok(()),
            Some(ticket) => self.wait(ticket, write).map_err(|failed| failed.error()),
        }
    }

    /// Takes the pending batch, writes it without the lock, and publishes the outcome.
    fn lead<'a>(
        &'a self,
        mut st: MutexGuard<'a, QueueState>,
        write: &dyn Fn(&Batch) -> Result<()>,
    ) -> MutexGuard<'a, QueueState> {
        let pending = std::mem::replace(&mut st.pending, Pending::new());
        st.leader_active = true;
        drop(st);
        let stepdown = StepDown {
            queue: self,
            slot: Arc::clone(&pending.slot),
            waiters: pending.waiters,
        };
        let outcome = write(&pending.batch).map_err(Arc::new);
        if let Err(e) = &outcome {
            self.fail_queued(pending.waiters, e);
        }
        let _ = stepdown.slot.set(outcome);
        drop(stepdown);
        self.state.lock()
    }

    /// After the batch with `waiters` waiters failed: fails the batch queued behind it too,
    /// and counts every waiter of both as unresolved.
    fn fail_queued(&self, waiters: usize, error: &Arc<Error>) {
        let mut st = self.state.lock();
        let queued = std::mem::replace(&mut st.pending, Pending::new());
        st.failures += 1;
        st.unresolved_failures += waiters + queued.waiters;
        let _ = queued.slot.set(Err(Arc::clone(error)));
    }
}

fn recovering() -> Error {
    Error::TooBusy(
        "a WAL write failed and the writes queued behind it are being undone; retry".into(),
    )
}

/// Clears leadership and wakes everyone, also if the write function panicked, so that
/// followers never wait forever.
struct StepDown<'a> {
    queue: &'a GroupCommit,
    slot: Arc<OnceLock<Outcome>>,
    waiters: usize,
}

impl Drop for StepDown<'_> {
    fn drop(&mut self) {
        if self.slot.get().is_none() {
            // The write function panicked: the leader is unwinding and will never hold a
            // `FailedWait`, so only the other waiters are left to resolve.
            let failed = Arc::new(Error::Closed("the WAL leader failed while writing".into()));
            self.queue
                .fail_queued(self.waiters.saturating_sub(1), &failed);
            let _ = self.slot.set(Err(failed));
        }
        let mut st = self.queue.state.lock();
        st.leader_active = false;
        self.queue.cond.notify_all();
    }
}
