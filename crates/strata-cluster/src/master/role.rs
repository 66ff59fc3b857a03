//! [`MasterRole`]: what exists only while a server leads. Taking it up lets the server's
//! ownership create and assign the regions it opens, writes the catalog under the term,
//! reserves the region ids in use, installs the moves and the balancer as the service's
//! cluster administration, and starts the master's rounds and its garbage collector.
//! Dropping it ends all of that; the server's own ownership never calls into it.
//!
//! A master round runs when any key of the cluster changes and at least every
//! [`crate::rounds::ROUND`]: it reads the view, assigns what a dead owner or the previous
//! master left, splits what owners asked to split, balances, retires replayed streams and
//! forgets records no table lists, then places this server's regions again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use strata_coord::{Leadership, SharedKv};
use strata_server::Service;

use super::admin::MasterAdmin;
use super::assign::Assigner;
use super::balancer::Balancer;
use super::leader::Leader;
use super::moves::{catalog_regions, ClusterMoves};
use crate::catalog::EtcdCatalog;
use crate::follower::place_again;
use crate::gc::runner::start_on_master;
use crate::gc::{GcRunner, GcStats};
use crate::ownership::Ownership;
use crate::rounds::ChangeWatch;

/// The master's objects, held while it leads.
pub struct MasterRole {
    leader: Arc<Leader>,
    ownership: Arc<Ownership>,
    /// Held here and by the service's cluster administration.
    _moves: Arc<ClusterMoves>,
    stop: Arc<AtomicBool>,
    rounds: Option<std::thread::JoinHandle<()>>,
    gc: Option<GcRunner>,
}

impl std::fmt::Debug for MasterRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MasterRole")
            .field("leader", &self.leader)
            .finish_non_exhaustive()
    }
}

impl MasterRole {
    /// Becomes master under `lead`.
    pub fn take_up(
        ownership: &Arc<Ownership>,
        catalog: &EtcdCatalog<SharedKv>,
        service: &Arc<Service>,
        lead: Leadership,
        gc_stats: Arc<GcStats>,
    ) -> MasterRole {
        ownership.lead(Arc::new(Assigner {
            node: Arc::clone(&ownership.node),
            lead: lead.clone(),
        }));
        catalog.lead(lead.clone());
        let leader = Arc::new(Leader::new(Arc::clone(ownership), lead));
        if let Err(e) = leader.reserve_region_ids(service.directory()) {
            // A region created with a reused id is refused when it is claimed (its record
            // names another table or range), so this is not silent.
            tracing::error!(error = %e, "cannot read the region ids in use");
        }
        let moves = Arc::new(ClusterMoves::new(
            Arc::clone(&leader),
            Arc::downgrade(service),
            Arc::new(Balancer::default()),
        ));
        service
            .admin()
            .set_cluster_admin(Arc::new(MasterAdmin::new(Arc::clone(&moves))));
        let is_master = {
            let leader = Arc::downgrade(&leader);
            Arc::new(move || {
                leader
                    .upgrade()
                    .is_some_and(|l: Arc<Leader>| l.lead().is_some())
            })
        };
        let gc = match start_on_master(&ownership.node, is_master, gc_stats) {
            Ok(runner) => runner,
            Err(e) => {
                tracing::error!(error = %e, "cannot start the garbage collector; objects accumulate");
                None
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let rounds = start_rounds(&leader, &moves, Arc::downgrade(service), &stop);
        MasterRole {
            leader,
            ownership: Arc::clone(ownership),
            _moves: moves,
            stop,
            rounds,
            gc,
        }
    }
}

impl Drop for MasterRole {
    fn drop(&mut self) {
        self.leader.stand_down();
        self.ownership.step_down();
        self.stop.store(true, Ordering::Release);
        drop(self.gc.take());
        if let Some(rounds) = self.rounds.take() {
            let _ = rounds.join();
        }
    }
}

/// Runs the master's rounds until `stop` or the service is gone.
fn start_rounds(
    leader: &Arc<Leader>,
    moves: &Arc<ClusterMoves>,
    service: Weak<Service>,
    stop: &Arc<AtomicBool>,
) -> Option<std::thread::JoinHandle<()>> {
    let (leader, moves, stop) = (Arc::clone(leader), Arc::clone(moves), Arc::clone(stop));
    let started = strata_runtime::thread::spawn("cluster-master", move || {
        let mut watch = ChangeWatch::default();
        while !stop.load(Ordering::Acquire) {
            let Some(service) = service.upgrade() else {
                return;
            };
            round(&leader, &moves, &service);
            drop(service);
            watch.wait(&leader.ownership().node);
        }
    });
    match started {
        Ok(thread) => Some(thread),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the master's rounds; regions are not reassigned");
            None
        }
    }
}

/// One master round; failures are logged and the next round tries again.
fn round(leader: &Leader, moves: &ClusterMoves, service: &Service) {
    let ownership = leader.ownership();
    if let Err(e) = ownership.refresh_view() {
        tracing::warn!(error = %e, "cannot read the cluster's directory");
        return;
    }
    let directory = service.directory();
    let regions = catalog_regions(directory);
    leader.assign_round(&regions);
    moves.split_requested();
    moves.balance_step();
    leader.care_round(&regions, directory);
    place_again(service);
}
