//! The count of published table changes, which writers that met a region sealed by a split
//! or merge wait on instead of polling.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use strata_runtime::clock::Clock;

/// Counts publications of table states and unsealed regions. Read without a lock on every
/// write (`count`); changed only under `lock`, which waiters hold while they check it, so
/// no wake-up is missed.
pub(crate) struct TableChanges {
    count: AtomicU64,
    lock: Mutex<()>,
    changed: Condvar,
    clock: Arc<dyn Clock>,
}

impl TableChanges {
    /// No change yet; `clock` measures the waits' deadlines.
    pub(super) fn new(clock: Arc<dyn Clock>) -> TableChanges {
        TableChanges {
            count: AtomicU64::new(0),
            lock: Mutex::new(()),
            changed: Condvar::new(),
            clock,
        }
    }

    /// The number of table changes published so far; pass it to `wait`.
    pub(crate) fn count(&self) -> u64 {
        self.count.load(Ordering::Acquire)
    }

    /// Waits until a table change is published after `seen` (see `count`), or until
    /// `deadline` on the directory's clock. Answers whether one was.
    pub(crate) fn wait(&self, seen: u64, deadline: Instant) -> bool {
        let mut lock = self.lock.lock();
        while self.count.load(Ordering::Acquire) == seen {
            let Some(left) = deadline.checked_duration_since(self.clock.now()) else {
                return false;
            };
            // A bounded wait also covers a clock that is not the system's (tests).
            let step = left.min(Duration::from_millis(100));
            self.changed.wait_for(&mut lock, step);
        }
        true
    }

    /// Wakes writers waiting for a table change (also after regions were unsealed).
    pub(super) fn note(&self) {
        let _lock = self.lock.lock();
        self.count.fetch_add(1, Ordering::AcqRel);
        self.changed.notify_all();
    }
}
