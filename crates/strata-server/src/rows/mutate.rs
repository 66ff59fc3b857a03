//! Mutations: cells of any rows, routed to the regions holding them, each region's share
//! applied atomically (HBase guarantees atomicity per row).
//!
//! A mutation is checked and routed on the table's current state, waits for room in the
//! regions here, and hands each region its share through the region's [`ServingRegion`]
//! (queued here under the rows' locks, or forwarded). Shares a region refused (sealed for
//! a split or merge, or moved) are routed again once the directory publishes where they
//! go; once every share is acknowledged, the regions written here are reported to the
//! splitter.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use strata_engine::{Cell, PendingWrite, Region};

use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::limits::Dialect;
use crate::metrics::Operation;
use crate::names::TableName;
use crate::remote::{Origin, PeerWrite};
use crate::serving::{wait_for_room, ServingRegion, Share};
use crate::table::TableState;
use crate::write_budget::cells_bytes;

impl RowOperations {
    /// Applies `cells` under the size limits of `dialect`.
    pub(crate) fn mutate(
        &self,
        dialect: Dialect,
        table: &TableName,
        cells: Vec<Cell>,
        durability: WriteDurability,
    ) -> Result<()> {
        self.mutate_from(Origin::Client, dialect, table, cells, durability)
    }

    /// [`RowOperations::mutate`] for a client or, served only from regions here, a peer.
    pub(crate) fn mutate_from(
        &self,
        origin: Origin,
        dialect: Dialect,
        table: &TableName,
        cells: Vec<Cell>,
        durability: WriteDurability,
    ) -> Result<()> {
        let _charge = self.charge_write(cells_bytes(&cells))?;
        self.mutate_charged(origin, dialect, table, cells, durability)
    }

    /// HBase's multi-row batch: each row's cells are one atomic mutation, and a row that
    /// fails does not stop the others. The whole batch is charged to the budget of writes
    /// in flight once, for as long as its rows are applied; if it does not fit, nothing is
    /// applied and the error is the outer one. Otherwise each row's outcome, in order.
    pub(crate) fn mutate_each_row(
        &self,
        table: &TableName,
        rows: Vec<Vec<Cell>>,
        durability: WriteDurability,
    ) -> Result<Vec<Result<()>>> {
        let bytes = rows.iter().map(|r| cells_bytes(r)).sum();
        let _charge = self.charge_write(bytes)?;
        Ok(rows
            .into_iter()
            .map(|cells| {
                self.mutate_charged(Origin::Client, Dialect::Hbase, table, cells, durability)
            })
            .collect())
    }

    /// A mutation whose bytes are already charged to the write budget.
    fn mutate_charged(
        &self,
        origin: Origin,
        dialect: Dialect,
        table: &TableName,
        cells: Vec<Cell>,
        durability: WriteDurability,
    ) -> Result<()> {
        let _timer = self.metrics.start(Operation::Mutate, Some(table));
        self.limits.check_cells(&cells, dialect)?;
        // Read before the state: a change published after it wakes a wait below at once.
        let seen = self.directory.changes().count();
        let state = self.route_mutation(table, &cells)?;
        wait_for_room(&state, &cells)?;
        let write = PeerWrite {
            dialect,
            durability,
        };
        let written = self.apply_until_placed(origin, table, (state, seen), cells, write)?;
        self.report_split_candidates(table, written)
    }

    /// The table's current state, if it takes `cells`: enabled, with every family they
    /// name.
    fn route_mutation(&self, table: &TableName, cells: &[Cell]) -> Result<Arc<TableState>> {
        self.directory.table_checked(table, |state| {
            state.check_enabled()?;
            cells.iter().try_for_each(|c| state.check_family(&c.family))
        })
    }

