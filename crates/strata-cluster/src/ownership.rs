//! [`Ownership`]: every server's region claims, behind the seams the service and the
//! engine ask through: where a region is served and the claim before it opens here
//! ([`RegionRegistry`]), and the move of a store's manifest pointer ([`ManifestPointers`]).
//!
//! The master assigns regions (`/regions/<rid>` names the owner; each assignment moves the
//! region's epoch); a server claims a region assigned to it (`/own/<rid>`, under its lease,
//! at that epoch) before it opens it. From the assignment on, every manifest commit by an
//! earlier owner compares an old epoch and is refused by etcd, whatever that owner
//! believes. What only the master does for the regions it opens (creating the records of
//! new regions, assigning itself a region it takes) reaches this file only through
//! [`LeaderDuties`], which the master's role installs while it leads.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use strata_coord::{Epoch, Region};
use strata_engine::ManifestPointers;
use strata_server::error::ServiceError;
use strata_server::registry::{Placement, RegionClaim, RegionRegistry};
use strata_server::remote::Unplaced;

use crate::node::ClusterNode;
use crate::peers::{PeerConnector, Peers};
use crate::recovered::DeadStreams;
use crate::view::ClusterView;

/// How long a server waits before asking again for the split of the same region.
const SPLIT_ASK_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

/// What the master does for the regions it opens itself; installed while it leads.
pub trait LeaderDuties: Send + Sync + std::fmt::Debug {
    /// Creates the record of a region new to the directory and assigns it to the least
    /// loaded live server of `view`; answers that server, or `None` if etcd refused.
    fn place_new(&self, claim: RegionClaim<'_>, view: &ClusterView) -> Option<String>;

    /// Assigns a region this server opens to itself (creating its record when `region`
    /// is `None`); answers the epoch to claim it at.
    fn take_for_claim(
        &self,
        claim: RegionClaim<'_>,
        region: Option<&Region>,
    ) -> strata_coord::Result<Epoch>;
}

/// The regions this server owns, and where the others are served.
pub struct Ownership {
    pub(crate) node: Arc<ClusterNode>,
    /// Set while this server is master.
    leader: RwLock<Option<Arc<dyn LeaderDuties>>>,
    epochs: Mutex<HashMap<u64, Epoch>>,
    /// The region directory and live servers as last read (`refresh_view`).
    pub(crate) view: RwLock<ClusterView>,
    pub(crate) peers: Peers,
    dead: DeadStreams,
    /// Regions released here for a move, with the epoch they had: not placed here again
    /// until the master assigns them anew (a new epoch).
    released: Mutex<HashMap<u64, Epoch>>,
    /// When this server last asked the master to split each region.
    split_asked: Mutex<HashMap<u64, std::time::Instant>>,
}

impl std::fmt::Debug for Ownership {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ownership")
            .field("sid", &self.node.sid)
            .field("regions", &self.epochs.lock().len())
            .finish()
    }
}

impl Ownership {
    /// Ownership for `node`; `connect` makes the client of another server's internal RPC.
    pub fn new(node: Arc<ClusterNode>, connect: PeerConnector) -> Arc<Ownership> {
        Arc::new(Ownership {
            node,
            leader: RwLock::new(None),
            epochs: Mutex::new(HashMap::new()),
            view: RwLock::new(ClusterView::default()),
            peers: Peers::new(connect),
            dead: DeadStreams::default(),
            released: Mutex::new(HashMap::new()),
            split_asked: Mutex::new(HashMap::new()),
        })
    }

    /// This server became master: `duties` create and assign the regions it opens.
    pub fn lead(&self, duties: Arc<dyn LeaderDuties>) {
        *self.leader.write() = Some(duties);
    }

    /// This server no longer leads.
    pub fn step_down(&self) {
        *self.leader.write() = None;
    }

    /// True while this server is master.
    pub fn is_master(&self) -> bool {
        self.leader.read().is_some()
    }

    /// The server this ownership belongs to.
    pub fn node(&self) -> &Arc<ClusterNode> {
        &self.node
    }

    /// The view as last read.
    pub fn view(&self) -> ClusterView {
        self.view.read().clone()
    }

