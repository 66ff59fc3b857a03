//! HBase's `unassign` and `assign`, run by the master. Unassigning a region has its owner
//! release it (seal, flush, close) and marks it closed in the directory, where neither the
//! master's orphan pass nor its unclaimed-assignment pass touch it; assigning it moves it
//! from nowhere to the least loaded server, as a move would.

use strata_coord::RegionState;
use strata_server::error::{Result, ServiceError};
use strata_server::remote::RegionWork;

use super::moves::{table_and_span, unavailable, ClusterMoves};

/// HBase's `unassign` (`ClusterAdmin::unassign`).
pub(crate) fn close_region(moves: &ClusterMoves, id: u64) -> Result<()> {
    let lead = moves.leadership("assigns regions")?;
    let service = moves.service()?;
    let region = moves.region(id)?;
    match region.record.state {
        RegionState::Closed => return Ok(()),
        RegionState::Retired => {
            return Err(ServiceError::InvalidArgument(format!(
                "region {id} was split or merged away"
            )))
        }
        RegionState::Open | RegionState::Offline => {}
    }
    let ownership = &moves.ownership;
    // Only a region a live server serves: its release flushes it, so nothing of it is
    // left to replay from a WAL stream while it is closed.
    if ownership.view.read().live_owner(&region).is_none() {
        return Err(unavailable(format!(
            "region {id} has no live server now (it is being recovered); try again once it is served"
        )));
    }
    let (table, span) = table_and_span(&region)?;
    service
        .directory()
        .maintenance()
        .on_region(&table, &span, RegionWork::Release)?;
    let coord = &ownership.node.coord;
    coord
        .close_region(&lead, id, region.epoch)
        .map_err(unavailable)?;
    ownership.refresh_view().map_err(unavailable)?;
    service.directory().placements().refresh()?;
    tracing::info!(region = id, "region unassigned");
    Ok(())
}

/// HBase's `assign` (`ClusterAdmin::assign`).
pub(crate) fn open_closed_region(moves: &ClusterMoves, id: u64) -> Result<String> {
    let region = moves.region(id)?;
    let view = moves.ownership.view();
    if let (RegionState::Open, Some(owner)) = (region.record.state, &region.record.owner) {
        if view.live.contains_key(owner) {
            return Ok(owner.clone());
        }
    }
    if region.record.state != RegionState::Closed {
        return Err(unavailable(format!(
            "region {id} has no live server now (it is being recovered); it is assigned by itself"
        )));
    }
    let target = view
        .least_loaded()
        .ok_or_else(|| unavailable("no live server to assign it to"))?;
    moves.move_region(id, Some(&target))
}
