//! Deterministic protocol tests on the in-memory twin and a manual clock. Each test names
//! the race it pins down; the randomized test checks every step against a simple model.

mod catalog;
mod election;
mod fencing;
mod held;
mod lease;
mod model;

use std::sync::Arc;

use strata_runtime::clock::ManualClock;

use crate::coordinator::{Campaign, CoordOptions, Epoch, Incarnation, Leadership};
use crate::keys::RegionId;
use crate::lease::Lease;
use crate::mem::MemKv;
use crate::records::{RegionRecord, RegionState};
use crate::MemCoordinator;

/// One in-memory etcd, a manual clock, and one client per actor.
pub(crate) struct Cluster {
    pub clock: Arc<ManualClock>,
    pub store: MemKv,
}

impl Cluster {
    pub fn new() -> Self {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let store = MemKv::new(clock.clone());
        Cluster { clock, store }
    }

    /// A coordinator with its own client (TTL 2 s, margin 200 ms).
    pub fn node(&self, name: &str) -> MemCoordinator {
        MemCoordinator::new(
            self.store.connect(name),
            self.clock.clone(),
            CoordOptions::new("test"),
        )
        .unwrap()
    }

    pub fn clock_now(&self) -> std::time::Instant {
        use strata_runtime::clock::Clock;
        self.clock.now()
    }

    pub fn advance(&self, millis: i64) {
        self.clock.advance(millis);
        self.store.expire_leases();
    }
}

/// A server: its coordinator, lease and incarnation.
pub(crate) struct Server {
    pub sid: String,
    pub coord: MemCoordinator,
    pub lease: Arc<Lease>,
    pub incarnation: Incarnation,
}

impl Server {
    pub fn start(cluster: &Cluster, sid: &str) -> Self {
        let coord = cluster.node(sid);
        let lease = coord.grant_lease().unwrap();
        let incarnation = coord
            .register_server(&lease, sid, &format!("{sid}:1"))
            .unwrap();
        Server {
            sid: sid.to_owned(),
            coord,
            lease,
            incarnation,
        }
    }

    /// Claims `id` at the epoch the directory gives now.
    pub fn open(&self, id: RegionId) -> Epoch {
        let region = self.coord.region(id).unwrap().unwrap();
        assert_eq!(region.record.owner.as_deref(), Some(self.sid.as_str()));
        self.coord
            .claim_region(&self.lease, &self.sid, self.incarnation, id, region.epoch)
            .unwrap();
        region.epoch
    }
}

/// Elects `server` master (the key must be free).
pub(crate) fn elect(server: &Server) -> Leadership {
    match server
        .coord
        .campaign(&server.lease, &server.sid, "m:1")
        .unwrap()
    {
        Campaign::Won(leadership) => leadership,
        Campaign::Lost(other) => panic!("{} lost to {other:?}", server.sid),
    }
}

/// Creates region `id` over `[start, end)` and assigns it to `owner`; returns its epoch.
pub(crate) fn region_for(master: &Server, lead: &Leadership, id: RegionId, owner: &str) -> Epoch {
    let record = RegionRecord::new("default:t", b"", b"");
    let created = master.coord.create_region(lead, id, &record).unwrap();
    master
        .coord
        .assign_region(lead, id, created, Some(owner))
        .unwrap()
}

/// The invariant of memo §4.5: at most one `/own` key per region (trivially, one key),
/// and its epoch is the directory's epoch; retired regions have no owner.
pub(crate) fn check_ownership(cluster: &Cluster) {
    let coord = cluster.node("checker");
    for region in coord.regions().unwrap() {
        let owner = coord.owner(region.id).unwrap();
        if let Some(owner) = owner {
            assert_eq!(
                owner.epoch, region.epoch,
                "region {} owner {owner:?}",
                region.id
            );
            assert_eq!(region.record.owner.as_deref(), Some(owner.sid.as_str()));
            assert_ne!(region.record.state, RegionState::Retired);
        }
    }
}
