//! YCSB's acknowledged counter: inserts take the next record number, and readers only choose
//! numbers up to the highest one below which every insert has finished, so a read never asks
//! for a record whose insert is still in flight.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

#[derive(Debug)]
pub struct AcknowledgedCounter {
    next: AtomicU64,
    /// (highest contiguously acknowledged number, acknowledged numbers above it)
    done: Mutex<(u64, BTreeSet<u64>)>,
}

impl AcknowledgedCounter {
    /// Records `0..start` exist; the next insert gets `start`. `start` must be at least 1.
    pub fn new(start: u64) -> Self {
        AcknowledgedCounter {
            next: AtomicU64::new(start),
            done: Mutex::new((start.saturating_sub(1), BTreeSet::new())),
        }
    }

    /// The number for a new insert.
    pub fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Marks the insert of `n` finished.
    pub fn acknowledge(&self, n: u64) {
        let mut done = self.done.lock();
        let (limit, pending) = &mut *done;
        pending.insert(n);
        while pending.remove(&(*limit + 1)) {
            *limit += 1;
        }
    }

    /// The newest record every reader may use.
    pub fn last(&self) -> u64 {
        self.done.lock().0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_only_advances_over_contiguous_acknowledgements() {
        let c = AcknowledgedCounter::new(10);
        assert_eq!(c.last(), 9);
        let (a, b) = (c.next(), c.next());
        assert_eq!((a, b), (10, 11));
        c.acknowledge(b);
        assert_eq!(c.last(), 9);
        c.acknowledge(a);
        assert_eq!(c.last(), 11);
    }
}
