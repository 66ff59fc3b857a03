//! [`EtcdCatalog`]: the service's catalog in etcd, shared by every server of the cluster.
//! Namespaces are `ns/<name>` (no value), tables `table/<namespace:name>` (the catalog's own
//! record encoding, `docs/format.md`), the access-control grants `acl`. Only the master writes: a server that is not master
//! refuses catalog changes with a retryable error naming the master's role, and follows
//! the master's changes instead (`follower.rs`).

use std::sync::Arc;

use parking_lot::RwLock;
use strata_access::Grant;
use strata_coord::kv::MetaKv;
use strata_coord::{KvCoordinator, Leadership};
use strata_server::catalog::{
    decode_grants, decode_namespace, decode_table, encode_grants, encode_namespace, encode_table,
    CatalogContents, CatalogStore, NamespaceConfig, TableRecord,
};
use strata_server::error::{Result, ServiceError};
use strata_server::TableName;

const NAMESPACE: &str = "ns/";
const TABLE: &str = "table/";
/// Every access-control grant, in one entry.
const GRANTS: &str = "acl";

/// The catalog in etcd, written under the master's leadership once it is set.
pub struct EtcdCatalog<K: MetaKv> {
    coord: Arc<KvCoordinator<K>>,
    leadership: RwLock<Option<Leadership>>,
}

impl<K: MetaKv> std::fmt::Debug for EtcdCatalog<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdCatalog")
            .field("master", &self.leadership.read().is_some())
            .finish()
    }
}

impl<K: MetaKv> EtcdCatalog<K> {
    /// The catalog of `coord`'s cluster; read-only until [`EtcdCatalog::lead`].
    pub fn new(coord: Arc<KvCoordinator<K>>) -> Arc<Self> {
        Arc::new(EtcdCatalog {
            coord,
            leadership: RwLock::new(None),
        })
    }

    /// Lets this server write the catalog, as master under `leadership`.
    pub fn lead(&self, leadership: Leadership) {
        *self.leadership.write() = Some(leadership);
    }

    fn put(&self, name: String, value: Vec<u8>) -> Result<()> {
        let master = self.master()?;
        self.coord
            .put_catalog_entry(&master, &name, value)
            .map_err(coordination)
    }

    fn delete(&self, name: String) -> Result<()> {
        let master = self.master()?;
        self.coord
            .delete_catalog_entry(&master, &name)
            .map_err(coordination)
    }

    fn master(&self) -> Result<Leadership> {
        self.leadership.read().clone().ok_or_else(|| {
            ServiceError::Engine(strata_engine::Error::Closed(
                "only the cluster's master changes tables and namespaces; send the request to it"
                    .into(),
            ))
        })
    }
}

/// etcd failures are the service's retryable "unavailable".
fn coordination(e: strata_coord::Error) -> ServiceError {
    ServiceError::Engine(strata_engine::Error::Closed(format!(
        "cluster catalog: {e}"
    )))
}

/// Decodes one `/catalog/` entry into `contents`.
fn read_entry(contents: &mut CatalogContents, name: &str, value: &[u8]) -> Result<()> {
    if let Some(namespace) = name.strip_prefix(NAMESPACE) {
        contents
            .namespaces
            .insert(namespace.to_string(), decode_namespace(value)?);
    } else if let Some(table) = name.strip_prefix(TABLE) {
        let table = TableName::parse(table).map_err(|_| {
            ServiceError::CatalogCorrupt(format!("bad table name in catalog entry {name:?}"))
        })?;
        let record: TableRecord = decode_table(value)?;
        contents.tables.insert(table, record);
    } else if name == GRANTS {
        contents.grants = decode_grants(value)?;
    } else {
        return Err(ServiceError::CatalogCorrupt(format!(
            "unknown catalog entry {name:?}"
        )));
    }
    Ok(())
}

impl<K: MetaKv> CatalogStore for EtcdCatalog<K> {
    fn load(&self) -> Result<CatalogContents> {
        let (entries, _) = self.coord.catalog_entries().map_err(coordination)?;
        let mut contents = CatalogContents::default();
        for (name, value) in entries {
            read_entry(&mut contents, &name, &value)?;
        }
        Ok(contents)
    }

    fn put_namespace(&self, namespace: &str, config: &NamespaceConfig) -> Result<()> {
        self.put(format!("{NAMESPACE}{namespace}"), encode_namespace(config))
    }

    fn delete_namespace(&self, namespace: &str) -> Result<()> {
        self.delete(format!("{NAMESPACE}{namespace}"))
    }

    fn put_table(&self, name: &TableName, record: &TableRecord) -> Result<()> {
        self.put(format!("{TABLE}{name}"), encode_table(record))
    }

    fn delete_table(&self, name: &TableName) -> Result<()> {
        self.delete(format!("{TABLE}{name}"))
    }

