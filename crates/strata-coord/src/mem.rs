//! The in-memory twin of etcd, on an injected clock. It keeps what the coordinator relies
//! on with etcd's semantics: one revision per write transaction, create/mod revisions,
//! compares where revision 0 means absent, leases that expire when the clock passes
//! their TTL since the last keepalive *received* (deleting their keys in one revision, as
//! etcd's lessor does), and prefix watches that see those deletions.
//!
//! Each [`MemKv::connect`] handle is one client: a test cuts a single server off
//! ([`MemKv::set_reachable`]) while the master still reaches the store, and can run a
//! closure just before the handle's next transaction is applied
//! ([`MemKv::before_next_txn`]) to interleave a zombie's paused request with a fencer.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use strata_runtime::clock::Clock;

use crate::error::{Error, Result};
use crate::kv::{
    CompareTarget, KeyValue, LeaseId, MetaKv, Op, Revision, Txn, TxnOutcome, WatchEvent,
    WatchReceiver,
};

/// A hook run once, just before a transaction is applied.
type TxnHook = Box<dyn FnOnce() + Send>;

#[derive(Debug)]
struct MemLease {
    ttl: Duration,
    expires_at: Instant,
}

struct Watcher {
    prefix: String,
    events: Sender<Result<WatchEvent>>,
}

#[derive(Default)]
struct State {
    revision: Revision,
    keys: BTreeMap<String, KeyValue>,
    leases: HashMap<LeaseId, MemLease>,
    next_lease: LeaseId,
    watchers: Vec<Watcher>,
    /// Every change ever made, so a watch can start at a past revision (no compaction).
    history: Vec<(Revision, WatchEvent)>,
}

/// One client handle onto a shared in-memory store.
#[derive(Clone)]
pub struct MemKv {
    state: Arc<Mutex<State>>,
    clock: Arc<dyn Clock>,
    reachable: Arc<AtomicBool>,
    hook: Arc<Mutex<Option<TxnHook>>>,
    name: Arc<str>,
}

impl std::fmt::Debug for MemKv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemKv").field("name", &self.name).finish()
    }
}

impl MemKv {
    /// A new, empty store whose leases run on `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        let state = State {
            revision: 1, // etcd's first revision; a fresh key's create_revision is ≥ 2
            next_lease: 0x1000,
            ..State::default()
        };
        MemKv {
            state: Arc::new(Mutex::new(state)),
            clock,
            reachable: Arc::new(AtomicBool::new(true)),
            hook: Arc::new(Mutex::new(None)),
            name: "memory://etcd".into(),
        }
    }

    /// Another client of the same store, with its own reachability and hook.
    pub fn connect(&self, name: &str) -> Self {
        MemKv {
            reachable: Arc::new(AtomicBool::new(true)),
            hook: Arc::new(Mutex::new(None)),
            name: format!("memory://etcd ({name})").into(),
            ..self.clone()
        }
    }

    /// Cuts this client off from the store (`false`) or reconnects it.
    pub fn set_reachable(&self, reachable: bool) {
        self.reachable.store(reachable, Ordering::SeqCst);
    }

    /// Runs `hook` just before this client's next transaction is applied (after any
    /// client-side check the caller made): a paused request meeting a concurrent actor.
    pub fn before_next_txn(&self, hook: impl FnOnce() + Send + 'static) {
        *self.hook.lock() = Some(Box::new(hook));
    }

    /// Runs etcd's lessor now: expires every lease the clock has passed (their keys are
    /// deleted and watchers see it). Every other call does this first too.
    pub fn expire_leases(&self) {
        drop(self.locked());
    }

    /// Drops a lease as etcd's lessor (or another client's revoke) would.
    pub fn revoke_lease_for_test(&self, lease: LeaseId) {
        self.locked().drop_lease(lease);
    }

    /// The store's current revision.
    pub fn revision(&self) -> Revision {
        self.state.lock().revision
    }

    fn reach(&self, op: &'static str) -> Result<()> {
        if self.reachable.load(Ordering::SeqCst) {
            Ok(())
        } else {
            Err(Error::Unavailable {
                endpoint: self.name.to_string(),
                op,
                reason: "connection refused (cut off by the test)".into(),
            })
        }
    }

    /// Locks the state after expiring every lease the clock has passed, as etcd's lessor
    /// would have by now.
    fn locked(&self) -> parking_lot::MutexGuard<'_, State> {
        let mut state = self.state.lock();
        let now = self.clock.now();
        let expired: Vec<LeaseId> = state
            .leases
            .iter()
            .filter(|(_, lease)| lease.expires_at <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            state.drop_lease(id);
        }
        state
    }
}

