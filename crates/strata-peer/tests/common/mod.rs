//! What the transport tests share: one service serving a table, a peer server for it on
//! a runtime, and the table as a forwarded request names it.

#![allow(dead_code)] // each test file uses its share

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, FamilyOptions, Get};
use strata_peer::ServeOptions;
use strata_server::remote::{PeerTable, PeerWrite};
use strata_server::{Dialect, Service, ServiceOptions, TableName, WriteDurability};

pub fn table() -> TableName {
    TableName::parse("t").unwrap()
}

/// A service with table `t` (family `cf`, one region, served here) and its peer server.
pub struct Served {
    // Dropped first: the server stops before the service it holds.
    pub runtime: tokio::runtime::Runtime,
    pub service: Arc<Service>,
    pub addr: String,
    pub peer_table: PeerTable,
    _dir: tempfile::TempDir,
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

pub fn served(options: ServeOptions) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
    service
        .admin()
        .create_table(&table(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let peer_table = service.directory().table(&table()).unwrap().peer_table();
    let runtime = runtime();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let served = Arc::clone(&service);
    runtime.spawn(strata_peer::serve_with(
        served,
        listener,
        options,
        std::future::pending(),
    ));
    Served {
        runtime,
        service,
        addr,
        peer_table,
        _dir: dir,
    }
}

pub fn write() -> PeerWrite {
    PeerWrite {
        dialect: Dialect::Hbase,
        durability: WriteDurability::SyncWal,
    }
}

pub fn put(row: &str, value: &str) -> Vec<Cell> {
    vec![Cell::put(row.to_string(), "cf", "q", 1, value.to_string())]
}

/// The value of `row`'s one cell as the service reads it locally.
pub fn local_value(service: &Service, row: &str) -> Option<Bytes> {
    let got = service
        .rows()
        .get(&table(), &Get::new(row.to_string()))
        .unwrap()?;
    got.cells.into_iter().next().map(|c| c.value)
}
