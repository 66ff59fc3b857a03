//! The coordination API cluster mode uses, in Strata's terms: sessions (leases),
//! membership, the region directory with epochs, manifest pointers, split/merge commits
//! and master election. [`Coordinator`] is the trait the server will hold; the one
//! implementation, [`KvCoordinator`], is written once over [`MetaKv`] and runs on etcd
//! ([`crate::EtcdKv`]) or on its in-memory twin ([`crate::MemKv`]).
//!
//! Two rules hold for every write:
//! - a server's write (claiming a region, a manifest commit, a split) is sent only while
//!   its lease is valid by its own clock, and is a transaction comparing the region's
//!   epoch, so a zombie that paused after its check is still refused by etcd;
//! - a master's write is sent only while its lease is valid and compares the create
//!   revision of its election key, so a deposed master changes nothing.

use std::sync::Arc;
use std::time::Duration;

use strata_engine::util::clock::Clock;

use crate::error::Result;
use crate::keys::{Keys, RegionId};
use crate::kv::{KeyValue, LeaseId, MetaKv, Revision, WatchEvent, WatchReceiver};
use crate::lease::{Lease, DEFAULT_MARGIN, DEFAULT_TTL};
use crate::records::{decode, RegionRecord, ServerRecord};

/// A region's epoch: the mod revision of its directory record.
pub type Epoch = Revision;

/// A server's incarnation: the create revision of its membership key.
pub type Incarnation = Revision;

/// Settings of a coordinator.
#[derive(Debug, Clone)]
pub struct CoordOptions {
    /// The cluster's name: its keys live under `/strata/<cluster>/`.
    pub cluster: String,
    /// Lease TTL (etcd rounds up to whole seconds; its minimum is about 2 s by default).
    pub ttl: Duration,
    /// Taken off each lease deadline for clock-rate differences.
    pub margin: Duration,
}

impl CoordOptions {
    /// Defaults for cluster `cluster`: TTL 2 s, margin 200 ms.
    pub fn new(cluster: &str) -> Self {
        CoordOptions {
            cluster: cluster.to_owned(),
            ttl: DEFAULT_TTL,
            margin: DEFAULT_MARGIN,
        }
    }
}

/// A server seen in the membership list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveServer {
    pub sid: String,
    pub addr: String,
    pub incarnation: Incarnation,
    pub lease: LeaseId,
}

impl LiveServer {
    /// Decodes a membership key.
    pub(crate) fn decode(keys: &Keys, kv: &KeyValue) -> Result<LiveServer> {
        let record: ServerRecord = decode(&kv.key, &kv.value)?;
        Ok(LiveServer {
            sid: keys.server_id_of(&kv.key).to_owned(),
            addr: record.addr,
            incarnation: kv.create_revision,
            lease: kv.lease,
        })
    }
}

/// A membership change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MembershipEvent {
    Joined(LiveServer),
    /// The server's key is gone: its lease expired or was revoked.
    Left {
        sid: String,
    },
}

/// A region as the directory holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub id: RegionId,
    pub record: RegionRecord,
    pub epoch: Epoch,
}

/// Who serves a region now (`/own/<rid>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub sid: String,
    pub incarnation: Incarnation,
    pub epoch: Epoch,
    /// The region is open there (replayed and flushed), not only claimed.
    pub serving: bool,
}

/// The elected master as others see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MasterInfo {
    pub sid: String,
    pub addr: String,
    /// The create revision of the election key: the term of this leadership.
    pub term: Revision,
}

/// Proof of having won an election; every master write carries it.
#[derive(Debug, Clone)]
pub struct Leadership {
    pub sid: String,
    pub term: Revision,
    pub lease: Arc<Lease>,
}

/// The result of a campaign.
#[derive(Debug, Clone)]
pub enum Campaign {
    Won(Leadership),
    /// Someone else leads (`None`: the key vanished between the attempt and the read).
    Lost(Option<MasterInfo>),
}

/// Membership changes as they happen.
#[derive(Debug)]
pub struct MembershipWatch {
    pub(crate) keys: Keys,
    pub(crate) events: WatchReceiver,
}

impl MembershipWatch {
    /// The next change if one is already there.
    pub fn try_next(&self) -> Option<Result<MembershipEvent>> {
        self.events
            .try_next()
            .map(|e| e.and_then(|e| self.decode(e)))
    }

    /// The next change, waiting up to `timeout`.
    pub fn next_timeout(&self, timeout: Duration) -> Option<Result<MembershipEvent>> {
        self.events
            .next_timeout(timeout)
            .map(|e| e.and_then(|e| self.decode(e)))
    }

    fn decode(&self, event: WatchEvent) -> Result<MembershipEvent> {
        match event {
            WatchEvent::Put(kv) => LiveServer::decode(&self.keys, &kv).map(MembershipEvent::Joined),
            WatchEvent::Delete(kv) => Ok(MembershipEvent::Left {
                sid: self.keys.server_id_of(&kv.key).to_owned(),
            }),
        }
    }
}

