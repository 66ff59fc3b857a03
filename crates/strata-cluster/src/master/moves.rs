//! Moves (HBase's `move`, `decommission_regionservers`), run by the master, and the
//! balancer's moves (`balancer.rs` decides them). A move is graceful: the region's owner
//! releases it (seals it, so its writes wait; flushes; closes), then the master assigns it
//! to the target, which opens it from its files with nothing to replay; the move ends once
//! the target serves it.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_server::error::{Result, ServiceError};
use strata_server::remote::{RegionWork, RowSpan};
use strata_server::{Service, TableName};

use super::balance_load;
use super::balancer::{self, Balancer};
use super::leader::Leader;
use crate::ownership::Ownership;

/// The table of a directory entry and its row range.
pub(crate) fn table_and_span(region: &strata_coord::Region) -> Result<(TableName, RowSpan)> {
    let table = TableName::parse(&region.record.table)?;
    let span = RowSpan {
        start: Bytes::from(region.record.start.clone()),
        end: Bytes::from(region.record.end.clone()),
    };
    Ok((table, span))
}

/// How long a move waits for its target to claim the region.
const CLAIM_WAIT: Duration = Duration::from_secs(10);

/// How often a move looks at its target's claim.
const CLAIM_POLL: Duration = Duration::from_millis(10);

/// Every how many looks at the claim a move also checks that its target is still alive.
const TARGET_LOOK_EVERY: u64 = 10;

/// The master's moves: the service's [`ClusterAdmin`].
pub struct ClusterMoves {
    leader: Arc<Leader>,
    pub(crate) ownership: Arc<Ownership>,
    service: Weak<Service>,
    balancer: Arc<Balancer>,
    /// Held for each move: the balancer's moves and the administration's (`move`,
    /// `decommission_regionservers`, a split bringing its region here) never interleave.
    /// Interleaved, a decommission could ask a server to release a region the balancer
    /// had just assigned to it and it had not opened yet (a CI failure). The balancer only
    /// tries it, so the master's follower round never waits behind an administrative move.
    moving: Mutex<()>,
}

impl std::fmt::Debug for ClusterMoves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterMoves")
            .field("balancer", &self.balancer)
            .finish()
    }
}

pub(crate) fn unavailable(e: impl std::fmt::Display) -> ServiceError {
    ServiceError::Engine(strata_engine::Error::Closed(format!("cluster: {e}")))
}

impl ClusterMoves {
    pub fn new(leader: Arc<Leader>, service: Weak<Service>, balancer: Arc<Balancer>) -> Self {
        ClusterMoves {
            ownership: Arc::clone(leader.ownership()),
            leader,
            service,
            balancer,
            moving: Mutex::new(()),
        }
    }

    /// Splits the regions their owners asked the master to split (a region splits where
    /// the catalog is written: it is brought here first, then split; the balancer spreads
    /// its daughters). Each request is dropped once handled, split or not: an owner asks
    /// again while the region stays too big.
    pub fn split_requested(&self) {
        let node = &self.ownership.node;
        let Some(lead) = self.leader.lead() else {
            return;
        };
        let Ok(requests) = node.coord.split_requests() else {
            return;
        };
        for id in requests {
            if let Err(e) = self.split_one(id) {
                tracing::warn!(region = id, error = %e, "requested split failed");
            }
            if let Err(e) = node.coord.clear_split_request(&lead, id) {
                tracing::warn!(region = id, error = %e, "cannot drop a split request");
            }
        }
    }

    fn split_one(&self, id: u64) -> Result<()> {
        let service = self
            .service
            .upgrade()
            .ok_or_else(|| unavailable("closing"))?;
        let table = self
            .ownership
            .view
            .read()
            .regions
            .get(&id)
            .map(|r| r.record.table.clone());
        let Some(table) = table else {
            return Ok(());
        };
        let table = TableName::parse(&table)?;
        let (left, right) = service
            .admin()
            .split_region(&table, strata_server::SplitAt::Region(id))?;
        tracing::info!(region = id, left, right, "region split on request");
        Ok(())
    }

    /// One balancing step if the balancer is on and its interval passed (the master's
    /// rounds call this every round).
    pub fn balance_step(&self) {
        if !self.balancer.due(self.ownership.node.clock.now()) {
            return;
        }
        let Some(_moving) = self.moving.try_lock() else {
            return; // an administrative move is running; the next round balances
        };
        if let Err(e) = self.move_one() {
            tracing::warn!(error = %e, "balancer move failed");
        }
    }

