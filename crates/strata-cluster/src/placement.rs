//! Where each region is served, as this server sees the cluster: the region directory and
//! the live servers read from etcd ([`ClusterView`], refreshed by `follower.rs`), the
//! clients of the other servers' internal RPC ([`Peers`]), and the master's decisions:
//! a new region goes to the live server serving the fewest, and a region whose owner is
//! gone is reassigned the same way once the dead server's WAL streams are sealed.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_coord::{Region, RegionRecord, RegionState};
use strata_server::registry::{Placement, RegionClaim};
use strata_server::remote::{RegionPeer, Unplaced};

use crate::config::Endpoints;
use crate::ownership::Ownership;
use crate::takeover::seal_dead_streams;

/// Makes the client of another server's internal RPC (`host:port`).
pub type PeerConnector = Arc<dyn Fn(&Endpoints) -> Arc<dyn RegionPeer> + Send + Sync>;

/// The region directory and the live servers, as last read.
#[derive(Debug, Clone, Default)]
pub struct ClusterView {
    pub regions: HashMap<u64, Region>,
    /// Live servers by id, with their endpoints.
    pub live: HashMap<String, Endpoints>,
}

impl ClusterView {
    /// The live server with the fewest regions assigned (ties: the smallest id), among
    /// those not in `excluded` (decommissioned servers).
    pub fn least_loaded(&self, excluded: &HashSet<String>) -> Option<String> {
        let mut load: HashMap<&str, usize> = self
            .live
            .keys()
            .filter(|s| !excluded.contains(*s))
            .map(|s| (s.as_str(), 0))
            .collect();
        for region in self.regions.values() {
            if let Some(count) = region.record.owner.as_deref().and_then(|o| load.get_mut(o)) {
                *count += 1;
            }
        }
        load.into_iter()
            .min_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)))
            .map(|(sid, _)| sid.to_string())
    }

    /// The endpoints of `region`'s owner when it is live.
    pub(crate) fn live_owner(&self, region: &Region) -> Option<&Endpoints> {
        self.live.get(region.record.owner.as_deref()?)
    }
}

/// Clients of the other servers, one per server and address.
pub struct Peers {
    connect: PeerConnector,
    clients: Mutex<HashMap<String, Arc<dyn RegionPeer>>>,
}

impl Peers {
    pub fn new(connect: PeerConnector) -> Self {
        Peers {
            connect,
            clients: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn get(&self, endpoints: &Endpoints) -> Arc<dyn RegionPeer> {
        let address = endpoints.peer_address();
        let mut clients = self.clients.lock();
        let client = clients
            .entry(address.clone())
            .or_insert_with(|| (self.connect)(endpoints));
        Arc::clone(client)
    }
}

impl Ownership {
    /// Reads the region directory and the live servers again.
    pub fn refresh_view(&self) -> strata_coord::Result<()> {
        let coord = &self.node.coord;
        let regions = coord.regions()?.into_iter().map(|r| (r.id, r)).collect();
        let mut live = HashMap::new();
        for server in coord.live_servers()? {
            if let Ok(endpoints) = Endpoints::parse(&server.addr) {
                live.insert(server.sid, endpoints);
            }
        }
        // Marks of servers that are gone are ignored: server ids are never reused.
        let decommissioned = coord
            .decommissioned_servers()?
            .into_iter()
            .filter(|sid| live.contains_key(sid))
            .collect();
        *self.decommissioned.lock() = decommissioned;
        *self.view.write() = ClusterView { regions, live };
        Ok(())
    }

    /// Where `claim` is served, by the view: here when assigned here; at its owner when
    /// that is live; nowhere yet otherwise. The master assigns a region new to the
    /// directory on the spot.
    pub(crate) fn place(&self, claim: RegionClaim<'_>) -> Placement {
        let view = self.view.read().clone();
        let unplaced = || Placement::Peer(Arc::new(Unplaced { region: claim.id }));
        let Some(region) = view.regions.get(&claim.id) else {
            return self.place_new(claim, &view).unwrap_or_else(unplaced);
        };
        if region.record.owner.as_deref() == Some(self.node.sid.as_str()) {
            // Released for a move: stays closed until the master assigns it anew.
            let released = self.released.lock().get(&claim.id) == Some(&region.epoch);
            return if released {
                unplaced()
            } else {
                Placement::Here
            };
        }
        match view.live_owner(region) {
            Some(endpoints) => Placement::Peer(self.peers.get(endpoints)),
            None => unplaced(),
        }
    }

    /// The master's placement of a region not in the directory: created and assigned to
    /// the least loaded live server. `None` on a server that is not master, or if etcd
    /// refuses (the region stays unplaced and is placed on the next refresh).
    fn place_new(&self, claim: RegionClaim<'_>, view: &ClusterView) -> Option<Placement> {
        let lead = self.leadership.read().clone()?;
        let target = view.least_loaded(&self.decommissioned.lock())?;
        let coord = &self.node.coord;
        let record = RegionRecord::new(claim.table, claim.start, claim.end);
        let created = coord.create_region(&lead, claim.id, &record).ok()?;
        coord
            .assign_region(&lead, claim.id, created, Some(&target))
            .ok()?;
        tracing::info!(region = claim.id, table = claim.table, owner = %target, "new region assigned");
        self.refresh_view().ok()?;
        if target == self.node.sid {
            return Some(Placement::Here);
        }
        view.live
            .get(&target)
            .map(|e| Placement::Peer(self.peers.get(e)))
    }

    /// The master's pass over `regions` (every region the catalog lists): each one whose
    /// owner is gone is assigned to the least loaded live server, after the dead servers'
    /// WAL streams are sealed (so what they acknowledged is final before anyone replays
    /// it). Returns how many were assigned.
    pub fn assign_orphans(&self, regions: &[u64]) -> crate::Result<usize> {
        let Some(lead) = self.leadership.read().clone() else {
            return Ok(0);
        };
        let view = self.view.read().clone();
        let orphans: Vec<&Region> = regions
            .iter()
            .filter_map(|id| view.regions.get(id))
            .filter(|r| {
                r.record.state == RegionState::Open || r.record.state == RegionState::Offline
            })
            .filter(|r| view.live_owner(r).is_none())
            .collect();
        if orphans.is_empty() {
            return Ok(0);
        }
        let sealed = seal_dead_streams(&self.node)?;
        self.note_sealed(sealed);
        let mut assigned = 0;
        for region in orphans {
            let excluded = self.decommissioned.lock().clone();
            let Some(target) = self.view.read().least_loaded(&excluded) else {
                break;
            };
            let coord = &self.node.coord;
            match coord.assign_region(&lead, region.id, region.epoch, Some(&target)) {
                Ok(_) => {
                    tracing::info!(region = region.id, owner = %target, "region reassigned");
                    assigned += 1;
                }
                Err(e) => tracing::warn!(region = region.id, error = %e, "could not reassign"),
            }
            self.refresh_view().map_err(|source| crate::Error::Etcd {
                endpoints: self.node.config.etcd.clone(),
                source,
            })?;
        }
        Ok(assigned)
    }
}
