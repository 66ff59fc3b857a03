//! The bytes of requests being received: read off a connection, not yet answered.
//!
//! Why: a request's bytes are held from its first byte until its reply is written (the
//! decoded request points into them). Without a bound, that memory grows with the number of
//! connections times the largest request (16 MiB for Thrift), whatever the memstore and
//! write limits say; the overload test measured ~38 MiB of it with 12 writers of 1 MiB
//! batches. A reader charges a request's bytes here *before* reading them, and waits while
//! the budget is spent: the client's socket then fills and its sends block, which is
//! backpressure, and no memory is used for the wait.
//!
//! Waiting for part of a request while holding the rest could deadlock (every reader holding
//! half a request, none able to finish). So the *oldest* request being received may always
//! go over the capacity: it finishes, frees its bytes, and the next oldest proceeds. The
//! budget can therefore be exceeded by at most one request. A request's charge starts at
//! its first byte, so an idle connection is never the oldest. The bytes of a connection's
//! first read (8 KiB at most for Thrift) are charged without waiting: they are already in
//! memory, and most requests fit in them whole, so small reads never queue behind large
//! writes.

use std::collections::BTreeSet;
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::sync::Notify;

/// The shared budget of bytes that requests being received and served may hold.
#[derive(Debug, Clone)]
pub struct RequestBudget {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    capacity: usize,
    state: Mutex<State>,
    /// Signalled whenever bytes are returned or the oldest request changes.
    freed: Notify,
}

#[derive(Debug, Default)]
struct State {
    in_flight: usize,
    next_ticket: u64,
    /// Tickets of the requests being received or served, oldest first.
    open: BTreeSet<u64>,
}

/// One request's share of the budget, returned when dropped.
#[derive(Debug)]
pub struct RequestCharge {
    shared: Arc<Shared>,
    ticket: u64,
    bytes: usize,
}

impl RequestBudget {
    pub fn new(capacity: usize) -> Self {
        RequestBudget {
            shared: Arc::new(Shared {
                capacity,
                state: Mutex::new(State::default()),
                freed: Notify::new(),
            }),
        }
    }

    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }

    /// The bytes charged to requests now.
    pub fn in_flight(&self) -> usize {
        self.shared.state.lock().in_flight
    }

    /// Starts charging a request that has begun to arrive; it holds nothing yet.
    pub fn start(&self) -> RequestCharge {
        let mut state = self.shared.state.lock();
        let ticket = state.next_ticket;
        state.next_ticket += 1;
        state.open.insert(ticket);
        RequestCharge {
            shared: Arc::clone(&self.shared),
            ticket,
            bytes: 0,
        }
    }
}

impl RequestCharge {
    /// The bytes this request holds.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Raises this request's charge to `total` bytes (no-op if it holds that much already),
    /// waiting until they fit in the budget or this is the oldest request being received.
    pub async fn grow_to(&mut self, total: usize) {
        let shared = Arc::clone(&self.shared);
        while total > self.bytes {
            let freed = shared.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so a release between the check and the await
            // still wakes this waiter.
            freed.as_mut().enable();
            if self.try_grow_to(total) {
                return;
            }
            freed.await;
        }
    }

    /// Raises this request's charge to `total` bytes at once, over the capacity if need be:
    /// for bytes already in memory (a connection's first read), where waiting would free
    /// nothing and would only hold small requests up behind large ones.
    pub fn grow_to_now(&mut self, total: usize) {
        if total > self.bytes {
            self.shared.state.lock().in_flight += total - self.bytes;
            self.bytes = total;
        }
    }

    /// Sets this request's charge to `total` bytes at once, up or down: for a request whose
    /// bytes were replaced by another form of about the same size (a transcoding), so the
    /// charge stays what is in memory without waiting for what is already there.
    pub fn set_now(&mut self, total: usize) {
        if total >= self.bytes {
            self.grow_to_now(total);
            return;
        }
        self.shared.state.lock().in_flight -= self.bytes - total;
        self.bytes = total;
        self.shared.freed.notify_waiters();
    }

    fn try_grow_to(&mut self, total: usize) -> bool {
        let mut state = self.shared.state.lock();
        let extra = total - self.bytes;
        let fits = state.in_flight.saturating_add(extra) <= self.shared.capacity;
        let oldest = state.open.first() == Some(&self.ticket);
        if !fits && !oldest {
            return false;
        }
        state.in_flight += extra;
        self.bytes = total;
        true
    }
}

impl Drop for RequestCharge {
    fn drop(&mut self) {
        {
            let mut state = self.shared.state.lock();
            state.in_flight -= self.bytes;
            state.open.remove(&self.ticket);
        }
        self.shared.freed.notify_waiters();
    }
}

#[cfg(test)]
mod tests;
