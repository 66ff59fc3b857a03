//! [`Ownership`]: the regions this server owns, with their epochs, behind the two seams the
//! service and the engine ask through: claim a region before it opens
//! ([`RegionRegistry`]), and move a store's manifest pointer ([`ManifestPointers`]).
//!
//! Claiming always moves the region's epoch (the master assigns the region to this
//! server, which bumps the record's revision) and then records ownership under the lease.
//! From that instant every manifest commit by an earlier owner compares an old epoch and
//! is refused by etcd, whatever that owner believes.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_coord::{Epoch, Leadership, RegionRecord};
use strata_engine::ManifestPointers;
use strata_server::error::ServiceError;
use strata_server::registry::{RegionClaim, RegionRegistry};

use crate::node::ClusterNode;

/// The regions this master owns.
pub struct Ownership {
    node: Arc<ClusterNode>,
    leadership: Leadership,
    epochs: Mutex<HashMap<u64, Epoch>>,
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
    /// Ownership for `node`, which leads the cluster under `leadership`.
    pub fn new(node: Arc<ClusterNode>, leadership: Leadership) -> Arc<Ownership> {
        Arc::new(Ownership {
            node,
            leadership,
            epochs: Mutex::new(HashMap::new()),
        })
    }

    /// The regions owned, with their epochs.
    pub fn owned(&self) -> Vec<(u64, Epoch)> {
        let mut owned: Vec<_> = self.epochs.lock().iter().map(|(&r, &e)| (r, e)).collect();
        owned.sort_unstable();
        owned
    }

    fn claim_region(&self, claim: RegionClaim<'_>) -> strata_coord::Result<Epoch> {
        let coord = &self.node.coord;
        let epoch = match coord.region(claim.id)? {
            Some(region) => region.epoch,
            None => {
                let record = RegionRecord::new(claim.table, claim.start, claim.end);
                coord.create_region(&self.leadership, claim.id, &record)?
            }
        };
        let epoch = coord.assign_region(&self.leadership, claim.id, epoch, Some(&self.node.sid))?;
        coord.claim_region(
            &self.node.lease,
            &self.node.sid,
            self.node.incarnation,
            claim.id,
            epoch,
        )?;
        Ok(epoch)
    }
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

fn unavailable(e: strata_coord::Error) -> strata_engine::Error {
    strata_engine::Error::Closed(format!("cluster coordination: {e}"))
}

impl RegionRegistry for Ownership {
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