    /// Reads the region directory and the live servers again.
    pub fn refresh_view(&self) -> strata_coord::Result<()> {
        let view = ClusterView::read(&self.node.coord)?;
        *self.view.write() = view;
        Ok(())
    }

    /// The regions owned, with their epochs.
    pub fn owned(&self) -> Vec<(u64, Epoch)> {
        let mut owned: Vec<_> = self.epochs.lock().iter().map(|(&r, &e)| (r, e)).collect();
        owned.sort_unstable();
        owned
    }

    /// Where `claim` is served, by the view: here when assigned here; at its owner when
    /// that is live; nowhere yet otherwise. The master assigns a region new to the
    /// directory on the spot.
    fn place(&self, claim: RegionClaim<'_>) -> Placement {
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

    /// A region not in the directory: the master creates and assigns it; any other server
    /// waits for the directory to name it.
    fn place_new(&self, claim: RegionClaim<'_>, view: &ClusterView) -> Option<Placement> {
        let leader = self.leader.read().clone()?;
        let target = leader.place_new(claim, view)?;
        self.refresh_view().ok()?;
        if target == self.node.sid {
            return Some(Placement::Here);
        }
        view.live
            .get(&target)
            .map(|e| Placement::Peer(self.peers.get(e)))
    }

    /// The epoch to claim `claim` at: the region must be assigned here, except that the
    /// master creates a region new to the directory and takes any region it opens.
    fn claim_epoch(&self, claim: RegionClaim<'_>) -> strata_coord::Result<Epoch> {
        let region = self.node.coord.region(claim.id)?;
        if let Some(region) = &region {
            if !same_region(&region.record, claim) {
                return Err(strata_coord::Error::Fenced(format!(
                    "region id {} is {} [{:?}, {:?}) in the cluster's directory, not {} \
                     [{:?}, {:?}): an id used twice",
                    claim.id,
                    region.record.table,
                    String::from_utf8_lossy(&region.record.start),
                    String::from_utf8_lossy(&region.record.end),
                    claim.table,
                    String::from_utf8_lossy(claim.start),
                    String::from_utf8_lossy(claim.end),
                )));
            }
            if region.record.owner.as_deref() == Some(self.node.sid.as_str()) {
                return Ok(region.epoch);
            }
        }
        let leader = self.leader.read().clone();
        match (leader, region) {
            (Some(leader), region) => leader.take_for_claim(claim, region.as_ref()),
            (None, Some(region)) => Err(strata_coord::Error::Fenced(format!(
                "region {} is assigned to {}, not to this server",
                claim.id,
                region.record.owner.as_deref().unwrap_or("no server")
            ))),
            (None, None) => Err(strata_coord::Error::NotFound(format!(
                "region {} is not in the cluster's directory yet",
                claim.id
            ))),
        }
    }

    /// A region released for a move before this server claimed it: not placed here at the
    /// epoch it is assigned here at now, which the master is moving it away from (opened
    /// at it meanwhile, it would take writes its next owner never replays).
    fn released_unclaimed(&self, id: u64) {
        match self.node.coord.region(id) {
            Ok(Some(region)) if region.record.owner.as_deref() == Some(self.node.sid.as_str()) => {
                self.released.lock().insert(id, region.epoch);
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(region = id, error = %e, "cannot read a region released before its claim")
            }
        }
    }

    fn claim_region(&self, claim: RegionClaim<'_>) -> strata_coord::Result<Epoch> {
        let epoch = self.claim_epoch(claim)?;
        self.node.coord.claim_region(
            &self.node.lease,
            &self.node.sid,
            self.node.incarnation,
            claim.id,
            epoch,
        )?;
        Ok(epoch)
    }
}

/// Whether a directory record describes the region being claimed: records never change
/// table or rows, so a difference means one id named two regions.
fn same_region(record: &strata_coord::RegionRecord, claim: RegionClaim<'_>) -> bool {
    record.table == claim.table && record.start == claim.start && record.end == claim.end
}

/// Family names are bytes; etcd key segments are a restricted alphabet. Plain names stay
/// as they are, anything else is hex with an `x-` prefix (the engine's directory rule).
pub fn family_key(family: &[u8]) -> String {
    let plain = !family.is_empty()
        && family
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && family.first() != Some(&b'.');
    if plain {
        String::from_utf8_lossy(family).into_owned()
    } else {
        let hex: String = family.iter().map(|b| format!("{b:02x}")).collect();
        format!("x-{hex}")
    }
}

pub(crate) fn unavailable(e: strata_coord::Error) -> strata_engine::Error {
    strata_engine::Error::Closed(format!("cluster coordination: {e}"))
}

impl RegionRegistry for Ownership {
    fn placement(&self, claim: RegionClaim<'_>) -> Placement {
        self.place(claim)
    }