/// The coordination primitives of cluster mode. Blocking; call from plain threads.
pub trait Coordinator: Send + Sync {
    // Sessions.
    /// Grants this server's lease (TTL from the options).
    fn grant_lease(&self) -> Result<Arc<Lease>>;
    /// Renews the lease; on success its deadline moves to send time + TTL − margin.
    fn keep_alive(&self, lease: &Lease) -> Result<()>;
    /// Revokes the lease: its membership, ownership and election keys vanish.
    fn revoke(&self, lease: &Lease) -> Result<()>;

    // Membership.
    /// Registers server `sid` at `addr` under `lease`; returns its incarnation.
    fn register_server(&self, lease: &Lease, sid: &str, addr: &str) -> Result<Incarnation>;
    /// The servers whose leases are live.
    fn live_servers(&self) -> Result<Vec<LiveServer>>;
    /// The live servers now, and every change after that.
    fn watch_servers(&self) -> Result<(Vec<LiveServer>, MembershipWatch)>;

    // Region directory (master writes).
    /// Adds a region to the directory; returns its epoch.
    fn create_region(
        &self,
        master: &Leadership,
        id: RegionId,
        record: &RegionRecord,
    ) -> Result<Epoch>;
    /// Assigns the region to `owner` (or takes it offline with `None`) if its epoch is
    /// still `epoch`; bumps the epoch and drops the old owner's `/own` key.
    fn assign_region(
        &self,
        master: &Leadership,
        id: RegionId,
        epoch: Epoch,
        owner: Option<&str>,
    ) -> Result<Epoch>;
    /// One region of the directory.
    fn region(&self, id: RegionId) -> Result<Option<Region>>;
    /// The whole directory, in region id order.
    fn regions(&self) -> Result<Vec<Region>>;

    // Owner writes (lease valid by own clock, epoch compared in etcd).
    /// Records that this server serves the region at `epoch` (`/own/<rid>`, under its lease).
    fn claim_region(
        &self,
        lease: &Lease,
        sid: &str,
        incarnation: Incarnation,
        id: RegionId,
        epoch: Epoch,
    ) -> Result<()>;
    /// Who serves the region now.
    fn owner(&self, id: RegionId) -> Result<Option<Owner>>;
    /// Advances the manifest pointer of (region, family) if the region is still at `epoch`.
    fn commit_manifest(
        &self,
        lease: &Lease,
        id: RegionId,
        epoch: Epoch,
        family: &str,
        manifest: u64,
    ) -> Result<()>;
    /// The committed manifest of (region, family).
    fn manifest(
        &self,
        id: RegionId,
        family: &str,
    ) -> Result<Option<crate::records::ManifestPointer>>;
    /// Retires `parent` (at `epoch`) and creates both daughters, owned by the parent's
    /// owner, in one transaction; returns the daughters' epoch.
    fn commit_split(
        &self,
        lease: &Lease,
        parent: RegionId,
        epoch: Epoch,
        daughters: [(RegionId, RegionRecord); 2],
    ) -> Result<Epoch>;
    /// Retires both parents (each at its epoch) and creates the merged region, in one
    /// transaction; returns the merged region's epoch.
    fn commit_merge(
        &self,
        lease: &Lease,
        parents: [(RegionId, Epoch); 2],
        merged: (RegionId, RegionRecord),
    ) -> Result<Epoch>;

    // WAL streams.
    /// Records that no recovery needs to read `stream` any more (master only).
    fn retire_stream(&self, master: &Leadership, stream: &str) -> Result<()>;
    /// The streams no recovery needs to read.
    fn retired_streams(&self) -> Result<Vec<String>>;
    /// Records where a recovery of `stream` starts (master only).
    fn publish_stream_progress(
        &self,
        master: &Leadership,
        stream: &str,
        first_live_id: u64,
    ) -> Result<()>;
    /// Every stream record, by stream name.
    fn stream_records(&self) -> Result<Vec<(String, crate::records::StreamRecord)>>;

    // Master election.
    /// Tries once to become master under `lease`.
    fn campaign(&self, lease: &Arc<Lease>, sid: &str, addr: &str) -> Result<Campaign>;
    /// Gives up leadership (only if still held).
    fn resign(&self, master: &Leadership) -> Result<()>;
    /// The current master, and a watch on the election key to observe changes.
    fn observe_master(&self) -> Result<(Option<MasterInfo>, WatchReceiver)>;
}

/// The coordinator over any [`MetaKv`] backend.
#[derive(Debug)]
pub struct KvCoordinator<K: MetaKv> {
    pub(crate) kv: K,
    pub(crate) keys: Keys,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) options: CoordOptions,
}

impl<K: MetaKv> KvCoordinator<K> {
    /// A coordinator for `options.cluster` over `kv`, timing leases on `clock`.
    pub fn new(kv: K, clock: Arc<dyn Clock>, options: CoordOptions) -> Result<Self> {
        let keys = Keys::new(&options.cluster)?;
        if options.margin >= options.ttl {
            return Err(crate::Error::InvalidArgument(format!(
                "lease margin {:?} must be below the TTL {:?}",
                options.margin, options.ttl
            )));
        }
        Ok(KvCoordinator {
            kv,
            keys,
            clock,
            options,
        })
    }

    /// The backend (tests cut it off or interleave through it).
    pub fn kv(&self) -> &K {
        &self.kv
    }

    /// The key layout.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }
}
