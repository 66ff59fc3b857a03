//! The one place a request meets a region. [`ServingRegion::of`] resolves a region of a
//! table's state once per request: open in this server's engine, or served by a peer the
//! request is forwarded to. Every primitive a row operation or a scanner needs is a method
//! that answers either way: a read (`get`), one region's share of a mutation
//! (`mutate_share`), a read-modify-write of one row (`lock_row`, then `LockedRow::write`,
//! in `locked_row.rs`) and the rows of a scan (`scan.rs`). `rows/` and the scanners then have
//! one code path each, and the rules that differ between the two places live here:
//!
//! - a request a peer forwarded is answered only from regions here, never forwarded again
//!   (it gets the retryable `NotServingRegion`);
//! - row locks are taken only for rows served here, and held only while a share is queued:
//!   a share forwarded to a peer holds none (RFC 0012);
//! - a forwarded write whose outcome is unknown is never retried blindly (`locked_row.rs`).
//!
//! How a refused request waits and is routed again stays in `rows/`, which also follows
//! the directory.

mod locked_row;
mod scan;

use std::sync::Arc;

use strata_engine::{Cell, Get, PendingWrite, Region, RowResult};

use crate::error::{Result, ServiceError};
use crate::remote::{Origin, PeerWrite, RegionPeer};
use crate::row_locks::RowLocks;
use crate::table::{RegionLocation, TableState};

pub(crate) use locked_row::{LockedRow, RowWritten};
pub(crate) use scan::{scan_plan, RegionRows, RegionSource};

/// A region of a table as one request reaches it.
pub(crate) struct ServingRegion<'a> {
    state: &'a TableState,
    index: usize,
    reach: Reach<'a>,
}

/// Where the request is answered.
enum Reach<'a> {
    Here(&'a Arc<Region>),
    /// Through the region's owner.
    Peer(&'a Arc<dyn RegionPeer>),
}

/// What became of one region's share of a mutation.
pub(crate) enum Share<'a> {
    /// Queued here; acknowledged once the write is waited for.
    Queued(QueuedWrite<'a>),
    /// Applied by the region's owner.
    Applied,
    /// Not applied: the region is being split or merged, or (forwarded) its owner does not
    /// serve it any more or cannot be reached. The cells are routed again once the
    /// directory places the region.
    Refused(Vec<Cell>, ServiceError),
}

/// A write queued in a region here, not yet durable and visible.
pub(crate) struct QueuedWrite<'a> {
    pub(crate) write: PendingWrite,
    pub(crate) region: &'a Arc<Region>,
}

impl<'a> ServingRegion<'a> {
    /// Region `index` of `state` as a request from `origin` reaches it. A request a peer
    /// forwarded for a region this server does not serve is refused (retryably): it
    /// travels at most one hop.
    pub(crate) fn of(
        state: &'a TableState,
        index: usize,
        origin: Origin,
    ) -> Result<ServingRegion<'a>> {
        let open = &state.regions[index];
        let reach = match &open.location {
            RegionLocation::Here(region) => Reach::Here(region),
            RegionLocation::Peer(_) if origin == Origin::Peer => {
                return Err(open.not_served_here(&state.name))
            }
            RegionLocation::Peer(peer) => {
                crate::inline::refuse_wait("the region's owner")?;
                Reach::Peer(peer)
            }
        };
        Ok(ServingRegion {
            state,
            index,
            reach,
        })
    }

    /// Waits until the region has room for writes (memory, its memstores, its store
    /// files), before the caller takes row locks (RFC 0012). A peer's region waits on its
    /// owner, which checks when the write arrives.
    pub(crate) fn wait_for_room(&self) -> Result<()> {
        match &self.reach {
            Reach::Here(region) => Ok(region.wait_for_write_capacity()?),
            Reach::Peer(_) => Ok(()),
        }
    }

    /// Reads one row (visible writes only).
    pub(crate) fn get(&self, get: &Get) -> Result<Option<RowResult>> {
        match &self.reach {
            Reach::Here(region) => Ok(region.get(get)?),
            Reach::Peer(peer) => peer.get(&self.state.peer_table(), get),
        }
    }

    /// Hands the region its share of a mutation (`cells`, all in this region), applied
    /// atomically. Here the share is queued under its rows' locks, which are released once
    /// it is queued; a peer applies it with no lock held here.
    pub(crate) fn mutate_share(
        &self,
        cells: Vec<Cell>,
        write: PeerWrite,
        row_locks: &RowLocks,
    ) -> Result<Share<'a>> {
        match &self.reach {
            Reach::Here(region) => {
                // Row locks make plain writes wait for a read-modify-write of the same
                // row, as in HBase, so an increment never overwrites a put that landed
                // between its read and its write.
                let rows = cells.iter().map(|c| c.row.as_ref());
                let _locks = row_locks.lock_all(&self.state.name, rows);
                let durability = self.state.durability_for(write.durability);
                match region.mutate_queued(cells.clone(), durability, None) {
                    Ok(write) => Ok(Share::Queued(QueuedWrite { write, region })),
                    Err(e) if e.is_region_sealed() => {
                        Ok(Share::Refused(cells, ServiceError::Engine(e)))
                    }
                    Err(e) => Err(e.into()),
                }
            }
            Reach::Peer(peer) => {
                match peer.mutate(&self.state.peer_table(), cells.clone(), write) {
                    Ok(()) => Ok(Share::Applied),
                    // Not served there (any more), or the peer is gone: sent again once the
                    // region is placed. A put sent twice leaves the same cells (HBase's
                    // clients retry puts the same way).
                    Err(
                        e @ (ServiceError::NotServingRegion { .. }
                        | ServiceError::PeerUnavailable { .. }),
                    ) => Ok(Share::Refused(cells, e)),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

/// Waits until every region here that `cells` go to has room for writes, before the
/// caller takes row locks: as HBase's `checkResources` runs before its row locks (RFC
/// 0012). A writer waiting for a slow flush then holds no lock stripe that writers of
/// other tables or regions need (one waiting batch of 100 rows holds about a third of the
/// 256 stripes). All are asked before any share is written, so a mutation refused as too
/// busy wrote nothing. The region checks again when the write is queued, which waits only
/// if room ran out in between.
pub(crate) fn wait_for_room(state: &TableState, cells: &[Cell]) -> Result<()> {
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
