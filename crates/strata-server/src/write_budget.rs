//! The bytes of writes in flight: accepted by an API, not yet in a memstore.
//!
//! Why: when writes arrive faster than flushes drain the memstores, each write waits for
//! room (up to the engine's write wait) while holding its cells, and under many connections
//! those waiting writes add up to more memory than the memstore limit itself (the overload
//! test measured ~12 MiB more RSS per concurrent writer). Charging every put and delete
//! mutation (`Rows::mutate`, `Rows::mutate_each_row`) to one budget before it may
//! wait, and refusing it as "too busy" when the budget is spent, keeps the waiting memory
//! bounded whatever the number of connections, as HBase's call-queue size limit does
//! (`hbase.ipc.server.max.callqueue.size`, which answers CallQueueTooBigException). The
//! refusal is immediate, so its memory is freed at once and the client may retry.
//! Read-modify-writes (check-and-mutate, increment, append, gRPC rows with deletes) are not
//! charged: one row each, built under its row lock.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use strata_engine::Cell;

/// Bookkeeping bytes counted per cell on top of its key and value (the engine's cell
/// struct and key encoding).
const CELL_OVERHEAD: usize = 64;

/// The shared budget of bytes that writes in flight may hold.
#[derive(Debug)]
pub struct WriteBudget {
    capacity: usize,
    in_flight: Arc<AtomicUsize>,
}

/// A write's share of the budget, returned when dropped.
#[derive(Debug)]
pub struct WriteCharge {
    bytes: usize,
    in_flight: Arc<AtomicUsize>,
}

impl Drop for WriteCharge {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// What a batch of cells is charged.
pub fn cells_bytes(cells: &[Cell]) -> usize {
    cells
        .iter()
        .map(|c| c.row.len() + c.family.len() + c.qualifier.len() + c.value.len() + CELL_OVERHEAD)
        .sum()
}

impl WriteBudget {
    pub fn new(capacity: usize) -> Self {
        WriteBudget {
            capacity,
            in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The bytes writes in flight hold now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Charges `bytes`, or `None` when that would go over the capacity. A write larger than
    /// the whole budget still goes through when nothing else is in flight, so no single
    /// request is refused forever (its size has its own limits).
    pub fn try_charge(&self, bytes: usize) -> Option<WriteCharge> {
        let mut current = self.in_flight.load(Ordering::Acquire);
        loop {
            let next = current.saturating_add(bytes);
            if next > self.capacity && current > 0 {
                return None;
            }
            match self.in_flight.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    return Some(WriteCharge {
                        bytes,
                        in_flight: Arc::clone(&self.in_flight),
                    })
                }
                Err(actual) => current = actual,
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // these tests race real threads in real time
mod tests {
    use super::*;

    #[test]
    fn charges_are_refused_past_the_capacity_and_returned_on_drop() {
        let budget = WriteBudget::new(100);
        let a = budget.try_charge(60).unwrap();
        assert!(budget.try_charge(41).is_none());
        let b = budget.try_charge(40).unwrap();
        assert_eq!(budget.in_flight(), 100);
        drop(a);
        assert_eq!(budget.in_flight(), 40);
        assert!(budget.try_charge(61).is_none());
        drop(b);
        assert_eq!(budget.in_flight(), 0);
    }

    #[test]
    fn one_write_larger_than_the_budget_passes_alone() {
        let budget = WriteBudget::new(100);
        let big = budget.try_charge(500).unwrap();
        assert!(budget.try_charge(1).is_none());
        drop(big);
        assert!(budget.try_charge(1).is_some());
    }

    #[test]
    fn concurrent_charges_never_exceed_the_capacity() {
        let budget = Arc::new(WriteBudget::new(1000));
        let peak = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (budget, peak) = (Arc::clone(&budget), Arc::clone(&peak));
                std::thread::spawn(move || {
                    for _ in 0..2000 {
                        if let Some(charge) = budget.try_charge(300) {
                            peak.fetch_max(budget.in_flight(), Ordering::AcqRel);
                            drop(charge);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(peak.load(Ordering::Acquire) <= 1000);
        assert_eq!(budget.in_flight(), 0);
    }
}
