//! Group commit: concurrent writers share one write and one flush or sync.
//!
//! A writer adds its encoded record to the pending batch. If no leader is active it becomes
//! the leader: it takes the whole pending batch, writes it with the lock released, and
//! publishes the outcome in the batch's slot. Writers that joined that batch (followers)
//! wait on the condvar until the slot is filled; writers that arrived during the write form
//! the next batch, and one of them leads it once the current leader steps down.

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

struct Pending {
    batch: Batch,
    slot: Arc<OnceLock<Outcome>>,
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
        }
    }
}

struct QueueState {
    pending: Pending,
    leader_active: bool,
    closed: bool,
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

    /// Queues `req` and, unless it is `AsyncWal`, blocks until its batch was written with at
    /// least its durability. `write` runs on whichever caller leads the batch.
    pub(crate) fn submit(
        &self,
        req: Request<'_>,
        write: &dyn Fn(&Batch) -> Result<()>,
    ) -> Result<()> {
        let mut st = self.state.lock();
        if st.closed && !req.internal {
            return Err(Error::Closed("the WAL is closed".into()));
        }
        let batch = &mut st.pending.batch;
        batch.bytes.extend_from_slice(req.record);
        batch.durability = batch.durability.max(req.durability);
        batch.max_seq = batch.max_seq.max(req.seq);
        if req.durability == Durability::AsyncWal && batch.bytes.len() < ASYNC_BACKLOG_LIMIT {
            return Ok(());
        }
        let slot = Arc::clone(&st.pending.slot);
        loop {
            if let Some(outcome) = slot.get() {
                return outcome.as_ref().map_err(|e| duplicate_error(e)).copied();
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
        };
        let outcome = write(&pending.batch).map_err(Arc::new);
        let _ = stepdown.slot.set(outcome);
        drop(stepdown);
        self.state.lock()
    }
}

/// Clears leadership and wakes everyone, also if the write function panicked, so that
/// followers never wait forever.
struct StepDown<'a> {
    queue: &'a GroupCommit,
    slot: Arc<OnceLock<Outcome>>,
}

impl Drop for StepDown<'_> {
    fn drop(&mut self) {
        let failed = Arc::new(Error::Closed("the WAL leader failed while writing".into()));
        let _ = self.slot.set(Err(failed));
        let mut st = self.queue.state.lock();
        st.leader_active = false;
        self.queue.cond.notify_all();
    }
}

/// Every member of a failed batch gets its own copy of the leader's error (`Error` is not
/// `Clone` because `io::Error` is not).
pub(crate) fn duplicate_error(e: &Error) -> Error {
    match e {
        Error::Io { path, source } => Error::io(
            path.clone(),
            std::io::Error::new(source.kind(), source.to_string()),
        ),
        Error::Corruption {
            path,
            offset,
            reason,
        } => Error::corruption(path.clone(), *offset, reason.clone()),
        Error::InvalidArgument(m) => Error::InvalidArgument(m.clone()),
        Error::TooBusy(m) => Error::TooBusy(m.clone()),
        Error::Closed(m) => Error::Closed(m.clone()),
        Error::NotFound(m) => Error::NotFound(m.clone()),
    }
}
