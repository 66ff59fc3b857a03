//! Two services, each serving one region of a table and reaching the other's through the
//! peer service over real sockets, answer every operation through either of them.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
#![allow(clippy::unwrap_used, clippy::expect_used)] // test harness: a failed setup should panic

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strata_engine::{Cell, CellType, FamilyOptions, Get, RowResult, Scan};
use strata_peer::PeerClient;
use strata_server::registry::{Placement, RegionClaim, RegionRegistry};
use strata_server::remote::{PeerTable, PeerWrite, RegionPeer, ScanChunk};
use strata_server::{
    Dialect, ErrorKind, Result, Service, ServiceError, ServiceOptions, TableName, WriteDurability,
};

/// Row keys below this are in region 1 (served by A), the others in region 2 (by B).
const SPLIT: &str = "r300";
const ROWS: usize = 600;
const SYNC: WriteDurability = WriteDurability::SyncWal;

fn table() -> TableName {
    TableName::parse("t").unwrap()
}

/// Places the region `elsewhere` on the peer, every other region here.
#[derive(Debug)]
struct StaticPlacement {
    elsewhere: u64,
    peer: Arc<PeerClient>,
}

impl RegionRegistry for StaticPlacement {
    fn claim(&self, _region: RegionClaim<'_>) -> Result<()> {
        Ok(())
    }
    fn placement(&self, region: RegionClaim<'_>) -> Placement {
        if region.id == self.elsewhere {
            Placement::Peer(Arc::clone(&self.peer) as Arc<dyn RegionPeer>)
        } else {
            Placement::Here
        }
    }
}

/// A serves region 1 and B region 2, each over its own peer server.
struct Cluster {
    // Dropped first: the servers stop before the services they hold.
    runtime: tokio::runtime::Runtime,
    a: Arc<Service>,
    b: Arc<Service>,
    a_addr: String,
    b_addr: String,
    _dirs: Vec<tempfile::TempDir>,
}

fn open(dir: &std::path::Path, elsewhere: u64, peer_addr: &str) -> Arc<Service> {
    let mut options = ServiceOptions::new(dir);
    let peer = Arc::new(PeerClient::new(peer_addr).unwrap());
    options.region_registry = Some(Arc::new(StaticPlacement { elsewhere, peer }));
    let svc = Service::open(options).unwrap();
    let mut family = FamilyOptions::new("cf");
    family.max_versions = 3;
    svc.admin()
        .create_table(&table(), vec![family], vec![Bytes::from(SPLIT)])
        .unwrap();
    let ids: Vec<u64> = svc
        .admin()
        .table_regions(&table())
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids, [1, 2], "the placement names these regions");
    svc
}

fn cluster() -> Cluster {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Both addresses are needed before either service opens: bind first.
    let bind = || runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"));
    let (la, lb) = (bind().unwrap(), bind().unwrap());
    let a_addr = la.local_addr().unwrap().to_string();
    let b_addr = lb.local_addr().unwrap().to_string();
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let a = open(dirs[0].path(), 2, &b_addr);
    let b = open(dirs[1].path(), 1, &a_addr);
    for (svc, listener) in [(&a, la), (&b, lb)] {
        let svc = Arc::clone(svc);
        runtime.spawn(strata_peer::serve(svc, listener, std::future::pending()));
    }
    Cluster {
        runtime,
        a,
        b,
        a_addr,
        b_addr,
        _dirs: dirs,
    }
}

fn key(i: usize) -> String {
    format!("r{i:03}")
}

fn value_of(svc: &Service, row: &str, qualifier: &str) -> Option<Bytes> {
    let got = svc
        .rows()
        .get(&table(), &Get::new(row.to_string()))
        .unwrap()?;
    got.cells
        .into_iter()
        .find(|c| c.qualifier.as_ref() == qualifier.as_bytes())
        .map(|c| c.value)
}

/// The test table, for a peer that never answers (its digest does not matter).
fn unknown_schema() -> PeerTable {
    PeerTable {
        name: table(),
        schema: 0,
    }
}

/// The test table as a forwarded request names it (A and B created it alike).
fn pt(c: &Cluster) -> PeerTable {
    c.a.directory().table(&table()).unwrap().peer_table()
}

