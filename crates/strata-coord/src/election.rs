//! Master election on one key, `/strata/<c>/master`, created under the candidate's lease.
//! The key's create revision is the term: every master write compares it, so a master
//! whose lease expired (its key deleted, maybe already recreated by a successor) can
//! write nothing. This is what etcd's election API does underneath, on one key instead of
//! a queue of candidates: a loser simply campaigns again when its watch sees the key go.

use std::sync::Arc;

use crate::coordinator::{Campaign, Epoch, KvCoordinator, Leadership, MasterInfo};
use crate::error::{Error, Result};
use crate::keys::check_name;
use crate::kv::{Compare, MetaKv, Op, Txn, WatchReceiver};
use crate::lease::Lease;
use crate::records::{decode, encode, MasterRecord, FORMAT_VERSION};
use crate::session::put;

impl<K: MetaKv> KvCoordinator<K> {
    /// Tries once to create the election key under `lease`.
    pub fn campaign(&self, lease: &Arc<Lease>, sid: &str, addr: &str) -> Result<Campaign> {
        check_name("server id", sid)?;
        let key = self.keys.master();
        let record = MasterRecord {
            v: FORMAT_VERSION,
            sid: sid.to_owned(),
            addr: addr.to_owned(),
        };
        let txn = Txn {
            compares: vec![Compare::absent(&key)],
            ops: vec![put(&key, encode(&record)?, Some(lease))],
        };
        let outcome = self.leased_txn(lease, &txn)?;
        if outcome.succeeded {
            return Ok(Campaign::Won(Leadership {
                sid: sid.to_owned(),
                term: outcome.revision,
                lease: Arc::clone(lease),
            }));
        }
        Ok(Campaign::Lost(self.master()?))
    }

    /// Deletes the election key if it is still this leadership's.
    pub fn resign(&self, master: &Leadership) -> Result<()> {
        let key = self.keys.master();
        let txn = Txn {
            compares: vec![Compare::create_revision(&key, master.term)],
            ops: vec![Op::Delete { key }],
        };
        self.kv.txn(&txn).map(|_| ())
    }

    /// The current master.
    pub fn master(&self) -> Result<Option<MasterInfo>> {
        let Some(kv) = self.kv.get(&self.keys.master())? else {
            return Ok(None);
        };
        let record: MasterRecord = decode(&kv.key, &kv.value)?;
        Ok(Some(MasterInfo {
            sid: record.sid,
            addr: record.addr,
            term: kv.create_revision,
        }))
    }

    /// The current master and a watch on the election key from right after that read.
    pub fn observe_master(&self) -> Result<(Option<MasterInfo>, WatchReceiver)> {
        let key = self.keys.master();
        let (kvs, revision) = self.kv.range_prefix(&key)?;
        let current = match kvs.iter().find(|kv| kv.key == key) {
            Some(kv) => {
                let record: MasterRecord = decode(&kv.key, &kv.value)?;
                Some(MasterInfo {
                    sid: record.sid,
                    addr: record.addr,
                    term: kv.create_revision,
                })
            }
            None => None,
        };
        Ok((current, self.kv.watch_prefix(&key, revision + 1)?))
    }

    /// A master write: sent only while the master's lease is valid by its own clock, and
    /// applied only while its term holds. `conflict` describes a lost data compare.
    pub(crate) fn master_txn(
        &self,
        master: &Leadership,
        mut txn: Txn,
        conflict: impl FnOnce() -> String,
    ) -> Result<Epoch> {
        let key = self.keys.master();
        txn.compares
            .push(Compare::create_revision(&key, master.term));
        let outcome = self.leased_txn(&master.lease, &txn)?;
        if outcome.succeeded {
            return Ok(outcome.revision);
        }
        match self.master()? {
            Some(current) if current.term == master.term => Err(Error::Fenced(conflict())),
            _ => Err(Error::NotLeader(format!(
                "{} lost the term {} of {key}",
                master.sid, master.term
            ))),
        }
    }
}