impl State {
    /// Removes a lease and, in one revision, every key attached to it.
    fn drop_lease(&mut self, id: LeaseId) {
        self.leases.remove(&id);
        let doomed: Vec<String> = self
            .keys
            .values()
            .filter(|kv| kv.lease == id)
            .map(|kv| kv.key.clone())
            .collect();
        if doomed.is_empty() {
            return;
        }
        self.revision += 1;
        for key in doomed {
            self.delete_key(&key);
        }
    }

    fn put_key(&mut self, key: &str, value: &[u8], lease: LeaseId) {
        let create_revision = self
            .keys
            .get(key)
            .map_or(self.revision, |kv| kv.create_revision);
        let kv = KeyValue {
            key: key.to_owned(),
            value: value.to_vec(),
            create_revision,
            mod_revision: self.revision,
            lease,
        };
        self.keys.insert(key.to_owned(), kv.clone());
        self.publish(WatchEvent::Put(kv));
    }

    fn delete_key(&mut self, key: &str) -> bool {
        let Some(old) = self.keys.remove(key) else {
            return false;
        };
        let tombstone = KeyValue {
            value: Vec::new(),
            create_revision: 0,
            mod_revision: self.revision,
            lease: 0,
            ..old
        };
        self.publish(WatchEvent::Delete(tombstone));
        true
    }

    fn publish(&mut self, event: WatchEvent) {
        let key = event_key(&event).to_owned();
        self.watchers
            .retain(|w| !key.starts_with(&w.prefix) || w.events.send(Ok(event.clone())).is_ok());
        self.history.push((self.revision, event));
    }

    fn compare_holds(&self, compare: &crate::kv::Compare) -> bool {
        let current = self
            .keys
            .get(&compare.key)
            .map_or(0, |kv| match compare.target {
                CompareTarget::CreateRevision => kv.create_revision,
                CompareTarget::ModRevision => kv.mod_revision,
            });
        current == compare.revision
    }

    /// etcd refuses a whole txn that attaches a key to a lease it does not hold.
    fn check_leases(&self, endpoint: &str, txn: &Txn) -> Result<()> {
        for op in &txn.ops {
            if let Op::Put {
                lease: Some(id), ..
            } = op
            {
                if !self.leases.contains_key(id) {
                    return Err(lease_gone(endpoint, *id, "txn"));
                }
            }
        }
        Ok(())
    }

    fn apply(&mut self, txn: &Txn) -> TxnOutcome {
        if !txn.compares.iter().all(|c| self.compare_holds(c)) {
            return TxnOutcome {
                succeeded: false,
                revision: self.revision,
            };
        }
        let before = self.revision;
        self.revision += 1;
        let mut changed = false;
        for op in &txn.ops {
            match op {
                Op::Put { key, value, lease } => {
                    self.put_key(key, value, lease.unwrap_or(0));
                    changed = true;
                }
                Op::Delete { key } => changed |= self.delete_key(key),
            }
        }
        if !changed {
            self.revision = before; // etcd: a txn that changes nothing takes no revision
        }
        TxnOutcome {
            succeeded: true,
            revision: self.revision,
        }
    }
}

/// What etcd answers for a lease it does not hold, as `EtcdKv` reports it.
fn lease_gone(endpoint: &str, lease: LeaseId, op: &str) -> Error {
    Error::lease_expired(
        endpoint,
        lease,
        format!("etcd does not hold it (expired or revoked), refused {op}"),
    )
}

fn event_key(event: &WatchEvent) -> &str {
    match event {
        WatchEvent::Put(kv) | WatchEvent::Delete(kv) => &kv.key,
    }
}

impl MetaKv for MemKv {
    fn endpoint(&self) -> &str {
        &self.name
    }

    fn get(&self, key: &str) -> Result<Option<KeyValue>> {
        self.reach("get")?;
        Ok(self.locked().keys.get(key).cloned())
    }

    fn range_prefix(&self, prefix: &str) -> Result<(Vec<KeyValue>, Revision)> {
        self.reach("range")?;
        let state = self.locked();
        let kvs = state
            .keys
            .range(prefix.to_owned()..)
            .take_while(|(key, _)| key.starts_with(prefix))
            .map(|(_, kv)| kv.clone())
            .collect();
        Ok((kvs, state.revision))
    }

