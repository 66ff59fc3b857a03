//! [`MasterRole`]: what exists only while a server leads. Taking it up writes the catalog
//! under the leadership, reserves the region ids in use, installs the moves and the
//! balancer as the service's cluster administration, and starts the garbage collector.
//! Dropping it stops the collector and withdraws the moves from the follower.

use std::sync::Arc;

use strata_coord::{Leadership, SharedKv};
use strata_server::Service;

use crate::catalog::EtcdCatalog;
use crate::gc::runner::start_on_master;
use crate::gc::{GcRunner, GcStats};
use crate::moves::{Balancer, ClusterMoves};
use crate::ownership::Ownership;

/// The master's objects.
pub struct MasterRole {
    /// Held here; the service and the follower see them weakly.
    _moves: Arc<ClusterMoves>,
    _gc: Option<GcRunner>,
}

impl MasterRole {
    /// Becomes master under `leadership`.
    pub fn take_up(
        ownership: &Arc<Ownership>,
        catalog: &EtcdCatalog<SharedKv>,
        service: &Arc<Service>,
        leadership: Leadership,
        gc_stats: Arc<GcStats>,
    ) -> MasterRole {
        ownership.lead(leadership.clone());
        catalog.lead(leadership);
        if let Err(e) = ownership.reserve_region_ids(service.directory()) {
            // A region created with a reused id is refused when it is claimed (its record
            // names another table or range), so this is not silent.
            tracing::error!(error = %e, "cannot read the region ids in use");
        }
        let moves = Arc::new(ClusterMoves::new(
            Arc::clone(ownership),
            Arc::downgrade(service),
            Arc::new(Balancer::default()),
        ));
        ownership.set_moves(&moves);
        service.set_cluster_admin(Arc::clone(&moves) as _);
        let gc = match start_on_master(ownership, gc_stats) {
            Ok(runner) => runner,
            Err(e) => {
                tracing::error!(error = %e, "cannot start the garbage collector; objects accumulate");
                None
            }
        };
        MasterRole {
            _moves: moves,
            _gc: gc,
        }
    }
}
