//! Two in-process services serving one table between them, each forwarding the other's
//! region to it, must answer every operation exactly as one service holding both regions.

use std::sync::{Arc, OnceLock, Weak};

use bytes::Bytes;
use strata_engine::{Cell, CellType, FamilyOptions, Get, RowResult, Scan};

use super::*;
use crate::registry::{Placement, RegionClaim, RegionRegistry};
use crate::rows::{Check, CompareOp};
use crate::{ErrorKind, Service, ServiceError, ServiceOptions};

/// A peer that is another service in this process.
#[derive(Debug, Default)]
struct LoopbackPeer {
    target: OnceLock<Weak<Service>>,
    /// Forwarded mutations take it shared; a test holding it keeps them waiting, as a
    /// slow or overloaded owner would.
    mutations: parking_lot::RwLock<()>,
    /// Gets forwarded through this peer.
    gets: std::sync::atomic::AtomicU64,
}

impl LoopbackPeer {
    fn service(&self) -> Result<Arc<Service>> {
        self.target
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| ServiceError::PeerUnavailable {
                unsent: true,
                peer: self.address(),
                reason: "not started".into(),
            })
    }
}

impl RegionPeer for LoopbackPeer {
    fn address(&self) -> String {
        "loopback".into()
    }
    fn served_at(&self) -> Option<crate::remote::ServerAddress> {
        Some(crate::remote::ServerAddress {
            host: "peer.example".into(),
            thrift_port: 9091,
            http_port: 8081,
            grpc_port: 50052,
        })
    }
    fn get(&self, table: &PeerTable, get: &Get) -> Result<Option<RowResult>> {
        self.gets.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.service()?.peer_serving().serve_get(table, get)
    }
    fn mutate(&self, table: &PeerTable, cells: Vec<Cell>, write: PeerWrite) -> Result<()> {
        let _waits_while_held = self.mutations.read();
        self.service()?
            .peer_serving()
            .serve_mutate(table, cells, write)
    }
    fn mutate_if(
        &self,
        table: &PeerTable,
        row: &[u8],
        expected: ExpectedReads,
        cells: Vec<Cell>,
        write: PeerWrite,
    ) -> Result<bool> {
        self.service()?
            .peer_serving()
            .serve_mutate_if(table, row, &expected, cells, write)
    }
    fn scan_chunk(&self, table: &PeerTable, chunk: &ScanChunk) -> Result<Vec<RowResult>> {
        self.service()?
            .peer_serving()
            .serve_scan_chunk(table, chunk)
    }
    fn maintain(&self, table: &PeerTable, range: &RowSpan, work: RegionWork) -> Result<u64> {
        self.service()?
            .peer_serving()
            .serve_maintain(table, range, work)
    }
    fn admin(&self, request: &AdminRequest) -> Result<AdminReply> {
        // Through the wire encoding both ways, as the internal RPC carries it.
        let request = admin_codec::decode_request(&admin_codec::encode_request(request))?;
        let reply = self.service()?.peer_serving().serve_admin(request)?;
        admin_codec::decode_reply(&admin_codec::encode_reply(&reply))
    }
}

/// Places the regions listed as served by the peer there; every other region here.
#[derive(Debug)]
struct StaticPlacement {
    elsewhere: parking_lot::Mutex<Vec<u64>>,
    peer: Arc<LoopbackPeer>,
}

impl RegionRegistry for StaticPlacement {
    fn claim(&self, _region: RegionClaim<'_>) -> Result<()> {
        Ok(())
    }
    fn placement(&self, region: RegionClaim<'_>) -> Placement {
        if self.elsewhere.lock().contains(&region.id) {
            Placement::Peer(Arc::clone(&self.peer) as Arc<dyn RegionPeer>)
        } else {
            Placement::Here
        }
    }
}

const SPLIT: &str = "r300";

fn table() -> TableName {
    TableName::parse("t").unwrap()
}

fn open(dir: &std::path::Path, placement: &Arc<StaticPlacement>) -> Arc<Service> {
    let mut options = ServiceOptions::new(dir);
    options.region_registry = Some(Arc::clone(placement) as Arc<dyn RegionRegistry>);
    Service::open(options).unwrap()
}

