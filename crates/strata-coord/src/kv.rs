//! The small slice of etcd's data model the coordinator uses: keys with create and mod
//! revisions, leases that delete their keys when they expire, transactions whose
//! compares are revision equalities, and prefix watches. Both backends implement
//! [`MetaKv`]: [`crate::etcd::EtcdKv`] translates it to etcd calls one for one, and
//! [`crate::mem::MemKv`] is the in-memory twin the protocol tests run on. The coordinator's
//! logic (epochs, fencing, election) is written once above this seam, so what the tests
//! prove is what runs against etcd.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use crate::error::Result;

/// An etcd revision: the store's logical clock, +1 per write transaction.
pub type Revision = i64;

/// An etcd lease id.
pub type LeaseId = i64;

/// One key and its metadata, as etcd returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    pub key: String,
    pub value: Vec<u8>,
    /// Revision of the put that created the key (0 when absent).
    pub create_revision: Revision,
    /// Revision of the last put to the key.
    pub mod_revision: Revision,
    /// The lease the key is attached to (0 for none).
    pub lease: LeaseId,
}

/// Which revision of a key a compare reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareTarget {
    CreateRevision,
    ModRevision,
}

/// `target(key) == revision`; revision 0 means "the key is absent", as in etcd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compare {
    pub key: String,
    pub target: CompareTarget,
    pub revision: Revision,
}

impl Compare {
    /// The key's mod revision equals `revision` (0: absent).
    pub fn mod_revision(key: impl Into<String>, revision: Revision) -> Self {
        Compare {
            key: key.into(),
            target: CompareTarget::ModRevision,
            revision,
        }
    }

    /// The key's create revision equals `revision` (0: absent).
    pub fn create_revision(key: impl Into<String>, revision: Revision) -> Self {
        Compare {
            key: key.into(),
            target: CompareTarget::CreateRevision,
            revision,
        }
    }

    /// The key does not exist.
    pub fn absent(key: impl Into<String>) -> Self {
        Compare::create_revision(key, 0)
    }
}

/// A write inside a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Put {
        key: String,
        value: Vec<u8>,
        lease: Option<LeaseId>,
    },
    Delete {
        key: String,
    },
}

/// If every compare holds, apply every op atomically; otherwise apply nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Txn {
    pub compares: Vec<Compare>,
    pub ops: Vec<Op>,
}

/// What a transaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnOutcome {
    /// Every compare held and the ops were applied.
    pub succeeded: bool,
    /// The store's revision after the txn: the revision of its writes when it succeeded.
    pub revision: Revision,
}

/// A change seen by a watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// The key was created or overwritten.
    Put(KeyValue),
    /// The key was deleted (explicitly or by its lease's expiry); `mod_revision` is the
    /// deletion's revision and the value is empty.
    Delete(KeyValue),
}

/// The receiving end of a prefix watch; events arrive in revision order.
#[derive(Debug)]
pub struct WatchReceiver {
    pub(crate) events: Receiver<Result<WatchEvent>>,
    /// The store's endpoint, for the error when the watch ends.
    pub(crate) endpoint: String,
}

impl WatchReceiver {
    /// The next event if one is already there.
    pub fn try_next(&self) -> Option<Result<WatchEvent>> {
        self.events.try_recv().ok()
    }

    /// The next event, waiting up to `timeout` (real time: this is how a server thread
    /// waits on a watch). `None` on timeout; an error when the watch ended.
    pub fn next_timeout(&self, timeout: Duration) -> Option<Result<WatchEvent>> {
        match self.events.recv_timeout(timeout) {
            Ok(event) => Some(event),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Err(crate::Error::Unavailable {
                endpoint: self.endpoint.clone(),
                op: "watch",
                reason: "the watch stream ended".into(),
            })),
        }
    }
}

/// The operations the coordinator needs from etcd. Blocking: see `crate::etcd` for why.
pub trait MetaKv: Send + Sync + std::fmt::Debug {
    /// The endpoint(s), for error messages.
    fn endpoint(&self) -> &str;
    /// One key, or `None`.
    fn get(&self, key: &str) -> Result<Option<KeyValue>>;
    /// Every key under `prefix`, in key order, and the revision they were read at.
    fn range_prefix(&self, prefix: &str) -> Result<(Vec<KeyValue>, Revision)>;
    /// Runs a guarded transaction. One that attaches a key to a lease the store does not
    /// hold is refused whole with [`crate::Error::LeaseExpired`] naming that lease.
    fn txn(&self, txn: &Txn) -> Result<TxnOutcome>;
    /// Grants a lease of `ttl` (etcd rounds up to whole seconds).
    fn grant_lease(&self, ttl: Duration) -> Result<LeaseId>;
    /// Renews a lease to its full TTL; [`crate::Error::LeaseExpired`] when the store no
    /// longer holds it (expired or revoked: gone for good).
    fn keep_alive(&self, lease: LeaseId) -> Result<()>;
    /// Revokes a lease, deleting its keys; a lease already gone is not an error.
    fn revoke_lease(&self, lease: LeaseId) -> Result<()>;
    /// Watches every key under `prefix` from `start_revision` on.
    fn watch_prefix(&self, prefix: &str, start_revision: Revision) -> Result<WatchReceiver>;
}

/// A KV handle shared behind a pointer: what a composition root hands over, so the code
/// above it is written once for etcd and for the in-memory twin.
pub type SharedKv = std::sync::Arc<dyn MetaKv>;

impl<T: MetaKv + ?Sized> MetaKv for std::sync::Arc<T> {
    fn endpoint(&self) -> &str {
        (**self).endpoint()
    }
    fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        (**self).get(key)
    }
    fn range_prefix(&self, prefix: &str) -> Result<(Vec<KeyValue>, Revision)> {
        (**self).range_prefix(prefix)
    }
    fn txn(&self, txn: &Txn) -> Result<TxnOutcome> {
        (**self).txn(txn)
    }
    fn grant_lease(&self, ttl: Duration) -> Result<LeaseId> {
        (**self).grant_lease(ttl)
    }
    fn keep_alive(&self, lease: LeaseId) -> Result<()> {
        (**self).keep_alive(lease)
    }
    fn revoke_lease(&self, lease: LeaseId) -> Result<()> {
        (**self).revoke_lease(lease)
    }
    fn watch_prefix(&self, prefix: &str, start_revision: Revision) -> Result<WatchReceiver> {
        (**self).watch_prefix(prefix, start_revision)
    }
}