    fn splits_here(&self) -> bool {
        self.is_master()
    }

    fn request_split(&self, claim: RegionClaim<'_>) {
        let now = self.node.clock.now();
        let mut asked = self.split_asked.lock();
        let recent = asked
            .get(&claim.id)
            .is_some_and(|at| now.saturating_duration_since(*at) < SPLIT_ASK_INTERVAL);
        if recent {
            return;
        }
        match self.node.coord.request_split(&self.node.lease, claim.id) {
            Ok(()) => {
                asked.insert(claim.id, now);
                tracing::info!(
                    region = claim.id,
                    table = claim.table,
                    "asked the master to split a region"
                );
            }
            Err(e) => tracing::warn!(region = claim.id, error = %e, "cannot ask for a split"),
        }
    }

    fn released(&self, claim: RegionClaim<'_>) {
        let epoch = self.epochs.lock().remove(&claim.id);
        let Some(epoch) = epoch else {
            self.released_unclaimed(claim.id);
            return;
        };
        self.released.lock().insert(claim.id, epoch);
        // Unclaimed, it is one the master assigns again if it dies before it does.
        if let Err(e) = self
            .node
            .coord
            .release_claim(&self.node.lease, claim.id, epoch)
        {
            tracing::warn!(region = claim.id, error = %e, "cannot drop the claim of a released region");
        }
    }

    fn recovered_edits(
        &self,
        claim: RegionClaim<'_>,
    ) -> strata_server::error::Result<Vec<strata_engine::codec::WalEdit>> {
        Ok(self.dead.take(&self.node, claim.id)?)
    }

    fn opened(&self, claim: RegionClaim<'_>) {
        let Some(epoch) = self.epochs.lock().get(&claim.id).copied() else {
            return;
        };
        let node = &self.node;
        let marked =
            node.coord
                .mark_serving(&node.lease, &node.sid, node.incarnation, claim.id, epoch);
        if let Err(e) = marked {
            // The master keeps the dead owners' streams until it is marked: safe, slower.
            tracing::warn!(region = claim.id, error = %e, "cannot mark a region as serving");
        }
    }

    fn claim(&self, claim: RegionClaim<'_>) -> strata_server::error::Result<()> {
        let epoch = self
            .claim_region(claim)
            .map_err(|e| ServiceError::Engine(unavailable(e)))?;
        tracing::info!(
            region = claim.id,
            table = claim.table,
            epoch,
            "region claimed"
        );
        self.epochs.lock().insert(claim.id, epoch);
        Ok(())
    }
}

impl ManifestPointers for Ownership {
    fn load(&self, region: u64, family: &[u8]) -> strata_engine::Result<Option<u64>> {
        let pointer = self
            .node
            .coord
            .manifest(region, &family_key(family))
            .map_err(unavailable)?;
        Ok(pointer.map(|p| p.manifest))
    }

    fn commit(&self, region: u64, family: &[u8], number: u64) -> strata_engine::Result<()> {
        let epoch = self.epochs.lock().get(&region).copied().ok_or_else(|| {
            strata_engine::Error::WalFenced(format!("region {region} is not owned here"))
        })?;
        self.node
            .coord
            .commit_manifest(&self.node.lease, region, epoch, &family_key(family), number)
            .map_err(|e| match e {
                strata_coord::Error::Fenced(_) => strata_engine::Error::WalFenced(e.to_string()),
                other => unavailable(other),
            })
    }

    fn writer_tag(&self) -> String {
        self.node.writer_tag()
    }
}