    /// Makes the balancer's next move, if it has one. Answers whether it moved a region.
    fn move_one(&self) -> Result<bool> {
        let load = self.load()?;
        let coord = &self.ownership.node.coord;
        // Read from etcd only when a decision needs it, not on every balancer round.
        let rates = || balance_load::by_region(&coord.loads().unwrap_or_default());
        let decommissioned = self.ownership.view.read().decommissioned.clone();
        let now = self.ownership.node.clock.now();
        let Some(chosen) = self.balancer.choose(&load, &decommissioned, &rates, now) else {
            return Ok(false);
        };
        if let Some(from) = &chosen.for_load {
            tracing::info!(region = chosen.region, from = %from, to = %chosen.to, "moving a region for load");
        }
        self.move_region_locked(chosen.region, Some(&chosen.to))?;
        Ok(true)
    }

    /// The catalog's regions served by each live server.
    fn load(&self) -> Result<HashMap<String, Vec<u64>>> {
        let service = self.service()?;
        Ok(balancer::load(
            &self.ownership.view(),
            &regions_of(&service),
        ))
    }
}

/// Every region the catalog lists (a dropped table's regions stay in the directory).
pub(crate) fn regions_of(service: &Service) -> Vec<u64> {
    catalog_regions(service.directory())
}

/// Every region `directory`'s catalog lists.
pub(crate) fn catalog_regions(directory: &strata_server::TableDirectory) -> Vec<u64> {
    directory
        .list_tables()
        .iter()
        .filter_map(|t| directory.table_regions(t).ok())
        .flatten()
        .map(|r| r.id)
        .collect()
}

impl ClusterMoves {
    /// HBase's `move`: moves region `id` to `target` (any other live server when `None`).
    pub fn move_region(&self, id: u64, target: Option<&str>) -> Result<String> {
        let _moving = self.moving.lock();
        self.move_region_locked(id, target)
    }

    /// HBase's `balancer`: runs the balancer once; answers how many regions it moved.
    pub fn balance(&self) -> Result<usize> {
        let _moving = self.moving.lock();
        let mut moved = 0;
        self.ownership.refresh_view().map_err(unavailable)?;
        while moved < 100 && self.move_one()? {
            moved += 1;
            self.ownership.refresh_view().map_err(unavailable)?;
        }
        Ok(moved)
    }

    /// HBase's `balance_switch`; answers the previous setting.
    pub fn set_balancer(&self, on: bool) -> Result<bool> {
        Ok(self.balancer.switch(on))
    }

    /// Whether the balancer is on.
    pub fn balancer_enabled(&self) -> bool {
        self.balancer.is_on()
    }

    /// HBase's `decommission_regionservers` and `recommission_regionserver`.
    pub fn decommission(&self, server: &str, on: bool) -> Result<usize> {
        let lead = self.leadership("decommissions servers")?;
        let coord = &self.ownership.node.coord;
        if !on {
            coord
                .set_decommissioned(&lead, server, false)
                .map_err(unavailable)?;
            self.ownership.refresh_view().map_err(unavailable)?;
            return Ok(0);
        }
        self.ownership.refresh_view().map_err(unavailable)?;
        if !self.ownership.view.read().live.contains_key(server) {
            return Err(ServiceError::InvalidArgument(format!(
                "no live server {server}"
            )));
        }
        // In etcd first: a master elected meanwhile keeps regions off it too.
        coord
            .set_decommissioned(&lead, server, true)
            .map_err(unavailable)?;
        self.ownership.refresh_view().map_err(unavailable)?;
        let regions = self.load()?.remove(server).unwrap_or_default();
        for region in &regions {
            let target = self.ownership.view.read().least_loaded();
            let target = target.ok_or_else(|| {
                ServiceError::InvalidArgument("no other server to move regions to".into())
            })?;
            self.move_region(*region, Some(&target))?;
        }
        Ok(regions.len())
    }

    /// Brings region `region` to the master itself.
    pub fn take_region(&self, region: u64) -> Result<()> {
        let own = self.ownership.node.sid.clone();
        self.move_region(region, Some(&own)).map(|_| ())
    }

    /// The decommissioned servers.
    pub fn decommissioned(&self) -> Result<Vec<String>> {
        let mut servers: Vec<String> = self
            .ownership
            .view
            .read()
            .decommissioned
            .iter()
            .cloned()
            .collect();
        servers.sort();
        Ok(servers)
    }
}

