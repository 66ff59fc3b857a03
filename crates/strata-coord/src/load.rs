//! `/load/<sid>`: how busy each region is, as its server measured it, for the master's
//! balancer. Written under the server's lease (it vanishes with the server) and only when
//! it changed enough to matter, so a steady cluster writes almost nothing.

use std::collections::{BTreeMap, HashMap};

use crate::coordinator::KvCoordinator;
use crate::error::Result;
use crate::keys::check_name;
use crate::kv::{MetaKv, Txn};
use crate::lease::Lease;
use crate::records::{decode, encode, LoadRecord, FORMAT_VERSION};
use crate::session::put;

impl<K: MetaKv> KvCoordinator<K> {
    /// Records this server's requests per second by region (`/load/<sid>`, under its
    /// lease). Sent only while the lease is valid by this server's own clock.
    pub fn publish_load(
        &self,
        lease: &Lease,
        sid: &str,
        regions: &BTreeMap<u64, u64>,
    ) -> Result<()> {
        check_name("server id", sid)?;
        let record = LoadRecord {
            v: FORMAT_VERSION,
            regions: regions.clone(),
        };
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![put(&self.keys.load_of(sid), encode(&record)?, Some(lease))],
        };
        self.leased_txn(lease, &txn).map(|_| ())
    }

    /// Every live server's last published load, by server id.
    pub fn loads(&self) -> Result<HashMap<String, BTreeMap<u64, u64>>> {
        let prefix = self.keys.loads();
        let (kvs, _) = self.kv.range_prefix(&prefix)?;
        kvs.iter()
            .map(|kv| {
                let sid = kv.key.strip_prefix(&prefix).unwrap_or(&kv.key).to_owned();
                let record: LoadRecord = decode(&kv.key, &kv.value)?;
                Ok((sid, record.regions))
            })
            .collect()
    }
}
