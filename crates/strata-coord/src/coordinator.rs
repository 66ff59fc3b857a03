//! The coordination API cluster mode uses, in Strata's terms: sessions (leases),
//! membership, the region directory with epochs, manifest pointers, split/merge commits
//! and master election, all on [`KvCoordinator`], written once over [`MetaKv`]: it runs on
//! etcd ([`crate::EtcdKv`]) or on its in-memory twin ([`crate::MemKv`]), which is the
//! seam tests and the simulation use (no trait over the coordinator itself: it had one
//! implementation). The lease keeper sees only [`LeaseRenewal`].
//!
//! Two rules hold for every write:
//! - a server's write (claiming a region, a manifest commit, a split) is sent only while
//!   its lease is valid by its own clock, and is a transaction comparing the region's
//!   epoch, so a zombie that paused after its check is still refused by etcd;
//! - a master's write is sent only while its lease is valid and compares the create
//!   revision of its election key, so a deposed master changes nothing.

use std::sync::Arc;
use std::time::Duration;

use strata_runtime::clock::Clock;

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

/// What a lease's keeper needs: renewing it. Implemented by [`KvCoordinator`]; a test can
/// hand [`crate::KeepAlive`] anything else that renews.
pub trait LeaseRenewal: Send + Sync {
    /// Renews the lease; on success its deadline moves to send time + TTL − margin.
    fn keep_alive(&self, lease: &Lease) -> Result<()>;
}

impl<K: MetaKv> LeaseRenewal for KvCoordinator<K> {
    fn keep_alive(&self, lease: &Lease) -> Result<()> {
        KvCoordinator::keep_alive(self, lease)
    }
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