impl ClusterMoves {
    /// The master's term, or Unavailable naming what only the master does (`action`).
    pub(crate) fn leadership(&self, action: &str) -> Result<strata_coord::Leadership> {
        self.leader
            .lead()
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

    /// The service, unless it is closing.
    pub(crate) fn service(&self) -> Result<Arc<Service>> {
        self.service.upgrade().ok_or_else(|| unavailable("closing"))
    }

    /// A move, with `moving` held by the caller.
    fn move_region_locked(&self, id: u64, target: Option<&str>) -> Result<String> {
        let lead = self.leadership("moves regions")?;
        let service = self
            .service
            .upgrade()
            .ok_or_else(|| unavailable("closing"))?;
        let region = self.region(id)?;
        let view = self.ownership.view.read().clone();
        let owner = region.record.owner.clone();
        let target = match target {
            Some(t) if view.live.contains_key(t) => t.to_string(),
            Some(t) => return Err(ServiceError::InvalidArgument(format!("no live server {t}"))),
            None => view
                .live
                .keys()
                .filter(|s| Some(*s) != owner.as_ref())
                .min()
                .cloned()
                .ok_or_else(|| ServiceError::InvalidArgument("no other live server".into()))?,
        };
        if owner.as_deref() == Some(target.as_str()) {
            return Ok(target);
        }
        let (table, span) = table_and_span(&region)?;
        let clock = &self.ownership.node.clock;
        let started = clock.now();
        if owner.as_ref().is_some_and(|o| view.live.contains_key(o)) {
            service
                .directory()
                .maintenance()
                .on_region(&table, &span, RegionWork::Release)?;
            strata_server::failpoints::exit_if_enabled("master-exit-after-release");
        } else {
            // Its owner died: what it acknowledged is only in its WAL stream, and the
            // target replays only sealed streams (an open one may still grow). Assigned
            // before the seal, the region would open with nothing to replay, and the
            // stream be retired once it served (seed 123).
            self.leader.seal_dead_streams().map_err(unavailable)?;
        }
        let coord = &self.ownership.node.coord;
        coord
            .assign_region(&lead, id, region.epoch, Some(&target))
            .map_err(unavailable)?;
        if target == self.ownership.node.sid {
            // To the master itself: its follower may be the caller, so it opens it here.
            self.ownership.refresh_view().map_err(unavailable)?;
            service.directory().placements().refresh()?;
        }
        self.wait_for_claim(id, &target)?;
        // Route to the new owner now rather than at the follower's next round.
        self.ownership.refresh_view().map_err(unavailable)?;
        service.directory().placements().refresh()?;
        tracing::info!(region = id, from = ?owner, to = %target, elapsed_ms = clock.now().saturating_duration_since(started).as_millis() as u64, "region moved");
        Ok(target)
    }

    /// Waits until `target` serves region `id` (its claim is in etcd).
    fn wait_for_claim(&self, id: u64, target: &str) -> Result<()> {
        let node = &self.ownership.node;
        let deadline = node.clock.now() + CLAIM_WAIT;
        for round in 0u64.. {
            let owner = node.coord.owner(id).map_err(unavailable)?;
            // Serving, not only claimed: the claim comes before the open, and a move (or
            // a merge) that followed at once would find nothing to release there.
            if owner.is_some_and(|o| o.sid == target && o.serving) {
                return Ok(());
            }
            // A target that died would hold the master's round for the whole wait, and
            // with it the recovery of the dead server's regions.
            if round % TARGET_LOOK_EVERY == TARGET_LOOK_EVERY - 1 && !self.is_live(target)? {
                return Err(unavailable(format!(
                    "region {id} was assigned to {target}, which left the cluster before \
                     opening it; it is assigned again"
                )));
            }
            if node.clock.now() >= deadline {
                return Err(unavailable(format!(
                    "region {id} was assigned to {target}, which has not opened it yet"
                )));
            }
            node.clock.sleep(CLAIM_POLL);
        }
        Ok(())
    }

    /// Whether `server` is in the membership now.
    fn is_live(&self, server: &str) -> Result<bool> {
        let live = self
            .ownership
            .node
            .coord
            .live_servers()
            .map_err(unavailable)?;
        Ok(live.iter().any(|s| s.sid == server))
    }
}