    /// Applies `cells` on the table's `state` (published when the directory's change count
    /// was `seen`), routing what regions refused again on each newer state until every
    /// share is applied or queued, for up to [`super::SEALED_RETRY`]. Answers the shares
    /// queued here, each resolved.
    fn apply_until_placed(
        &self,
        origin: Origin,
        table: &TableName,
        (mut state, mut seen): (Arc<TableState>, u64),
        mut pending: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<Vec<ShareOutcome>> {
        let mut shares = QueuedShares::default();
        let deadline = self.clock.now() + super::SEALED_RETRY;
        while let Some((refused, why)) =
            self.apply_shares(origin, &state, pending, write, &mut shares)?
        {
            // The split or merge flushes the sealed region first, and that flush waits for
            // every queued write to become visible: resolve ours before waiting for it.
            shares.resolve_waiting();
            if !self.wait_to_route_again(origin, &why, seen, deadline) {
                return Err(why);
            }
            pending = refused;
            seen = self.directory.changes().count();
            state = self.directory.table(table)?;
            state.check_enabled()?;
        }
        shares.resolve_waiting();
        Ok(shares.resolved)
    }

    /// Hands each region of `state` its share of `cells`. Answers the cells refused, with
    /// why (the last refusal), when a region refused its share; nothing of a refused share
    /// was applied.
    fn apply_shares(
        &self,
        origin: Origin,
        state: &TableState,
        cells: Vec<Cell>,
        write: PeerWrite,
        shares: &mut QueuedShares,
    ) -> Result<Option<(Vec<Cell>, ServiceError)>> {
        let mut refused = Vec::new();
        let mut why = None;
        for (index, cells) in split_by_region(state, cells) {
            // One share unresolved at a time: queuing the next may wait for memstore room,
            // and the flush that makes room waits for the writes in its snapshot.
            shares.resolve_waiting();
            let region = ServingRegion::of(state, index, origin)?;
            match region.mutate_share(cells, write, &self.row_locks)? {
                Share::Queued(queued) => {
                    shares.waiting = Some(QueuedShare {
                        write: queued.write,
                        region: Arc::clone(queued.region),
                        regions: state.regions.len(),
                    })
                }
                Share::Applied => {}
                Share::Refused(cells, error) => {
                    refused.extend(cells);
                    why = Some(error);
                }
            }
        }
        Ok(why.map(|why| (refused, why)))
    }

    /// Waits until cells refused with `why` may be routed again (see
    /// [`RowOperations::wait_to_retry`]); a peer's request waits only for a sealed region
    /// to be replaced, as the peer decides the rest with its own view. Answers false when
    /// the mutation should fail with `why`.
    fn wait_to_route_again(
        &self,
        origin: Origin,
        why: &ServiceError,
        seen: u64,
        deadline: Instant,
    ) -> bool {
        match origin {
            Origin::Client => self.wait_to_retry(why, seen, deadline),
            Origin::Peer => self.directory.changes().wait(seen, deadline),
        }
    }

    /// Fails with the first share that failed; otherwise reports every region written here
    /// to the splitter, which splits one that outgrew its table's threshold.
    fn report_split_candidates(&self, table: &TableName, written: Vec<ShareOutcome>) -> Result<()> {
        for (outcome, region, regions) in written {
            outcome?;
            self.splitter.after_write(table, &region, regions);
        }
        Ok(())
    }
}

/// A share's outcome, the region here it was queued in, and the table's region count then.
type ShareOutcome = (Result<()>, Arc<Region>, usize);

/// The shares of a mutation queued here: at most one still waiting, and those resolved.
#[derive(Default)]
struct QueuedShares {
    waiting: Option<QueuedShare>,
    resolved: Vec<ShareOutcome>,
}

impl QueuedShares {
    /// Waits for the share still waiting, if any, and keeps its outcome.
    fn resolve_waiting(&mut self) {
        if let Some(share) = self.waiting.take() {
            self.resolved.push(share.wait());
        }
    }
}

/// One region's share of a mutation, queued and not yet acknowledged.
struct QueuedShare {
    write: PendingWrite,
    region: Arc<Region>,
    regions: usize,
}

impl QueuedShare {
    /// Waits for the share; its outcome, region and the table's region count then.
    fn wait(self) -> ShareOutcome {
        let outcome = self.write.wait().map(|_| ()).map_err(Into::into);
        (outcome, self.region, self.regions)
    }
}

/// Groups `cells` by the index in `state` of the region that holds their row.
fn split_by_region(state: &TableState, cells: Vec<Cell>) -> BTreeMap<usize, Vec<Cell>> {
    let mut by_region: BTreeMap<usize, Vec<Cell>> = BTreeMap::new();
    for cell in cells {
        by_region
            .entry(state.region_index_for(&cell.row))
            .or_default()
            .push(cell);
    }
    by_region
}
