//! [`Ownership`]: the regions this server owns, with their epochs, behind the seams the
//! service and the engine ask through: where a region is served and the claim before it
//! opens here ([`RegionRegistry`], with the placement in `placement.rs`), and the move of
//! a store's manifest pointer ([`ManifestPointers`]).
//!
//! The master assigns regions (`/regions/<rid>` names the owner; each assignment moves the
//! region's epoch); a server claims a region assigned to it (`/own/<rid>`, under its lease,
//! at that epoch) before it opens it. From the assignment on, every manifest commit by an
//! earlier owner compares an old epoch and is refused by etcd, whatever that owner
//! believes. The master also creates the records of new regions (tables created, regions
//! split or merged) and assigns them as it places them.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use strata_coord::{Epoch, Leadership, RegionRecord};
use strata_engine::ManifestPointers;
use strata_server::error::ServiceError;
use strata_server::registry::{Placement, RegionClaim, RegionRegistry};

use crate::node::ClusterNode;
use crate::placement::{ClusterView, PeerConnector, Peers};
use crate::recovered::DeadStreams;

/// How long a server waits before asking again for the split of the same region.
const SPLIT_ASK_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);

/// The regions this server owns, and where the others are served.
pub struct Ownership {
    pub(crate) node: Arc<ClusterNode>,
    /// Set while this server is master: it may create and assign regions.
    pub(crate) leadership: RwLock<Option<Leadership>>,
    epochs: Mutex<HashMap<u64, Epoch>>,
    /// The region directory and live servers as last read (`refresh_view`).
    pub(crate) view: RwLock<ClusterView>,
    pub(crate) peers: Peers,
    dead: DeadStreams,
    /// Regions released here for a move, with the epoch they had: not placed here again
    /// until the master assigns them anew (a new epoch).
    pub(crate) released: Mutex<HashMap<u64, Epoch>>,
    /// Servers the master places no region on (HBase's decommissioned region servers).
    pub(crate) decommissioned: Mutex<std::collections::HashSet<String>>,
    /// Sealed dead streams to retire once every region is served again (`retire.rs`).
    pub(crate) to_retire: Mutex<Vec<(strata_objstore::StreamId, u64)>>,
    pub(crate) last_retire_look: Mutex<Option<std::time::Instant>>,
    /// Set as this server becomes master: its first pass over unclaimed assignments finds
    /// only its predecessor's (`unclaimed.rs`).
    pub(crate) unclaimed_inherited: std::sync::atomic::AtomicBool,
    /// The master's note of assignments not claimed yet: since when, and how long they
    /// may stay so (`unclaimed.rs`).
    pub(crate) unclaimed: Mutex<HashMap<(u64, Epoch), (std::time::Instant, std::time::Duration)>>,
    /// Set once this master followed the catalog and reserved the region ids in use
    /// (`directory_care.rs`): until then its view of the catalog may be behind.
    pub(crate) caught_up: std::sync::atomic::AtomicBool,
    /// When this server last asked the master to split each region.
    split_asked: Mutex<HashMap<u64, std::time::Instant>>,
    /// The master's moves and balancer, once it leads.
    moves: RwLock<Option<std::sync::Weak<crate::moves::ClusterMoves>>>,
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
    /// Ownership for `node`; `leadership` when it is master. `connect` makes the client of
    /// another server's internal RPC.
    pub fn new(
        node: Arc<ClusterNode>,
        leadership: Option<Leadership>,
        connect: PeerConnector,
    ) -> Arc<Ownership> {
        Arc::new(Ownership {
            node,
            leadership: RwLock::new(leadership),
            epochs: Mutex::new(HashMap::new()),
            view: RwLock::new(ClusterView::default()),
            peers: Peers::new(connect),
            dead: DeadStreams::default(),
            released: Mutex::new(HashMap::new()),
            moves: RwLock::new(None),
            split_asked: Mutex::new(HashMap::new()),
            unclaimed: Mutex::new(HashMap::new()),
            unclaimed_inherited: std::sync::atomic::AtomicBool::new(false),
            caught_up: std::sync::atomic::AtomicBool::new(false),
            to_retire: Mutex::new(Vec::new()),
            last_retire_look: Mutex::new(None),
            decommissioned: Mutex::new(std::collections::HashSet::new()),
        })
    }

    /// Makes this server master: from now on it creates and assigns regions.
    pub fn lead(&self, leadership: Leadership) {
        self.unclaimed_inherited
            .store(true, std::sync::atomic::Ordering::Release);
        self.caught_up
            .store(false, std::sync::atomic::Ordering::Release);
        *self.leadership.write() = Some(leadership);
    }

    /// Lets the follower loop run `moves`' balancer (the master's).
    pub fn set_moves(&self, moves: &Arc<crate::moves::ClusterMoves>) {
        *self.moves.write() = Some(Arc::downgrade(moves));
    }

    /// The master's moves, once it leads.
    pub fn moves(&self) -> Option<Arc<crate::moves::ClusterMoves>> {
        self.moves
            .read()
            .as_ref()
            .and_then(std::sync::Weak::upgrade)
    }

    /// Notes sealed dead streams, to retire once their regions are served again.
    pub(crate) fn note_sealed(&self, sealed: Vec<(strata_objstore::StreamId, u64)>) {
        let mut pending = self.to_retire.lock();
        for stream in sealed {
            if !pending.iter().any(|(s, _)| *s == stream.0) {
                pending.push(stream);
            }
        }
    }

    /// True while this server is master.
    pub fn is_master(&self) -> bool {
        self.leadership.read().is_some()
    }

    /// The regions owned, with their epochs.
    pub fn owned(&self) -> Vec<(u64, Epoch)> {
        let mut owned: Vec<_> = self.epochs.lock().iter().map(|(&r, &e)| (r, e)).collect();
        owned.sort_unstable();
        owned
    }

    /// The epoch to claim `claim` at: the region must be assigned here, except that the
    /// master creates a region new to the directory and takes any region it opens.
    fn claim_epoch(&self, claim: RegionClaim<'_>) -> strata_coord::Result<Epoch> {
        let coord = &self.node.coord;
        let leadership = self.leadership.read().clone();
        let (region, master) = (coord.region(claim.id)?, leadership.as_ref());
        let (epoch, owner) = match (region, master) {
            (Some(region), _) if !same_region(&region.record, claim) => {
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
                )))
            }
            (Some(region), _) => (region.epoch, region.record.owner),
            (None, Some(lead)) => {
                let record = RegionRecord::new(claim.table, claim.start, claim.end);
                (coord.create_region(lead, claim.id, &record)?, None)
            }
            (None, None) => {
                return Err(strata_coord::Error::NotFound(format!(
                    "region {} is not in the cluster's directory yet",
                    claim.id
                )))
            }
        };
        if owner.as_deref() == Some(self.node.sid.as_str()) {
            return Ok(epoch);
        }
        match master {
            Some(lead) => coord.assign_region(lead, claim.id, epoch, Some(&self.node.sid)),
            None => Err(strata_coord::Error::Fenced(format!(
                "region {} is assigned to {}, not to this server",
                claim.id,
                owner.as_deref().unwrap_or("no server")
            ))),
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
fn same_region(record: &RegionRecord, claim: RegionClaim<'_>) -> bool {
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
        if let Some(epoch) = epoch {
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
    }

    fn recovered_edits(
        &self,
        claim: RegionClaim<'_>,
    ) -> strata_server::error::Result<Vec<strata_engine::codec::WalEdit>> {
        Ok(self.dead.take(&self.node, claim.id)?)
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
