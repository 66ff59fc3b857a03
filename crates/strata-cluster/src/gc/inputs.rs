//! What a pass reads from etcd, behind [`GcInputs`] so the collector's core can be tested
//! on the in-memory twin (and with any made-up state).
//!
//! The reads are ordered for safety: the catalog first, then the pointers. A split commits
//! its daughters' manifests before the catalog names them, so a catalog read before the
//! pointers can only be older than them: the parent still counts as live (its files are
//! kept), and the daughters' new objects are young. Read the other way round, a new
//! catalog with old pointers would make the parent's files look unreferenced (the
//! first-seen rule would still save them, but it should not have to).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use strata_coord::kv::MetaKv;
use strata_coord::{KvCoordinator, Lease, StreamRecord};
use strata_runtime::clock::Clock;
use strata_server::catalog::CatalogStore;

use crate::catalog::EtcdCatalog;
use crate::error::{Error, Result};

/// The cluster's state as one pass sees it.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The regions the catalog's tables list: only their files are live.
    pub live_regions: HashSet<u64>,
    /// Every manifest pointer: region, family directory name, manifest number.
    pub pointers: Vec<(u64, String, u64)>,
    /// Object keys some live server still reads.
    pub held: HashSet<String>,
    /// WAL stream records by stream name (`<server>-<incarnation>`).
    pub streams: HashMap<String, StreamRecord>,
}

/// The collector's view of the cluster.
pub trait GcInputs: Send + Sync {
    /// `Ok` only while this process may delete: it is the master, under a valid lease.
    fn may_delete(&self) -> Result<()>;
    /// Reads the state a pass needs (catalog before pointers).
    fn snapshot(&self) -> Result<Snapshot>;
}

/// [`GcInputs`] through a coordinator (etcd, or its twin in tests).
pub struct CoordInputs<K: MetaKv> {
    coord: Arc<KvCoordinator<K>>,
    catalog: Arc<EtcdCatalog<K>>,
    lease: Arc<Lease>,
    clock: Arc<dyn Clock>,
    is_master: Arc<dyn Fn() -> bool + Send + Sync>,
}

impl<K: MetaKv> CoordInputs<K> {
    /// Inputs read through `coord`; deleting is allowed while `is_master` says so and
    /// `lease` is valid by `clock`.
    pub fn new(
        coord: Arc<KvCoordinator<K>>,
        lease: Arc<Lease>,
        clock: Arc<dyn Clock>,
        is_master: Arc<dyn Fn() -> bool + Send + Sync>,
    ) -> Self {
        CoordInputs {
            catalog: EtcdCatalog::new(Arc::clone(&coord)),
            coord,
            lease,
            clock,
            is_master,
        }
    }

    fn etcd(&self, source: strata_coord::Error) -> Error {
        Error::Etcd {
            endpoints: self.coord.kv().endpoint().to_owned(),
            source,
        }
    }
}

impl<K: MetaKv> GcInputs for CoordInputs<K> {
    fn may_delete(&self) -> Result<()> {
        if !(self.is_master)() {
            return Err(Error::Collector("this server is not the master".into()));
        }
        self.lease
            .check(self.clock.now())
            .map_err(|source| self.etcd(source))
    }

    fn snapshot(&self) -> Result<Snapshot> {
        let contents = self
            .catalog
            .load()
            .map_err(|e| Error::Collector(format!("cannot read the catalog: {e}")))?;
        let live_regions = contents
            .tables
            .values()
            .flat_map(|t| t.regions.iter().map(|r| r.id))
            .collect();
        let pointers = self
            .coord
            .manifest_pointers()
            .map_err(|e| self.etcd(e))?
            .into_iter()
            .map(|(rid, family, pointer)| (rid, family, pointer.manifest))
            .collect();
        let held = self
            .coord
            .held_files()
            .map_err(|e| self.etcd(e))?
            .into_iter()
            .flat_map(|(_, record)| record.keys)
            .collect();
        let streams = self
            .coord
            .stream_records()
            .map_err(|e| self.etcd(e))?
            .into_iter()
            .collect();
        Ok(Snapshot {
            live_regions,
            pointers,
            held,
            streams,
        })
    }
}