fn placement(elsewhere: Vec<u64>, peer: &Arc<LoopbackPeer>) -> Arc<StaticPlacement> {
    Arc::new(StaticPlacement {
        elsewhere: parking_lot::Mutex::new(elsewhere),
        peer: Arc::clone(peer),
    })
}

/// The test table as a forwarded request names it (A and B created it alike).
fn pt(c: &Cluster) -> PeerTable {
    c.a.directory().table(&table()).unwrap().peer_table()
}

/// Services A and B (A serves region 1, B region 2) and a reference C holding both.
struct Cluster {
    a: Arc<Service>,
    b: Arc<Service>,
    /// Where A and B place regions; change, then `placements().refresh()`.
    a_places: Arc<StaticPlacement>,
    b_places: Arc<StaticPlacement>,
    /// A's peer for B's regions.
    to_b: Arc<LoopbackPeer>,
    reference: Arc<Service>,
    _dirs: Vec<tempfile::TempDir>,
}

fn cluster() -> Cluster {
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (to_b, to_a) = (
        Arc::new(LoopbackPeer::default()),
        Arc::new(LoopbackPeer::default()),
    );
    let (a_places, b_places) = (placement(vec![2], &to_b), placement(vec![1], &to_a));
    let a = open(dirs[0].path(), &a_places);
    let b = open(dirs[1].path(), &b_places);
    to_b.target.set(Arc::downgrade(&b)).unwrap();
    to_a.target.set(Arc::downgrade(&a)).unwrap();
    let reference = Service::open(ServiceOptions::new(dirs[2].path())).unwrap();
    for svc in [&a, &b, &reference] {
        let mut family = FamilyOptions::new("cf");
        family.max_versions = 3;
        let families = vec![family];
        svc.admin()
            .create_table(&table(), families, vec![Bytes::from(SPLIT)])
            .unwrap();
    }
    let ids: Vec<u64> = a
        .admin()
        .table_regions(&table())
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, [1, 2], "the placement above names these regions");
    Cluster {
        a,
        b,
        a_places,
        b_places,
        to_b,
        reference,
        _dirs: dirs,
    }
}

/// What a read answered, without server timestamps (the services' clocks differ).
fn shape(rows: &[RowResult]) -> Vec<(Bytes, Bytes, Bytes, Bytes)> {
    rows.iter()
        .flat_map(|r| r.cells.iter())
        .map(|c| {
            (
                c.row.clone(),
                c.family.clone(),
                c.qualifier.clone(),
                c.value.clone(),
            )
        })
        .collect()
}

/// A catalog every service in a test shares (cluster mode keeps it in etcd).
#[derive(Debug, Default)]
struct SharedCatalog(parking_lot::Mutex<crate::catalog::CatalogContents>);

impl crate::catalog::CatalogStore for SharedCatalog {
    fn load(&self) -> Result<crate::catalog::CatalogContents> {
        Ok(self.0.lock().clone())
    }
    fn put_namespace(
        &self,
        namespace: &str,
        config: &crate::catalog::NamespaceConfig,
    ) -> Result<()> {
        self.0
            .lock()
            .namespaces
            .insert(namespace.to_string(), config.clone());
        Ok(())
    }
    fn delete_namespace(&self, namespace: &str) -> Result<()> {
        self.0.lock().namespaces.remove(namespace);
        Ok(())
    }
    fn put_table(&self, name: &TableName, record: &crate::catalog::TableRecord) -> Result<()> {
        self.0.lock().tables.insert(name.clone(), record.clone());
        Ok(())
    }
    fn delete_table(&self, name: &TableName) -> Result<()> {
        self.0.lock().tables.remove(name);
        Ok(())
    }
    fn put_grants(&self, grants: &[strata_access::Grant]) -> Result<()> {
        self.0.lock().grants = grants.to_vec();
        Ok(())
    }
}

mod admin;
mod admin_wire;
mod cases;
mod differential;
mod inline;
mod locks;
