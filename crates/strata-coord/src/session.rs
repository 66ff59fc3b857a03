//! Sessions and membership: a server's lease and its `/servers/<sid>` key.

use std::sync::Arc;

use crate::coordinator::{Incarnation, KvCoordinator, LiveServer, MembershipWatch};
use crate::error::{Error, Result};
use crate::keys::check_name;
use crate::kv::{Compare, MetaKv, Op, Txn, TxnOutcome};
use crate::lease::Lease;
use crate::records::{encode, ServerRecord, FORMAT_VERSION};

impl<K: MetaKv> KvCoordinator<K> {
    /// Grants a lease; its deadline counts from the moment the request was sent.
    pub fn grant_lease(&self) -> Result<Arc<Lease>> {
        let sent = self.clock.now();
        let id = self.kv.grant_lease(self.options.ttl)?;
        Ok(Arc::new(Lease::new(
            id,
            self.options.ttl,
            self.options.margin,
            self.kv.endpoint(),
            sent,
        )))
    }

    /// One keepalive. A failure to reach etcd leaves the deadline where it was (the lease
    /// may still be alive there); etcd saying the lease is gone ends it for good.
    pub fn keep_alive(&self, lease: &Lease) -> Result<()> {
        let sent = self.clock.now();
        match self.kv.keep_alive(lease.id()) {
            Ok(()) => {
                lease.renewed(sent);
                Ok(())
            }
            Err(Error::LeaseExpired { detail, .. }) => {
                lease.lost();
                Err(lease.expired(format!("{detail}; register again")))
            }
            Err(e) => Err(e),
        }
    }

    /// Revokes the lease; every key attached to it is deleted.
    pub fn revoke(&self, lease: &Lease) -> Result<()> {
        lease.lost();
        self.kv.revoke_lease(lease.id())
    }

    /// Creates `/servers/<sid>` under the lease, failing if a live server holds the id.
    pub fn register_server(&self, lease: &Lease, sid: &str, addr: &str) -> Result<Incarnation> {
        check_name("server id", sid)?;
        let key = self.keys.server(sid);
        let record = ServerRecord {
            v: FORMAT_VERSION,
            addr: addr.to_owned(),
        };
        let txn = Txn {
            compares: vec![Compare::absent(&key)],
            ops: vec![put(&key, encode(&record)?, Some(lease))],
        };
        let outcome = self.leased_txn(lease, &txn)?;
        if !outcome.succeeded {
            return Err(Error::Fenced(format!(
                "server id {sid} is registered by a live server ({key})"
            )));
        }
        Ok(outcome.revision)
    }

    /// The servers whose membership keys exist (their leases are live).
    pub fn live_servers(&self) -> Result<Vec<LiveServer>> {
        let (kvs, _) = self.kv.range_prefix(&self.keys.servers())?;
        kvs.iter()
            .map(|kv| LiveServer::decode(&self.keys, kv))
            .collect()
    }

    /// The live servers and a watch starting right after the list was read, so no change
    /// falls between the two.
    pub fn watch_servers(&self) -> Result<(Vec<LiveServer>, MembershipWatch)> {
        let prefix = self.keys.servers();
        let (kvs, revision) = self.kv.range_prefix(&prefix)?;
        let servers = kvs
            .iter()
            .map(|kv| LiveServer::decode(&self.keys, kv))
            .collect::<Result<Vec<_>>>()?;
        let events = self.kv.watch_prefix(&prefix, revision + 1)?;
        Ok((
            servers,
            MembershipWatch {
                keys: self.keys.clone(),
                events,
            },
        ))
    }

    /// Sends `txn` only while `lease` is valid by this server's clock. etcd refusing the
    /// lease (expired there) ends it for good, as a keepalive's refusal does.
    pub(crate) fn leased_txn(&self, lease: &Lease, txn: &Txn) -> Result<TxnOutcome> {
        lease.check(self.clock.now())?;
        let outcome = self.kv.txn(txn);
        if outcome.as_ref().is_err_and(Error::is_lease_expired) {
            lease.lost();
        }
        outcome
    }
}

/// A put, attached to `lease` when given.
pub(crate) fn put(key: &str, value: Vec<u8>, lease: Option<&Lease>) -> Op {
    Op::Put {
        key: key.to_owned(),
        value,
        lease: lease.map(Lease::id),
    }
}
