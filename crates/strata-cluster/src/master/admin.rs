//! [`MasterAdmin`]: the master's cluster administration as the service's
//! [`ClusterAdmin`] seam: moves and the balancer (`moves.rs`), `unassign` and `assign`
//! (`assignment.rs`). Installed while the server leads.

use std::sync::Arc;

use strata_server::error::Result;
use strata_server::registry::ClusterAdmin;

use super::assignment;
use super::moves::ClusterMoves;

/// The service's cluster administration on the master.
#[derive(Debug)]
pub struct MasterAdmin {
    moves: Arc<ClusterMoves>,
}

impl MasterAdmin {
    pub fn new(moves: Arc<ClusterMoves>) -> Self {
        MasterAdmin { moves }
    }
}

impl ClusterAdmin for MasterAdmin {
    fn move_region(&self, region: u64, target: Option<&str>) -> Result<String> {
        self.moves.move_region(region, target)
    }
    fn balance(&self) -> Result<usize> {
        self.moves.balance()
    }
    fn set_balancer(&self, on: bool) -> Result<bool> {
        self.moves.set_balancer(on)
    }
    fn balancer_enabled(&self) -> Result<bool> {
        Ok(self.moves.balancer_enabled())
    }
    fn decommission(&self, server: &str, on: bool) -> Result<usize> {
        self.moves.decommission(server, on)
    }
    fn decommissioned(&self) -> Result<Vec<String>> {
        self.moves.decommissioned()
    }
    fn take_region(&self, region: u64) -> Result<()> {
        self.moves.take_region(region)
    }
    fn unassign(&self, region: u64) -> Result<()> {
        assignment::close_region(&self.moves, region)
    }
    fn assign(&self, region: u64) -> Result<String> {
        assignment::open_closed_region(&self.moves, region)
    }
}