fn write() -> PeerWrite {
    PeerWrite {
        dialect: Dialect::Hbase,
        durability: SYNC,
    }
}

#[test]
fn puts_gets_and_deletes_reach_both_regions_through_either_service() {
    let c = cluster();
    for (i, row) in ["a", "r100", "r299", "r300", "r500", "zzz"]
        .iter()
        .enumerate()
    {
        let (writer, reader) = if i % 2 == 0 {
            (&c.a, &c.b)
        } else {
            (&c.b, &c.a)
        };
        let put = Cell::put(row.to_string(), "cf", "q", 10, format!("v{i}"));
        writer.rows().mutate(&table(), vec![put], SYNC).unwrap();
        assert_eq!(
            value_of(reader, row, "q"),
            Some(Bytes::from(format!("v{i}")))
        );
        assert_eq!(
            value_of(writer, row, "q"),
            Some(Bytes::from(format!("v{i}")))
        );
        let delete = Cell::delete(row.to_string(), "cf", "q", 10, CellType::DeleteColumn);
        reader.rows().mutate(&table(), vec![delete], SYNC).unwrap();
        assert_eq!(value_of(writer, row, "q"), None, "row {row}");
    }
    // One batch spanning both regions, written through either side.
    let cells = vec![
        Cell::put("b", "cf", "q", 1, "left"),
        Cell::put("y", "cf", "q", 1, "right"),
    ];
    c.a.rows().mutate(&table(), cells, SYNC).unwrap();
    assert_eq!(value_of(&c.b, "b", "q"), Some(Bytes::from("left")));
    assert_eq!(value_of(&c.b, "y", "q"), Some(Bytes::from("right")));
}

#[test]
fn increments_of_one_row_through_both_services_are_never_lost() {
    let c = cluster();
    let (threads, each) = (4, 40);
    std::thread::scope(|scope| {
        for i in 0..threads {
            // Half go through A, which forwards them (row "z" is B's), half straight to B.
            let svc = if i % 2 == 0 { &c.a } else { &c.b };
            scope.spawn(move || {
                for _ in 0..each {
                    svc.rows()
                        .increment(&table(), b"z", b"cf", b"n", 1)
                        .unwrap();
                }
            });
        }
    });
    let total =
        c.a.rows()
            .increment(&table(), b"z", b"cf", b"n", 0)
            .unwrap();
    assert_eq!(total, threads * each);
    let appended =
        c.a.rows()
            .append(
                &table(),
                b"z",
                &[(Bytes::from("cf"), Bytes::from("s"), Bytes::from("x"))],
            )
            .unwrap();
    assert_eq!(appended[0].value, Bytes::from("x"));
}

fn fill(c: &Cluster) {
    let cells: Vec<Cell> = (0..ROWS)
        .map(|i| Cell::put(key(i), "cf", "q", 1, format!("v{i}")))
        .collect();
    c.b.rows().mutate(&table(), cells, SYNC).unwrap();
}

fn keys(rows: &[RowResult]) -> Vec<String> {
    rows.iter()
        .map(|r| String::from_utf8_lossy(&r.row).into_owned())
        .collect()
}

fn scan_all(svc: &Service, scan: Scan) -> Vec<RowResult> {
    let mut stream = svc.scanners().scan_rows(&table(), scan).unwrap();
    let mut rows = Vec::new();
    while let Some(row) = stream.next_row().unwrap() {
        rows.push(row);
    }
    rows
}

#[test]
fn full_scans_read_both_regions_in_several_chunks() {
    let c = cluster();
    fill(&c);
    let forward: Vec<String> = (0..ROWS).map(key).collect();
    let backward: Vec<String> = forward.iter().rev().cloned().collect();
    for svc in [&c.a, &c.b] {
        assert_eq!(keys(&scan_all(svc, Scan::new())), forward);
        assert_eq!(keys(&scan_all(svc, Scan::new().reversed(true))), backward);
        let id = svc
            .scanners()
            .open_scanner(&table(), Scan::new().reversed(true))
            .unwrap();
        let mut rows = Vec::new();
        loop {
            let batch = svc.scanners().scanner_next(id, 97).unwrap();
            if batch.is_empty() {
                break;
            }
            rows.extend(batch);
        }
        svc.scanners().close_scanner(id).unwrap();
        assert_eq!(keys(&rows), backward);
    }
    let from_b = scan_all(&c.a, Scan::new().range("r290", "r310"));
    assert_eq!(keys(&from_b), (290..310).map(key).collect::<Vec<_>>());
    assert_eq!(from_b[15].cells[0].value, Bytes::from("v305"));
}

