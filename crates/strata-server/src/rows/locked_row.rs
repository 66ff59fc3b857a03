//! The one primitive every single-row read-modify-write is built on: increment, append,
//! check-and-mutate, Bigtable's CheckAndMutateRow and ReadModifyWriteRow, the embedded
//! API's delete of a column's latest version, and a peer's conditional write.
//!
//! [`RowOperations::with_row`] checks the table and families, takes the row's lock, lets the
//! operation read the row as its queued writes left it and compute the cells to write,
//! queues that write, and releases the lock *before* waiting for the WAL. The next
//! operation on the row then reads the queued value and joins the same group commit, so a
//! hot row is not serialized on WAL syncs (HBase releases its row lock the same way). The
//! region keeps the write invisible until it is durable, and acknowledgements follow WAL
//! order. When a region is sealed for a split or merge, nothing was written and the whole
//! operation runs again on the new region.
//!
//! A row another server serves takes the same path through its [`ServingRegion`]: the
//! reads go to the owner, and the write is sent with them; the owner applies it only if
//! they still answer the same under its row lock, and otherwise the operation runs again
//! (still under this server's lock, which keeps this server's own operations on the row
//! from racing each other).

use std::time::Instant;

use strata_engine::Cell;

use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::limits::Dialect;
use crate::names::TableName;
use crate::remote::{Origin, PeerWrite};
use crate::serving::{LockedRow, RowWritten, ServingRegion};
use crate::table::TableState;

/// How [`RowOperations::with_row`] checks and writes what an operation computed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowWrite {
    pub dialect: Dialect,
    /// What the request asked for; the table's DURABILITY decides `USE_DEFAULT`.
    pub durability: WriteDurability,
    /// Who asked: a request forwarded by a peer is served only from regions here.
    pub origin: Origin,
}

impl RowWrite {
    /// How the write travels to a peer that serves the row.
    fn peer_write(self) -> PeerWrite {
        PeerWrite {
            dialect: self.dialect,
            durability: self.durability,
        }
    }

    /// HBase's size limits, with the table's durability.
    pub(crate) fn hbase() -> Self {
        RowWrite {
            dialect: Dialect::Hbase,
            durability: WriteDurability::UseDefault,
            origin: Origin::Client,
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
        self.retry_sealed(write.origin, || {
            self.with_row_once(table, row, families.clone(), write, &mut op)
        })
    }

    fn with_row_once<'f, T>(
        &self,
        table: &TableName,
        row: &[u8],
        families: impl Iterator<Item = &'f [u8]>,
        write: RowWrite,
        op: &mut impl FnMut(&LockedRow<'_>) -> Result<(Vec<Cell>, T)>,
    ) -> Result<T> {
        let families: Vec<&[u8]> = families.collect();
        let (state, index) = self.directory.route_checked(table, row, |state| {
            families.iter().try_for_each(|f| state.check_family(f))
        })?;
        let region = ServingRegion::of(&state, index, write.origin)?;
        // Room first, as in `mutate.rs`: a wait for a slow flush holds no lock stripe.
        region.wait_for_room()?;
        let lock = self.row_locks.lock(table, row);
        let mut changing_since: Option<Instant> = None;
        loop {
            let locked = region.lock_row(row, self.clock.as_ref())?;
            let (cells, answer) = op(&locked)?;
            if cells.is_empty() {
                return Ok(answer);
            }
            self.check_row_write(&state, row, &cells, write)?;
            match locked.write(cells, write.peer_write())? {
                RowWritten::Queued(queued) => {
                    if queued.write.meets_durability() {
                        // Nothing to wait for (ASYNC_WAL or SKIP_WAL): becoming visible
                        // under the lock spares the row's next operation a wait for this one.
                        queued.write.wait()?;
                        drop(lock);
                    } else {
                        drop(lock);
                        queued.write.wait()?;
                    }
                    self.splitter
                        .after_write(table, queued.region, state.regions.len());
                    return Ok(answer);
                }
                RowWritten::Applied => return Ok(answer),
                RowWritten::Changed => {
                    let since = *changing_since.get_or_insert_with(|| self.clock.now());
                    self.check_still_changing(row, since)?;
                }
            }
        }
    }

    /// Fails once a row written elsewhere kept changing under the operation for
    /// [`super::SEALED_RETRY`] since `since`.
    fn check_still_changing(&self, row: &[u8], since: Instant) -> Result<()> {
        if self.clock.now() < since + super::SEALED_RETRY {
            return Ok(());
        }
        Err(ServiceError::Engine(strata_engine::Error::TooBusy(
            format!(
                "row {:?} kept changing under a read-modify-write for {:?}",
                String::from_utf8_lossy(row),
                super::SEALED_RETRY
            ),
        )))
    }

    /// What every single-row write is checked for before it is applied.
    fn check_row_write(
        &self,
        state: &TableState,
        row: &[u8],
        cells: &[Cell],
        write: RowWrite,
    ) -> Result<()> {
        self.limits.check_cells(cells, write.dialect)?;
        for cell in cells {
            state.check_family(&cell.family)?;
            if cell.row.as_ref() != row {
                return Err(ServiceError::InvalidArgument(
                    "a row operation must write only the row it read".into(),
                ));
            }
        }
        Ok(())
    }
}