    fn put_grants(&self, grants: &[Grant]) -> Result<()> {
        self.put(GRANTS.to_string(), encode_grants(grants))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use strata_coord::{Campaign, CoordOptions, MemCoordinator, MemKv};
    use strata_engine::FamilyOptions;
    use strata_runtime::clock::ManualClock;
    use strata_server::{Service, ServiceOptions};

    use super::*;
    use bytes::Bytes;

    fn service(dir: &std::path::Path, catalog: &Arc<EtcdCatalog<MemKv>>) -> Arc<Service> {
        let mut options = ServiceOptions::new(dir);
        options.catalog = Some(Arc::clone(catalog) as Arc<dyn CatalogStore>);
        Service::open(options).unwrap()
    }

    /// Coordinators of servers named `names`, over one in-memory etcd.
    fn coordinators<const N: usize>(names: [&str; N]) -> [Arc<MemCoordinator>; N] {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let kv = MemKv::new(clock.clone());
        names.map(|name| {
            Arc::new(
                MemCoordinator::new(kv.connect(name), clock.clone(), CoordOptions::new("c"))
                    .unwrap(),
            )
        })
    }

    #[test]
    fn the_master_writes_the_catalog_and_another_server_follows_it() {
        let [master_coord, follower_coord] = coordinators(["m", "f"]);
        let lease = master_coord.grant_lease().unwrap();
        let Campaign::Won(leadership) = master_coord.campaign(&lease, "m", "m:1").unwrap() else {
            panic!("the key is free")
        };
        let (master_catalog, follower_catalog) = (
            EtcdCatalog::new(master_coord),
            EtcdCatalog::new(follower_coord),
        );
        master_catalog.lead(leadership);
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let master = service(dirs[0].path(), &master_catalog);
        let follower = service(dirs[1].path(), &follower_catalog);
        let t = TableName::parse("apps:t").unwrap();
        master.admin().create_namespace("apps").unwrap();
        master
            .admin()
            .create_table(&t, vec![FamilyOptions::new("cf")], Vec::new())
            .unwrap();
        let refused = follower.admin().create_namespace("other").unwrap_err();
        assert!(
            refused.to_string().contains("only the cluster's master"),
            "{refused}"
        );
        assert!(refused.kind().is_retryable());
        assert_eq!(follower.directory().catalog_sync().follow().unwrap(), 1);
        assert_eq!(follower.admin().list_tables(), vec![t.clone()]);
        assert!(follower
            .admin()
            .list_namespaces()
            .contains(&"apps".to_string()));
        let quota: NamespaceConfig =
            [("hbase.namespace.quota.maxtables".into(), "5".into())].into();
        master
            .admin()
            .modify_namespace("apps", quota.clone())
            .unwrap();
        assert_eq!(follower.directory().catalog_sync().follow().unwrap(), 0);
        assert_eq!(follower.admin().namespace_config("apps").unwrap(), quota);
        let record = master_catalog.load().unwrap().tables[&t].clone();
        assert_eq!(record.families[0].name, b"cf".to_vec());
    }

    /// A standby opened before the master created regions, then made master: it allocates
    /// ids above the old master's once it followed the catalog, and above any id it is told
    /// is in use elsewhere (the cluster's directory, the store).
    #[test]
    fn a_new_master_allocates_region_ids_above_every_id_in_use() {
        let [old_coord, new_coord] = coordinators(["m", "f"]);
        let (old_lease, new_lease) = (
            old_coord.grant_lease().unwrap(),
            new_coord.grant_lease().unwrap(),
        );
        let Campaign::Won(old_lead) = old_coord.campaign(&old_lease, "m", "m:1").unwrap() else {
            panic!("the key is free")
        };
        let (old_catalog, new_catalog) = (
            EtcdCatalog::new(Arc::clone(&old_coord)),
            EtcdCatalog::new(Arc::clone(&new_coord)),
        );
        old_catalog.lead(old_lead.clone());
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let old = service(dirs[0].path(), &old_catalog);
        let new = service(dirs[1].path(), &new_catalog);
        let families = || vec![FamilyOptions::new("cf")];
        let splits = vec![Bytes::from_static(b"m")];
        let t = TableName::parse("t").unwrap();
        old.admin()
            .create_table(&t, families(), splits.clone())
            .unwrap();
        let ids = |s: &Service, name: &TableName| -> Vec<u64> {
            let regions = s.directory().table_regions(name).unwrap();
            regions.iter().map(|r| r.id).collect()
        };
        let used = ids(&old, &t);
        old_coord.resign(&old_lead).unwrap();
        let Campaign::Won(new_lead) = new_coord.campaign(&new_lease, "f", "f:1").unwrap() else {
            panic!("the old master resigned")
        };
        new_catalog.lead(new_lead);
        new.directory().catalog_sync().follow().unwrap();
        let u = TableName::parse("u").unwrap();
        new.admin()
            .create_table(&u, families(), splits.clone())
            .unwrap();
        let fresh = ids(&new, &u);
        assert!(
            fresh.iter().all(|id| id > used.iter().max().unwrap()),
            "{fresh:?} reuses the old master's {used:?}"
        );
        new.directory()
            .catalog_sync()
            .reserve_region_ids_above(50)
            .unwrap();
        let v = TableName::parse("v").unwrap();
        new.admin().create_table(&v, families(), splits).unwrap();
        assert!(
            ids(&new, &v).iter().all(|id| *id > 50),
            "{:?}",
            ids(&new, &v)
        );
    }
}
