//! Row operations: mutations routed to regions by row, point reads, and atomic increments.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use parking_lot::{Mutex, MutexGuard};
use strata_engine::{Cell, Durability, Get, RowResult};

use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::service::Service;

const ROW_LOCK_STRIPES: usize = 256;

/// Striped row locks for read-modify-write operations (increment, append, check-and-mutate):
/// two of them on the same row never interleave. Plain mutations need no lock; the region's
/// MVCC already makes each one atomic.
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
    /// Locks the stripe of (`table`, `row`).
    pub fn lock(&self, table: &TableName, row: &[u8]) -> MutexGuard<'_, ()> {
        let mut h = DefaultHasher::new();
        (table, row).hash(&mut h);
        let idx = (h.finish() as usize) % self.stripes.len();
        self.stripes[idx].lock()
    }
}

impl Service {
    /// Applies `cells` (one region's share atomically; HBase guarantees atomicity per row).
    pub fn mutate(
        &self,
        table: &TableName,
        cells: Vec<Cell>,
        durability: Durability,
    ) -> Result<()> {
        let state = self.table(table)?;
        state.check_enabled()?;
        for cell in &cells {
            state.check_family(&cell.family)?;
        }
        let mut by_region: BTreeMap<usize, Vec<Cell>> = BTreeMap::new();
        for cell in cells {
            let idx = state
                .regions
                .partition_point(|r| r.entry.start_key.as_ref() <= cell.row.as_ref());
            by_region
                .entry(idx.saturating_sub(1))
                .or_default()
                .push(cell);
        }
        for (idx, cells) in by_region {
            if let Some(region) = state.regions.get(idx) {
                region.region.mutate(cells, durability)?;
            }
        }
        Ok(())
    }

    /// Reads one row; `None` when nothing in it is visible.
    pub fn get(&self, table: &TableName, get: &Get) -> Result<Option<RowResult>> {
        let state = self.table(table)?;
        state.check_enabled()?;
        for family in get.columns.keys() {
            state.check_family(family)?;
        }
        Ok(state.region_for(&get.row).region.get(get)?)
    }

    /// Atomically adds `amount` to the 8-byte big-endian counter in a cell (a missing cell
    /// counts as 0) and returns the new value. Like HBase: the sum wraps on overflow, the new
    /// version's timestamp is max(now, previous + 1), and a value that is not 8 bytes wide
    /// is an error.
    pub fn increment(
        &self,
        table: &TableName,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let state = self.table(table)?;
        state.check_enabled()?;
        state.check_family(family)?;
        let _row = self.row_locks.lock(table, row);
        let region = &state.region_for(row).region;
        let current =
            region.get(&Get::new(row.to_vec()).column(family.to_vec(), qualifier.to_vec()))?;
        let cell = current.and_then(|r| r.cells.into_iter().next());
        let (value, previous_ts) = match &cell {
            None => (0, i64::MIN),
            Some(c) => {
                let bytes: [u8; 8] = c.value.as_ref().try_into().map_err(|_| {
                    ServiceError::InvalidArgument(format!(
                        "field is not 64 bits wide: the current value has {} bytes",
                        c.value.len()
                    ))
                })?;
                (i64::from_be_bytes(bytes), c.timestamp)
            }
        };
        let new_value = value.wrapping_add(amount);
        let now = self.options.engine.clock.now_millis();
        let ts = now.max(previous_ts.saturating_add(1));
        let put = Cell::put(
            row.to_vec(),
            family.to_vec(),
            qualifier.to_vec(),
            ts,
            new_value.to_be_bytes().to_vec(),
        );
        region.mutate(vec![put], Durability::SyncWal)?;
        Ok(new_value)
    }
}
