//! Mutations: cells of any rows, routed to the regions holding them, each region's share
//! applied atomically (HBase guarantees atomicity per row).

use std::collections::BTreeMap;
use std::sync::Arc;

use strata_engine::{Cell, PendingWrite, Region};

use super::RowOperations;
use crate::durability::WriteDurability;
use crate::error::{Result, ServiceError};
use crate::limits::Dialect;
use crate::metrics::Operation;
use crate::names::TableName;
use crate::remote::{Origin, PeerWrite};
use crate::table::{OpenRegion, RegionLocation, TableState};
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
        let mut seen = self.directory.change_count();
        let mut state = self.directory.table_checked(table, |state| {
            state.check_enabled()?;
            cells.iter().try_for_each(|c| state.check_family(&c.family))
        })?;
        wait_for_room(&state, &cells)?;
        let mut queued: Option<QueuedShare> = None;
        let mut outcomes = Vec::new();
        let mut pending = cells;
        let deadline = self.clock.now() + super::SEALED_RETRY;
        loop {
            // A share refused by a region being split or merged (or, forwarded, by a peer
            // that no longer serves it) was not applied; it is routed again on the table's
            // new regions once the directory publishes them.
            let mut refused = Vec::new();
            let mut moving = None;
            for (open, cells) in split_by_region(&state, pending).into_values() {
                // One share unresolved at a time: queuing the next may wait for memstore
                // room, and the flush that makes room waits for the writes in its snapshot.
                outcomes.extend(queued.take().map(QueuedShare::wait));
                let region = match &open.location {
                    RegionLocation::Here(region) => region,
                    RegionLocation::Peer(_) if origin == Origin::Peer => {
                        return Err(open.not_served_here(table))
                    }
                    RegionLocation::Peer(peer) => {
                        let write = PeerWrite {
                            dialect,
                            durability,
                        };
                        match peer.mutate(&state.peer_table(), cells.clone(), write) {
                            Ok(()) => {}
                            // Not served there (any more), or the peer is gone: sent again
                            // once the region is placed. A put sent twice leaves the same
                            // cells (HBase's clients retry puts the same way).
                            Err(
                                e @ (ServiceError::NotServingRegion { .. }
                                | ServiceError::PeerUnavailable { .. }),
                            ) => {
                                refused.extend(cells);
                                moving = Some(e);
                            }
                            Err(e) => return Err(e),
                        }
                        continue;
                    }
                };
                // Row locks make plain writes wait for a read-modify-write of the same row,
                // as in HBase, so an increment never overwrites a put that landed between its
                // read and its write. They are taken per share, only for rows served here,
                // and held only while the share is queued (`locked_row.rs`): never while a
                // peer applies its share or an earlier share becomes durable.
                let _locks = self
                    .row_locks
                    .lock_all(table, cells.iter().map(|c| c.row.as_ref()));
                match region.mutate_queued(cells.clone(), state.durability_for(durability), None) {
                    Ok(write) => {
                        queued = Some(QueuedShare {
                            write,
                            region: Arc::clone(region),
                            regions: state.regions.len(),
                        })
                    }
                    Err(e) if e.is_region_sealed() => {
                        refused.extend(cells);
                        moving = Some(ServiceError::Engine(e));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            let Some(moving) = moving else {
                break;
            };
            // The split or merge flushes the sealed region first, and that flush waits for
            // every queued write to become visible: resolve ours before waiting for it.
            outcomes.extend(queued.take().map(QueuedShare::wait));
            let retry = match origin {
                Origin::Client => self.wait_to_retry(&moving, seen, deadline),
                Origin::Peer => self.directory.wait_for_change(seen, deadline),
            };
            if !retry {
                return Err(moving);
            }
            pending = refused;
            seen = self.directory.change_count();
            state = self.directory.table(table)?;
            state.check_enabled()?;
        }
        outcomes.extend(queued.take().map(QueuedShare::wait));
        for (outcome, region, regions) in outcomes {
            outcome?;
            self.splitter.after_write(table, &region, regions);
        }
        Ok(())
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
    fn wait(self) -> (Result<()>, Arc<Region>, usize) {
        let outcome = self.write.wait().map(|_| ()).map_err(Into::into);
        (outcome, self.region, self.regions)
    }
}

/// Waits until every region here that `cells` go to has room for writes (memory, its own
/// memstores, its store files), before the caller takes row locks: as HBase's
/// `checkResources` runs before its row locks. A writer waiting for a slow flush then
/// holds no lock stripe that writers of other tables or regions need (one waiting batch
/// of 100 rows holds about a third of the 256 stripes). The region checks again when the
/// write is queued, which waits only if room ran out in between.
fn wait_for_room(state: &TableState, cells: &[Cell]) -> Result<()> {
    let mut checked: Vec<u64> = Vec::new();
    for cell in cells {
        if let RegionLocation::Here(region) = &state.region_for(&cell.row).location {
            if !checked.contains(&region.id()) {
                checked.push(region.id());
                region.wait_for_write_capacity()?;
            }
        }
    }
    Ok(())
}

/// Groups `cells` by the region of `state` that holds their row.
fn split_by_region(
    state: &TableState,
    cells: Vec<Cell>,
) -> BTreeMap<usize, (&OpenRegion, Vec<Cell>)> {
    let mut by_region: BTreeMap<usize, (&OpenRegion, Vec<Cell>)> = BTreeMap::new();
    for cell in cells {
        let idx = state
            .regions
            .partition_point(|r| r.entry.start_key.as_ref() <= cell.row.as_ref())
            .saturating_sub(1);
        if let Some(open) = state.regions.get(idx) {
            by_region
                .entry(idx)
                .or_insert_with(|| (open, Vec::new()))
                .1
                .push(cell);
        }
    }
    by_region
}