#[test]
fn a_region_the_target_does_not_serve_comes_back_as_not_serving_region() {
    let c = cluster();
    let to_a = PeerClient::new(&c.a_addr).unwrap();
    assert_eq!(to_a.address(), c.a_addr);
    // "z" is in region 2, which A does not serve: the same error as A gives locally.
    let local =
        c.a.peer_serving()
            .serve_get(&pt(&c), &Get::new("z"))
            .unwrap_err();
    let err = to_a.get(&pt(&c), &Get::new("z")).unwrap_err();
    match (&err, &local) {
        (
            ServiceError::NotServingRegion { table, region: 2 },
            ServiceError::NotServingRegion {
                table: expected, ..
            },
        ) => assert_eq!(table, expected),
        _ => panic!("{err:?} (locally {local:?})"),
    }
    assert_eq!(err.to_string(), local.to_string());
    let chunk = ScanChunk {
        scan: Scan::new(),
        region_start: Bytes::from(SPLIT),
        region_end: Bytes::new(),
        after: None,
        max_rows: 10,
    };
    let err = to_a.scan_chunk(&pt(&c), &chunk).unwrap_err();
    assert!(
        matches!(err, ServiceError::NotServingRegion { region: 2, .. }),
        "{err:?}"
    );
}

#[test]
fn other_errors_come_back_as_remote_with_kind_and_message() {
    let c = cluster();
    let to_b = PeerClient::new(&c.b_addr).unwrap();
    // A row key over the limit (in region 2, B's): refused by B, the same way remotely.
    let long_row = format!("z{}", "k".repeat(40_000));
    let bad = vec![Cell::put(long_row, "cf", "q", 1, "v")];
    let local =
        c.b.peer_serving()
            .serve_mutate(&pt(&c), bad.clone(), write())
            .unwrap_err();
    assert!(
        matches!(local, ServiceError::LimitExceeded { .. }),
        "{local:?}"
    );
    let remote = to_b.mutate(&pt(&c), bad, write()).unwrap_err();
    assert!(
        matches!(
            remote,
            ServiceError::Remote {
                kind: ErrorKind::InvalidArgument,
                ..
            }
        ),
        "{remote:?}"
    );
    assert_eq!(remote.to_string(), local.to_string());
    // A table the owner does not know: its view of the catalog is behind the caller's, so
    // the caller is told to try again, not that the table is missing.
    let missing = PeerTable {
        name: TableName::parse("missing").unwrap(),
        schema: 0,
    };
    let err = to_b.get(&missing, &Get::new("z")).unwrap_err();
    assert!(
        matches!(err, ServiceError::NotServingRegion { .. }),
        "{err:?}"
    );
}

#[test]
fn conditional_writes_compare_what_the_owner_read() {
    let c = cluster();
    let to_b = PeerClient::new(&c.b_addr).unwrap();
    let read = Get::new("z").family("cf");
    let put = |v: &str| vec![Cell::put("z", "cf", "q", 5, v.to_string())];
    let absent = to_b.get(&pt(&c), &read).unwrap();
    assert_eq!(absent, None);
    let expect = |seen: Option<RowResult>| vec![(read.clone(), seen)];
    assert!(to_b
        .mutate_if(&pt(&c), b"z", expect(None), put("1"), write())
        .unwrap());
    assert!(!to_b
        .mutate_if(&pt(&c), b"z", expect(None), put("2"), write())
        .unwrap());
    let seen = to_b.get(&pt(&c), &read).unwrap();
    assert!(seen.is_some());
    assert!(to_b
        .mutate_if(&pt(&c), b"z", expect(seen.clone()), put("3"), write())
        .unwrap());
    assert!(!to_b
        .mutate_if(&pt(&c), b"z", expect(seen), put("4"), write())
        .unwrap());
    assert_eq!(value_of(&c.a, "z", "q"), Some(Bytes::from("3")));
}

