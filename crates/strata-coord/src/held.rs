//! What the garbage collector must leave alone and where it finds the live files:
//! `/held/<sid>` (the obsolete SSTables a live server still reads, under its lease, so the
//! record vanishes with the server) and every store's manifest pointer at once.

use crate::coordinator::KvCoordinator;
use crate::error::Result;
use crate::keys::{check_name, RegionId};
use crate::kv::{MetaKv, Op, Txn};
use crate::lease::Lease;
use crate::records::{decode, encode, HeldRecord, ManifestPointer, FORMAT_VERSION};
use crate::session::put;

impl<K: MetaKv> KvCoordinator<K> {
    /// Records the object keys this server still reads although no current manifest lists
    /// them (`/held/<sid>`, under its lease); an empty set deletes the record. Sent only
    /// while the lease is valid by this server's own clock.
    pub fn publish_held(&self, lease: &Lease, sid: &str, keys: &[String]) -> Result<()> {
        check_name("server id", sid)?;
        let key = self.keys.held_by(sid);
        let op = if keys.is_empty() {
            Op::Delete { key }
        } else {
            let record = HeldRecord {
                v: FORMAT_VERSION,
                keys: keys.to_vec(),
            };
            put(&key, encode(&record)?, Some(lease))
        };
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![op],
        };
        self.leased_txn(lease, &txn).map(|_| ())
    }

    /// Every live server's held object keys, by server id.
    pub fn held_files(&self) -> Result<Vec<(String, HeldRecord)>> {
        let prefix = self.keys.held();
        let (kvs, _) = self.kv.range_prefix(&prefix)?;
        kvs.iter()
            .map(|kv| {
                let sid = kv.key.strip_prefix(&prefix).unwrap_or(&kv.key).to_owned();
                Ok((sid, decode(&kv.key, &kv.value)?))
            })
            .collect()
    }

    /// Every store's manifest pointer (`/manifests/<rid>/<family>`), in key order: those of
    /// regions no table lists any more too.
    pub fn manifest_pointers(&self) -> Result<Vec<(RegionId, String, ManifestPointer)>> {
        let prefix = self.keys.manifests();
        let (kvs, _) = self.kv.range_prefix(&prefix)?;
        kvs.iter()
            .map(|kv| {
                let rest = kv.key.strip_prefix(&prefix).unwrap_or(&kv.key);
                let (rid, family) = rest.split_once('/').ok_or_else(|| {
                    crate::Error::corruption(&kv.key, "not /manifests/<rid>/<family>")
                })?;
                let rid = rid.parse().map_err(|_| {
                    crate::Error::corruption(&kv.key, "the region id is not a number")
                })?;
                Ok((rid, family.to_owned(), decode(&kv.key, &kv.value)?))
            })
            .collect()
    }
}