    fn txn(&self, txn: &Txn) -> Result<TxnOutcome> {
        self.reach("txn")?;
        if let Some(hook) = self.hook.lock().take() {
            hook();
        }
        self.reach("txn")?;
        let mut state = self.locked();
        state.check_leases(&self.name, txn)?;
        Ok(state.apply(txn))
    }

    fn grant_lease(&self, ttl: Duration) -> Result<LeaseId> {
        self.reach("lease grant")?;
        let expires_at = self.clock.now() + ttl;
        let mut state = self.locked();
        state.next_lease += 1;
        let id = state.next_lease;
        state.leases.insert(id, MemLease { ttl, expires_at });
        Ok(id)
    }

    fn keep_alive(&self, lease: LeaseId) -> Result<()> {
        self.reach("lease keepalive")?;
        let now = self.clock.now();
        let mut state = self.locked();
        match state.leases.get_mut(&lease) {
            Some(held) => {
                held.expires_at = now + held.ttl;
                Ok(())
            }
            None => Err(lease_gone(&self.name, lease, "lease keepalive")),
        }
    }

    fn revoke_lease(&self, lease: LeaseId) -> Result<()> {
        self.reach("lease revoke")?;
        self.locked().drop_lease(lease);
        Ok(())
    }

    fn watch_prefix(&self, prefix: &str, start_revision: Revision) -> Result<WatchReceiver> {
        self.reach("watch")?;
        let (sender, receiver) = channel();
        let mut state = self.locked();
        for (revision, event) in &state.history {
            if *revision >= start_revision && event_key(event).starts_with(prefix) {
                let _ = sender.send(Ok(event.clone()));
            }
        }
        state.watchers.push(Watcher {
            prefix: prefix.to_owned(),
            events: sender,
        });
        Ok(WatchReceiver {
            events: receiver,
            endpoint: self.name.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use strata_runtime::clock::ManualClock;

    use super::*;

    const TTL: Duration = Duration::from_secs(2);

    fn store() -> (Arc<ManualClock>, MemKv) {
        let clock = Arc::new(ManualClock::new(0));
        let kv = MemKv::new(clock.clone());
        (clock, kv.connect("a"))
    }

    fn leased_put(key: &str, lease: LeaseId) -> Txn {
        Txn {
            compares: Vec::new(),
            ops: vec![Op::Put {
                key: key.into(),
                value: b"v".to_vec(),
                lease: Some(lease),
            }],
        }
    }

    fn assert_gone(result: Result<impl std::fmt::Debug>, lease: LeaseId) {
        match result {
            Err(Error::LeaseExpired {
                lease: named,
                endpoint,
                ..
            }) => {
                assert_eq!(named, lease);
                assert_eq!(endpoint, "memory://etcd (a)");
            }
            other => panic!("expected the lease's expiry, got {other:?}"),
        }
    }

    #[test]
    fn a_keepalive_on_an_expired_lease_is_the_typed_expiry() {
        let (clock, kv) = store();
        let lease = kv.grant_lease(TTL).unwrap();
        clock.advance(1_999);
        kv.keep_alive(lease).unwrap(); // renewed to t=3999
        clock.advance(1_999);
        kv.keep_alive(lease).unwrap();
        clock.advance(2_000);
        assert_gone(kv.keep_alive(lease), lease);
        let revoked = kv.grant_lease(TTL).unwrap();
        kv.revoke_lease_for_test(revoked);
        assert_gone(kv.keep_alive(revoked), revoked);
    }

    #[test]
    fn a_txn_attaching_a_key_to_an_expired_lease_is_refused_whole_with_the_typed_expiry() {
        let (clock, kv) = store();
        let lease = kv.grant_lease(TTL).unwrap();
        kv.txn(&leased_put("/k1", lease)).unwrap();
        clock.advance(2_000);
        let before = kv.revision();
        let mut txn = leased_put("/k2", lease);
        txn.ops.insert(
            0,
            Op::Put {
                key: "/plain".into(),
                value: b"v".to_vec(),
                lease: None,
            },
        );
        assert_gone(kv.txn(&txn), lease);
        assert_eq!(kv.get("/plain").unwrap(), None, "nothing of it was applied");
        assert_eq!(kv.get("/k1").unwrap(), None, "the lease's key went with it");
        assert_eq!(kv.revision(), before + 1, "only the expiry's deletion");
    }

    #[test]
    fn revoking_a_lease_already_gone_is_not_an_error() {
        let (clock, kv) = store();
        let lease = kv.grant_lease(TTL).unwrap();
        clock.advance(2_000);
        kv.revoke_lease(lease).unwrap();
        assert_gone(kv.keep_alive(lease), lease);
    }
}
