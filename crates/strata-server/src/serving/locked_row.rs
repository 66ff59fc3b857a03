//! A read-modify-write of one row, on either side: [`ServingRegion::lock_row`] gives the
//! operation its view of the row, and [`LockedRow::write`] writes what it computed.
//! Here the write is queued in the region, refused if a WAL write failed since the row was
//! read. Elsewhere the reads are kept and sent with the write (`mutate_if`): the owner
//! applies it only if they still answer the same under its row lock (see `remote/`).

use std::cell::RefCell;
use std::sync::Arc;

use strata_engine::{Cell, FailureGuard, Get, Region, RowResult};
use strata_runtime::clock::Clock;

use super::{QueuedWrite, Reach, ServingRegion};
use crate::error::{Result, ServiceError};
use crate::remote::{ExpectedReads, PeerTable, PeerWrite, RegionPeer};
use crate::table::TableState;

/// What an operation sees of its row while it holds the row's lock.
pub(crate) struct LockedRow<'a> {
    source: RowSource<'a>,
    row: &'a [u8],
}

/// Where a locked row is read.
enum RowSource<'a> {
    Local {
        region: &'a Arc<Region>,
        /// Resolves the write's durability with the table's.
        state: &'a TableState,
        /// Taken before reading: if a WAL write fails after this, what the read saw may
        /// never be logged, and the write is refused instead of building on it.
        guard: FailureGuard,
    },
    Peer {
        peer: &'a Arc<dyn RegionPeer>,
        table: PeerTable,
        /// Every read and its answer, to be checked again by the owner.
        reads: RefCell<ExpectedReads>,
        clock: &'a dyn Clock,
    },
}

/// What became of a read-modify-write's cells.
pub(crate) enum RowWritten<'a> {
    /// Queued here.
    Queued(QueuedWrite<'a>),
    /// Applied by the row's owner.
    Applied,
    /// Refused by the owner: the row changed since it was read. Nothing was written; the
    /// operation runs again.
    Changed,
}

impl LockedRow<'_> {
    /// Reads the row (`get.row` must be it) including writes queued and not yet durable.
    pub(crate) fn get(&self, get: &Get) -> Result<Option<RowResult>> {
        debug_assert_eq!(get.row.as_ref(), self.row);
        match &self.source {
            RowSource::Local { region, .. } => Ok(region.get_queued(get)?),
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
            RowSource::Local { region, .. } => region.server_timestamp(at_least),
            // Callers pass the newest stored timestamp as `at_least`, so a clock behind
            // the owner's cannot hide the write under an older version.
            RowSource::Peer { clock, .. } => clock.now_millis().max(at_least),
        }
    }
}

impl<'a> ServingRegion<'a> {
    /// The operation's view of `row`, which the caller has locked. `clock` gives a row
    /// served elsewhere its server timestamps.
    pub(crate) fn lock_row<'r>(
        &'r self,
        row: &'r [u8],
        clock: &'r dyn Clock,
    ) -> Result<LockedRow<'r>> {
        let source = match &self.reach {
            Reach::Here(region) => RowSource::Local {
                region,
                state: self.state,
                guard: region.failure_guard()?,
            },
            Reach::Peer(peer) => RowSource::Peer {
                peer,
                // Once per attempt: a second one follows only a refused write.
                table: self.state.peer_table(),
                reads: RefCell::new(Vec::new()),
                clock,
            },
        };
        Ok(LockedRow { source, row })
    }
}

impl<'r> LockedRow<'r> {
    /// Writes `cells` (all in the row, checked by the caller) as one atomic mutation,
    /// built on what was read.
    pub(crate) fn write(self, cells: Vec<Cell>, write: PeerWrite) -> Result<RowWritten<'r>> {
        match self.source {
            RowSource::Local {
                region,
                state,
                guard,
            } => {
                let durability = state.durability_for(write.durability);
                let write = region.mutate_queued(cells, durability, Some(guard))?;
                Ok(RowWritten::Queued(QueuedWrite { write, region }))
            }
            RowSource::Peer {
                peer, table, reads, ..
            } => {
                let expected = reads.into_inner();
                match peer.mutate_if(&table, self.row, expected, cells, write) {
                    Ok(true) => Ok(RowWritten::Applied),
                    Ok(false) => Ok(RowWritten::Changed),
                    // Sent, and no answer: it may have been applied, so it must not run
                    // again (an increment would count twice).
                    Err(ServiceError::PeerUnavailable {
                        peer,
                        reason,
                        unsent: false,
                    }) => Err(ServiceError::Engine(strata_engine::Error::Closed(format!(
                        "{peer} did not answer a read-modify-write ({reason}); it may or may not have been applied"
                    )))),
                    Err(e) => Err(e),
                }
            }
        }
    }
}
