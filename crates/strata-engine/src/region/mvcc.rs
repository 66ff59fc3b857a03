//! Multi-version concurrency control for one region: writes become visible in sequence-id
//! order, all at once per write batch, so a reader never sees part of a row mutation.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex};

/// Tracks in-flight writes of a region and the read point they allow.
#[derive(Debug)]
pub struct Mvcc {
    /// Sequence ids begun and not yet visible, in begin order, with their done flag.
    pending: Mutex<VecDeque<(u64, bool)>>,
    read_point: AtomicU64,
    advanced: Condvar,
}

impl Mvcc {
    /// An MVCC whose read point starts at `read_point` (every older write is visible).
    pub fn new(read_point: u64) -> Self {
        Mvcc {
            pending: Mutex::new(VecDeque::new()),
            read_point: AtomicU64::new(read_point),
            advanced: Condvar::new(),
        }
    }

    /// The highest sequence id a new read may see.
    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::Acquire)
    }

    /// The oldest sequence id begun and not yet visible: a write that may be logged but not
    /// yet in a memstore.
    pub fn oldest_pending(&self) -> Option<u64> {
        self.pending.lock().front().map(|&(seq, _)| seq)
    }

    /// Starts a write: `allocate` hands out the sequence id while the queue is locked, so
    /// ids enter the queue in increasing order.
    pub fn begin(&self, allocate: impl FnOnce() -> u64) -> u64 {
        let mut pending = self.pending.lock();
        let seq = allocate();
        pending.push_back((seq, false));
        seq
    }

    /// Marks `seq` finished (applied or abandoned) and advances the read point past every
    /// finished write at the head of the queue.
    pub fn complete(&self, seq: u64) {
        let mut pending = self.pending.lock();
        if let Some(entry) = pending.iter_mut().find(|(s, _)| *s == seq) {
            entry.1 = true;
        }
        let mut advanced_to = None;
        while let Some(&(s, true)) = pending.front() {
            advanced_to = Some(s);
            pending.pop_front();
        }
        if let Some(s) = advanced_to {
            self.read_point.fetch_max(s, Ordering::AcqRel);
            self.advanced.notify_all();
        }
    }

    /// Completes `seq` and waits until it is visible, so a writer reads its own write.
    pub fn complete_and_wait(&self, seq: u64) {
        self.complete(seq);
        self.wait_until_visible(seq);
    }

    /// Waits until the read point reaches `seq`: every write up to it is finished.
    pub fn wait_until_visible(&self, seq: u64) {
        let mut pending = self.pending.lock();
        while self.read_point() < seq {
            self.advanced.wait(&mut pending);
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // these tests race real threads in real time
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn read_point_waits_for_earlier_writes() {
        let mvcc = Mvcc::new(0);
        let mut next = 0;
        let a = mvcc.begin(|| {
            next += 1;
            next
        });
        let b = mvcc.begin(|| {
            next += 1;
            next
        });
        mvcc.complete(b);
        assert_eq!(
            mvcc.read_point(),
            0,
            "b must stay invisible while a is in flight"
        );
        mvcc.complete(a);
        assert_eq!(mvcc.read_point(), b);
    }

    #[test]
    fn complete_and_wait_returns_once_visible() {
        let mvcc = Arc::new(Mvcc::new(10));
        let a = mvcc.begin(|| 11);
        let b = mvcc.begin(|| 12);
        let m2 = Arc::clone(&mvcc);
        let waiter = std::thread::spawn(move || {
            m2.complete_and_wait(b);
            m2.read_point()
        });
        std::thread::sleep(std::time::Duration::from_millis(20));
        mvcc.complete(a);
        assert_eq!(waiter.join().unwrap(), 12);
    }
}
