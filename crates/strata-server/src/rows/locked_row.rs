//! The one primitive every single-row read-modify-write is built on: increment, append,
//! check-and-mutate, Bigtable's CheckAndMutateRow and ReadModifyWriteRow, and the embedded
//! API's delete of a column's latest version.
//!
//! [`RowOperations::with_row`] checks the table and families, takes the row's lock, lets the
//! operation read the row as its queued writes left it and compute the cells to write,
//! queues that write, and releases the lock *before* waiting for the WAL. The next
//! operation on the row then reads the queued value and joins the same group commit, so a
//! hot row is not serialized on WAL syncs (HBase releases its row lock the same way). The
//! region keeps the write invisible until it is durable, and acknowledgements follow WAL
//! order. When a region is sealed for a split or merge, nothing was written and the whole
//! operation runs again on the new region.

use std::sync::Arc;

use strata_engine::{Cell, Get, Region, RowResult};

use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::limits::Dialect;
use crate::names::TableName;

/// What an operation sees of its row while it holds the row's lock.
pub(crate) struct LockedRow<'a> {
    region: &'a Arc<Region>,
    row: &'a [u8],
}

impl LockedRow<'_> {
    /// Reads the row (`get.row` must be it) including writes queued and not yet durable.
    pub(crate) fn get(&self, get: &Get) -> Result<Option<RowResult>> {
        debug_assert_eq!(get.row.as_ref(), self.row);
        Ok(self.region.get_queued(get)?)
    }

    /// The newest cell of one column, queued writes included.
    pub(crate) fn newest_cell(&self, family: &[u8], qualifier: &[u8]) -> Result<Option<Cell>> {
        let get = Get::new(self.row.to_vec()).column(family.to_vec(), qualifier.to_vec());
        Ok(self.get(&get)?.and_then(|r| r.cells.into_iter().next()))
    }

    /// A server timestamp for the write, at least `at_least`: see
    /// [`Region::server_timestamp`].
    pub(crate) fn server_timestamp(&self, at_least: i64) -> i64 {
        self.region.server_timestamp(at_least)
    }
}

/// How [`RowOperations::with_row`] checks and writes what an operation computed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowWrite {
    pub dialect: Dialect,
    /// What the request asked for; the table's DURABILITY decides `USE_DEFAULT`.
    pub durability: WriteDurability,
}

impl RowWrite {
    /// HBase's size limits, with the table's durability.
    pub(crate) fn hbase() -> Self {
        RowWrite {
            dialect: Dialect::Hbase,
            durability: WriteDurability::UseDefault,
        }
    }
}

impl RowOperations {
    /// Runs `op` on `row` of `table` under the row's lock and writes the cells it returns
    /// (all in `row`; none writes nothing) as one atomic mutation; returns `op`'s answer once
    /// that write is durable and visible. `families` are checked to exist first. `op` may run
    /// more than once (see the module comment), so it must not have other side effects.
    pub(crate) fn with_row<'f, T>(
        &self,
        table: &TableName,
        row: &[u8],
        families: impl Iterator<Item = &'f [u8]> + Clone,
        write: RowWrite,
        mut op: impl FnMut(&LockedRow<'_>) -> Result<(Vec<Cell>, T)>,
    ) -> Result<T> {
        self.retry_sealed(|| self.with_row_once(table, row, families.clone(), write, &mut op))
    }

    fn with_row_once<'f, T>(
        &self,
        table: &TableName,
        row: &[u8],
        families: impl Iterator<Item = &'f [u8]>,
        write: RowWrite,
        op: &mut impl FnMut(&LockedRow<'_>) -> Result<(Vec<Cell>, T)>,
    ) -> Result<T> {
        let (state, index) = self.directory.route(table, row)?;
        for family in families {
            state.check_family(family)?;
        }
        let region = &state.regions[index].region;
        let lock = self.row_locks.lock(table, row);
        // Taken before reading: if a WAL write fails after this, what the read saw may
        // never be logged, and the write below is refused instead of building on it.
        let guard = region.failure_guard()?;
        let (cells, answer) = op(&LockedRow { region, row })?;
        if cells.is_empty() {
            return Ok(answer);
        }
        self.limits.check_cells(&cells, write.dialect)?;
        for cell in &cells {
            state.check_family(&cell.family)?;
            if cell.row.as_ref() != row {
                return Err(ServiceError::InvalidArgument(
                    "a row operation must write only the row it read".into(),
                ));
            }
        }
        let durability = state.durability_for(write.durability);
        let pending = region.mutate_queued(cells, durability, Some(guard))?;
        if pending.meets_durability() {
            // Nothing to wait for (ASYNC_WAL or SKIP_WAL): becoming visible under the lock
            // spares the row's next operation a wait for this one.
            pending.wait()?;
            drop(lock);
        } else {
            drop(lock);
            pending.wait()?;
        }
        self.splitter
            .after_write(table, region, state.regions.len());
        Ok(answer)
    }
}