#[test]
fn calls_work_from_inside_another_runtime_and_carry_large_batches() {
    let c = cluster();
    let big = Bytes::from(vec![7u8; 6 * 1024 * 1024]); // over tonic's 4 MiB default
    let (a, big_sent) = (Arc::clone(&c.a), big.clone());
    c.runtime.block_on(async move {
        let a2 = Arc::clone(&a);
        tokio::task::spawn_blocking(move || {
            let put = Cell::put("z", "cf", "big", 1, big_sent);
            a2.rows().mutate(&table(), vec![put], SYNC).unwrap();
        })
        .await
        .unwrap();
        // Straight on a worker thread, too: it blocks the worker but must not panic.
        tokio::spawn(async move { value_of(&a, "z", "big").map(|v| v.len()) })
            .await
            .unwrap()
    });
    assert_eq!(value_of(&c.a, "z", "big"), Some(big));
}

#[test]
#[allow(clippy::disallowed_methods)] // measures real time against a real socket
fn a_peer_that_is_down_is_unavailable_promptly() {
    let addr = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    }; // closed: nothing listens there now
    let client = PeerClient::with_deadline(&addr, Duration::from_secs(3)).unwrap();
    let started = std::time::Instant::now();
    for _ in 0..2 {
        let err = client.get(&unknown_schema(), &Get::new("z")).unwrap_err();
        // Nothing was sent: the router may send it elsewhere.
        assert!(
            matches!(&err, ServiceError::PeerUnavailable { peer, unsent: true, .. } if *peer == addr),
            "{err:?}"
        );
        assert!(err.kind().is_retryable());
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
#[allow(clippy::disallowed_methods)] // measures real time against a real socket
fn a_peer_that_never_answers_fails_at_the_deadline() {
    // Connections complete in the listen backlog, but nothing ever reads or answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let client = PeerClient::with_deadline(&addr, Duration::from_millis(500)).unwrap();
    let started = std::time::Instant::now();
    let err = client.get(&unknown_schema(), &Get::new("z")).unwrap_err();
    assert!(
        matches!(err, ServiceError::PeerUnavailable { .. }),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    drop(silent);
}

#[test]
fn a_bad_address_is_refused_when_the_client_is_made() {
    assert!(PeerClient::new("not a host:port/\u{0}").is_err());
}

/// Names this server as the master.
#[derive(Debug)]
struct MasterHere;

impl strata_server::remote::MasterLink for MasterHere {
    fn master(&self) -> strata_server::remote::Master {
        strata_server::remote::Master::Here
    }
}

#[test]
fn administration_reaches_the_master_and_not_master_comes_back_as_itself() {
    use strata_server::remote::{AdminReply, AdminRequest};
    let c = cluster();
    // A and B have no master link: like a server that is not master, they refuse.
    let to_a = PeerClient::new(&c.a_addr).unwrap();
    let refused = to_a
        .admin(&AdminRequest::CreateNamespace(
            "ns".into(),
            Default::default(),
        ))
        .unwrap_err();
    assert!(matches!(refused, ServiceError::NotMaster), "{refused:?}");
    // A master over a real socket carries a request out and answers in kind.
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.master_link = Some(Arc::new(MasterHere));
    let master = Service::open(options).unwrap();
    let listener = c
        .runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let served = Arc::clone(&master);
    c.runtime
        .spawn(strata_peer::serve(served, listener, std::future::pending()));
    let to_master = PeerClient::new(&addr).unwrap();
    let name = TableName::parse("m").unwrap();
    let create = AdminRequest::CreateTable {
        name: name.clone(),
        families: vec![FamilyOptions::new("cf")],
        split_keys: vec![Bytes::from("k")],
        durability: WriteDurability::UseDefault,
        metadata: Default::default(),
    };
    assert_eq!(to_master.admin(&create).unwrap(), AdminReply::Done);
    assert_eq!(master.admin().table_regions(&name).unwrap().len(), 2);
    let again = to_master.admin(&create).unwrap_err();
    assert!(matches!(again, ServiceError::TableExists(_)), "{again:?}");
    let split = AdminRequest::SplitRegion {
        table: name.clone(),
        at: strata_server::SplitAt::Key(Bytes::from("t")),
    };
    assert!(matches!(
        to_master.admin(&split).unwrap(),
        AdminReply::Pair(_, _)
    ));
    assert_eq!(master.admin().table_regions(&name).unwrap().len(), 3);
}
