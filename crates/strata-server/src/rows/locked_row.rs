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

use std::cell::RefCell;
use std::sync::Arc;

use strata_engine::util::clock::Clock;
use strata_engine::{Cell, Get, Region, RowResult};

use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::limits::Dialect;
use crate::names::TableName;
use crate::remote::{ExpectedReads, Origin, PeerTable, PeerWrite, RegionPeer};
use crate::table::{RegionLocation, TableState};

/// What an operation sees of its row while it holds the row's lock.
pub(crate) struct LockedRow<'a> {
    source: RowSource<'a>,
    row: &'a [u8],
}

/// Where a locked row is read: its region here, or its owner (whose answers are kept, to
/// be checked again under the owner's lock when the write is sent: see `remote/`).
enum RowSource<'a> {
    Local(&'a Arc<Region>),
    Peer {
        peer: &'a Arc<dyn RegionPeer>,
        table: &'a PeerTable,
        reads: &'a RefCell<ExpectedReads>,
        clock: &'a dyn Clock,
    },
}

impl LockedRow<'_> {
    /// Reads the row (`get.row` must be it) including writes queued and not yet durable.
    pub(crate) fn get(&self, get: &Get) -> Result<Option<RowResult>> {
        debug_assert_eq!(get.row.as_ref(), self.row);
        match &self.source {
            RowSource::Local(region) => Ok(region.get_queued(get)?),
            RowSource::Peer {
                peer, table, reads, ..
            } => {
                let answer = peer.get(table, get)?;
                reads.borrow_mut().push((get.clone(), answer.clone()));
                Ok(answer)
            }
        }
    }

    /// The newest cell of one column, queued writes included.
    pub(crate) fn newest_cell(&self, family: &[u8], qualifier: &[u8]) -> Result<Option<Cell>> {
        let get = Get::new(self.row.to_vec()).column(family.to_vec(), qualifier.to_vec());
        Ok(self.get(&get)?.and_then(|r| r.cells.into_iter().next()))
    }

    /// A server timestamp for the write, at least `at_least`: see
    /// [`Region::server_timestamp`].
    pub(crate) fn server_timestamp(&self, at_least: i64) -> i64 {
        match &self.source {
            RowSource::Local(region) => region.server_timestamp(at_least),
            // Callers pass the newest stored timestamp as `at_least`, so a clock behind
            // the owner's cannot hide the write under an older version.
            RowSource::Peer { clock, .. } => clock.now_millis().max(at_least),
        }
    }
}

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
        let region = match &state.regions[index].location {
            RegionLocation::Here(region) => region,
            RegionLocation::Peer(peer) if write.origin == Origin::Client => {
                let peer = Arc::clone(peer);
                return self.with_peer_row(&state, &peer, row, write, op);
            }
            RegionLocation::Peer(_) => return Err(state.regions[index].not_served_here(table)),
        };
        // Room first, as in `mutate.rs`: a wait for a slow flush holds no lock stripe.
        region.wait_for_write_capacity()?;
        let lock = self.row_locks.lock(table, row);
        // Taken before reading: if a WAL write fails after this, what the read saw may
        // never be logged, and the write below is refused instead of building on it.
        let guard = region.failure_guard()?;
        let locked = LockedRow {
            source: RowSource::Local(region),
            row,
        };
        let (cells, answer) = op(&locked)?;
        if cells.is_empty() {
            return Ok(answer);
        }
        self.check_row_write(&state, row, &cells, write)?;
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

    /// [`RowOperations::with_row`] for a row another server serves: reads at the owner,
    /// computes here and sends the write with the reads it was computed from; the owner
    /// applies it only if they still answer the same under its row lock, and otherwise the
    /// operation runs again. The local row lock keeps this server's own operations on the
    /// row from racing each other.
    fn with_peer_row<T>(
        &self,
        state: &TableState,
        peer: &Arc<dyn RegionPeer>,
        row: &[u8],
        write: RowWrite,
        op: &mut impl FnMut(&LockedRow<'_>) -> Result<(Vec<Cell>, T)>,
    ) -> Result<T> {
        let _lock = self.row_locks.lock(&state.name, row);
        let deadline = self.clock.now() + super::SEALED_RETRY;
        let table = state.peer_table();
        loop {
            let reads = RefCell::new(Vec::new());
            let locked = LockedRow {
                source: RowSource::Peer {
                    peer,
                    table: &table,
                    reads: &reads,
                    clock: self.clock.as_ref(),
                },
                row,
            };
            let (cells, answer) = op(&locked)?;
            if cells.is_empty() {
                return Ok(answer);
            }
            self.check_row_write(state, row, &cells, write)?;
            let expected = reads.into_inner();
            let sent = PeerWrite {
                dialect: write.dialect,
                durability: write.durability,
            };
            match peer.mutate_if(&table, row, expected, cells, sent) {
                Ok(true) => return Ok(answer),
                Ok(false) => {}
                // Sent, and no answer: it may have been applied, so it must not run again.
                Err(ServiceError::PeerUnavailable {
                    peer,
                    reason,
                    unsent: false,
                }) => {
                    return Err(ServiceError::Engine(strata_engine::Error::Closed(format!(
                        "{peer} did not answer a read-modify-write ({reason}); it may or may not have been applied"
                    ))))
                }
                Err(e) => return Err(e),
            }
            if self.clock.now() >= deadline {
                return Err(ServiceError::Engine(strata_engine::Error::TooBusy(
                    format!(
                        "row {:?} kept changing under a read-modify-write for {:?}",
                        String::from_utf8_lossy(row),
                        super::SEALED_RETRY
                    ),
                )));
            }
        }
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
