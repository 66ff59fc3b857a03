//! The row locks every row operation takes.

use std::hash::{DefaultHasher, Hash, Hasher};

use parking_lot::{Mutex, MutexGuard};

use crate::names::TableName;

const ROW_LOCK_STRIPES: usize = 256;

/// Striped row locks: two read-modify-writes of the same row (increment, append,
/// check-and-mutate) never interleave, and a plain mutation of the row waits for one in
/// progress, so an increment never overwrites a put that landed between its read and its
/// write. Held only while a write is queued, not while it becomes durable (`locked_row.rs`).
pub struct RowLocks {
    stripes: Vec<Mutex<()>>,
}

impl Default for RowLocks {
    fn default() -> Self {
        RowLocks {
            stripes: (0..ROW_LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }
}

impl RowLocks {
    fn stripe(&self, table: &TableName, row: &[u8]) -> usize {
        let mut h = DefaultHasher::new();
        (table, row).hash(&mut h);
        (h.finish() as usize) % self.stripes.len()
    }

    /// Locks the stripe of (`table`, `row`).
    pub fn lock(&self, table: &TableName, row: &[u8]) -> MutexGuard<'_, ()> {
        self.stripes[self.stripe(table, row)].lock()
    }

    /// Locks the stripes of every row in `rows`, in ascending stripe order so that two
    /// multi-row mutations can never deadlock.
    pub fn lock_all<'a>(
        &self,
        table: &TableName,
        rows: impl Iterator<Item = &'a [u8]>,
    ) -> Vec<MutexGuard<'_, ()>> {
        let mut stripes: Vec<usize> = rows.map(|r| self.stripe(table, r)).collect();
        stripes.sort_unstable();
        stripes.dedup();
        stripes
            .into_iter()
            .map(|i| self.stripes[i].lock())
            .collect()
    }
}
