//! The catalog in etcd (cluster mode): namespaces and tables under `/catalog/`, each value
//! the service's own encoding of its record. Only the master writes it (every write
//! compares its term); every server reads it and watches it to follow changes.

use crate::coordinator::{KvCoordinator, Leadership};
use crate::error::Result;
use crate::keys::check_name;
use crate::kv::Revision;
use crate::kv::{MetaKv, Op, Txn, WatchReceiver};
use crate::session::put;

/// One catalog entry: its name under `/catalog/` and its value.
pub type CatalogEntry = (String, Vec<u8>);

impl<K: MetaKv> KvCoordinator<K> {
    /// Writes catalog entry `name` (e.g. `table/default:t`). Master only.
    pub fn put_catalog_entry(&self, master: &Leadership, name: &str, value: Vec<u8>) -> Result<()> {
        let key = self.catalog_key(name)?;
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![put(&key, value, None)],
        };
        self.master_txn(master, txn, || format!("catalog entry {name}"))
            .map(|_| ())
    }

    /// Deletes catalog entry `name`. Master only.
    pub fn delete_catalog_entry(&self, master: &Leadership, name: &str) -> Result<()> {
        let key = self.catalog_key(name)?;
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![Op::Delete { key }],
        };
        self.master_txn(master, txn, || format!("catalog entry {name}"))
            .map(|_| ())
    }

    /// Every catalog entry (name without the prefix, value), and the revision read at.
    pub fn catalog_entries(&self) -> Result<(Vec<CatalogEntry>, Revision)> {
        let prefix = self.keys.catalog();
        let (kvs, revision) = self.kv.range_prefix(&prefix)?;
        let entries = kvs
            .into_iter()
            .map(|kv| (kv.key[prefix.len()..].to_string(), kv.value))
            .collect();
        Ok((entries, revision))
    }

    /// Watches every key of the cluster from now on (servers, regions, owners, catalog,
    /// manifests...): a follower wakes on any change and reads what it needs.
    pub fn watch_cluster(&self) -> Result<WatchReceiver> {
        self.kv.watch_prefix(self.keys.root(), 0)
    }

    /// Watches the catalog from `start_revision` on.
    pub fn watch_catalog(&self, start_revision: Revision) -> Result<WatchReceiver> {
        self.kv.watch_prefix(&self.keys.catalog(), start_revision)
    }

    fn catalog_key(&self, name: &str) -> Result<String> {
        let (kind, rest) = name.split_once('/').unwrap_or(("", name));
        check_name("catalog entry kind", kind)?;
        check_name("catalog entry", rest)?;
        Ok(format!("{}{name}", self.keys.catalog()))
    }
}

impl<K: MetaKv> KvCoordinator<K> {
    /// Asks the master to split region `id` (its owner, while its lease is valid).
    pub fn request_split(
        &self,
        lease: &crate::lease::Lease,
        id: crate::keys::RegionId,
    ) -> Result<()> {
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![put(
                &self.keys.split_request(id),
                crate::records::version_only(),
                None,
            )],
        };
        self.leased_txn(lease, &txn).map(|_| ())
    }

    /// The regions whose split was asked for.
    pub fn split_requests(&self) -> Result<Vec<crate::keys::RegionId>> {
        let (kvs, _) = self.kv.range_prefix(&self.keys.split_requests())?;
        kvs.iter()
            .map(|kv| self.keys.region_id_of(&kv.key))
            .collect()
    }

    /// Drops the request to split region `id` (master only).
    pub fn clear_split_request(
        &self,
        master: &Leadership,
        id: crate::keys::RegionId,
    ) -> Result<()> {
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![Op::Delete {
                key: self.keys.split_request(id),
            }],
        };
        self.master_txn(master, txn, || format!("split request of region {id}"))
            .map(|_| ())
    }
}

impl<K: MetaKv> KvCoordinator<K> {
    /// Marks server `sid` decommissioned (`on`) or not (master only): the mark outlives
    /// the master, so the next one keeps regions off the server too.
    pub fn set_decommissioned(&self, master: &Leadership, sid: &str, on: bool) -> Result<()> {
        check_name("server id", sid)?;
        let key = format!("{}{sid}", self.keys.decommissioned());
        let op = if on {
            put(&key, crate::records::version_only(), None)
        } else {
            Op::Delete { key }
        };
        let txn = Txn {
            compares: Vec::new(),
            ops: vec![op],
        };
        self.master_txn(master, txn, || format!("decommission mark of {sid}"))
            .map(|_| ())
    }

    /// The servers marked decommissioned.
    pub fn decommissioned_servers(&self) -> Result<Vec<String>> {
        let prefix = self.keys.decommissioned();
        let (kvs, _) = self.kv.range_prefix(&prefix)?;
        Ok(kvs
            .into_iter()
            .map(|kv| kv.key[prefix.len()..].to_string())
            .collect())
    }
}
