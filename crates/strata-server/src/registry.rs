//! [`RegionRegistry`]: what the table directory tells before it opens or creates a region
//! on this server. Standalone has none. Cluster mode's registry makes this server the
//! region's owner in etcd first (a new epoch), so any earlier owner's manifest commits are
//! refused from then on, and records the region's table and key range in the region
//! directory that `strata cluster status` (and, later, routing) reads.

use crate::error::Result;

/// A region about to open here.
#[derive(Debug, Clone, Copy)]
pub struct RegionClaim<'a> {
    /// `namespace:table`, or the catalog's own name for the catalog region.
    pub table: &'a str,
    pub id: u64,
    /// First row (inclusive); empty is the start of the table.
    pub start: &'a [u8],
    /// Last row (exclusive); empty is the end of the table.
    pub end: &'a [u8],
}

/// Told before each region opens (or is created by a split or merge) on this server.
pub trait RegionRegistry: Send + Sync + std::fmt::Debug {
    /// Makes this server the region's owner; an error keeps the region closed.
    fn claim(&self, region: RegionClaim<'_>) -> Result<()>;

    /// Where a region of a table being opened is served: here (the default: claimed and
    /// opened), or by a peer requests are forwarded to.
    fn placement(&self, _region: RegionClaim<'_>) -> Placement {
        Placement::Here
    }

    /// Told after region `region` was released here for a move: it must not be placed
    /// here again until it is assigned anew.
    fn released(&self, _region: RegionClaim<'_>) {}

    /// Whether regions split on this server (cluster mode: only on the master, which
    /// writes the catalog); elsewhere an automatic split is [`RegionRegistry::request_split`].
    fn splits_here(&self) -> bool {
        true
    }

    /// Asks the server that splits regions to split `region` (it outgrew its threshold
    /// here). Asking twice is harmless.
    fn request_split(&self, _region: RegionClaim<'_>) {}

    /// Edits of a claimed region that its engine's own WAL does not hold: those a dead
    /// previous owner logged in its (fenced) WAL, replayed as the region opens here.
    fn recovered_edits(
        &self,
        _region: RegionClaim<'_>,
    ) -> Result<Vec<strata_engine::codec::WalEdit>> {
        Ok(Vec::new())
    }

    /// A claimed region is open here: its recovered edits are in files. Until then a
    /// dead owner's WAL must stay readable for it.
    fn opened(&self, _region: RegionClaim<'_>) {}
}

/// Which server serves a region, as the registry says.
#[derive(Debug, Clone)]
pub enum Placement {
    Here,
    Peer(std::sync::Arc<dyn crate::remote::RegionPeer>),
}

/// Asked before every read and write (cluster mode): `Err(reason)` refuses the request
/// with a retryable error, because this server may no longer be the one that serves its
/// regions (its lease deadline passed). Standalone has none.
pub trait ServingGate: Send + Sync + std::fmt::Debug {
    /// `Ok` while this server may serve.
    fn check(&self) -> std::result::Result<(), String>;
}

/// Cluster administration the shell reaches through the service (cluster mode, on the
/// master): HBase's `move`, `balancer` and `balance_switch`. Standalone has none.
pub trait ClusterAdmin: Send + Sync + std::fmt::Debug {
    /// Moves region `region` to server `target` (any other live server when `None`):
    /// its owner seals, flushes and closes it, then the target opens it. Answers the new
    /// owner.
    fn move_region(&self, region: u64, target: Option<&str>) -> Result<String>;

    /// Runs the balancer once; answers how many regions it moved.
    fn balance(&self) -> Result<usize>;

    /// Turns the balancer on or off; answers whether it was on.
    fn set_balancer(&self, on: bool) -> Result<bool>;

    /// Whether the balancer is on (HBase's `balancer_enabled`).
    fn balancer_enabled(&self) -> Result<bool>;

    /// Decommissions server `server` (HBase's `decommission_regionservers`): it gets no
    /// new region, and its regions are moved to the others now; answers how many moved.
    /// `false` recommissions it.
    fn decommission(&self, server: &str, on: bool) -> Result<usize>;

    /// The decommissioned servers.
    fn decommissioned(&self) -> Result<Vec<String>>;

    /// Brings region `region` to this server (the master), so it can be split or merged
    /// here.
    fn take_region(&self, region: u64) -> Result<()>;

    /// HBase's `unassign`: its owner releases region `region` (seals, flushes, closes it)
    /// and no server serves it until [`ClusterAdmin::assign`]. Requests for it wait, then
    /// fail with `NotServingRegion`.
    fn unassign(&self, region: u64) -> Result<()>;

    /// HBase's `assign`: serves a closed region again, on the least loaded server; a region
    /// already served stays where it is. Answers its server.
    fn assign(&self, region: u64) -> Result<String>;
}
