//! HBase's `unassign` and `assign`, run by the master. Unassigning a region has its owner
//! release it (seal, flush, close) and marks it closed in the directory, where neither the
//! master's orphan pass nor its unclaimed-assignment pass touch it; assigning it moves it
//! from nowhere to the least loaded server, as a move would.

use strata_coord::RegionState;
use strata_server::error::{Result, ServiceError};
use strata_server::registry::ClusterAdmin;
use strata_server::remote::RegionWork;

use crate::moves::{table_and_span, unavailable, ClusterMoves};

impl ClusterMoves {
    /// The master's term, or Unavailable naming what only the master does (`action`).
    pub(crate) fn leadership(&self, action: &str) -> Result<strata_coord::Leadership> {
        self.ownership
            .leadership
            .read()
            .clone()
            .ok_or_else(|| unavailable(format!("only the master {action}")))
    }

    /// Region `id` as the directory says now.
    pub(crate) fn region(&self, id: u64) -> Result<strata_coord::Region> {
        self.ownership.refresh_view().map_err(unavailable)?;
        self.ownership
            .view
            .read()
            .regions
            .get(&id)
            .cloned()
            .ok_or_else(|| ServiceError::InvalidArgument(format!("no region {id}")))
    }

    /// [`ClusterAdmin::unassign`].
    pub(crate) fn close_region(&self, id: u64) -> Result<()> {
        let lead = self.leadership("assigns regions")?;
        let service = self
            .service
            .upgrade()
            .ok_or_else(|| unavailable("closing"))?;
        let region = self.region(id)?;
        match region.record.state {
            RegionState::Closed => return Ok(()),
            RegionState::Retired => {
                return Err(ServiceError::InvalidArgument(format!(
                    "region {id} was split or merged away"
                )))
            }
            RegionState::Open | RegionState::Offline => {}
        }
        // Only a region a live server serves: its release flushes it, so nothing of it is
        // left to replay from a WAL stream while it is closed.
        if self.ownership.view.read().live_owner(&region).is_none() {
            return Err(unavailable(format!(
                "region {id} has no live server now (it is being recovered); try again once it is served"
            )));
        }
        let (table, span) = table_and_span(&region)?;
        service
            .directory()
            .maintain_region(&table, &span, RegionWork::Release)?;
        let coord = &self.ownership.node.coord;
        coord
            .close_region(&lead, id, region.epoch)
            .map_err(unavailable)?;
        self.ownership.refresh_view().map_err(unavailable)?;
        service.directory().refresh_placements()?;
        tracing::info!(region = id, "region unassigned");
        Ok(())
    }

    /// [`ClusterAdmin::assign`].
    pub(crate) fn open_closed_region(&self, id: u64) -> Result<String> {
        let region = self.region(id)?;
        let view = self.ownership.view.read().clone();
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
            .least_loaded(&self.ownership.decommissioned.lock())
            .ok_or_else(|| unavailable("no live server to assign it to"))?;
        self.move_region(id, Some(&target))
    }
}
