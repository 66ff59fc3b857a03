//! Forwarding, conditional writes, moves and following the catalog, case by case.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests

use super::*;

#[test]
fn each_region_is_stored_only_by_the_service_serving_it() {
    let c = cluster();
    let cells = vec![
        Cell::put("a", "cf", "q", 1, "left"),
        Cell::put("z", "cf", "q", 1, "right"),
    ];
    c.b.rows()
        .mutate(&table(), cells, WriteDurability::SyncWal)
        .unwrap();
    let region = |svc: &Service, id: u64| -> Option<Arc<strata_engine::Region>> {
        let state = svc.directory().table(&table()).unwrap();
        state
            .regions
            .iter()
            .find(|r| r.entry.id == id)?
            .local()
            .cloned()
    };
    let (left_at_a, right_at_b) = (region(&c.a, 1).unwrap(), region(&c.b, 2).unwrap());
    assert!(left_at_a.get(&Get::new("a")).unwrap().is_some());
    assert!(right_at_b.get(&Get::new("z")).unwrap().is_some());
    assert!(region(&c.a, 2).is_none() && region(&c.b, 1).is_none());
}

#[test]
fn a_forwarded_request_is_served_only_from_regions_here() {
    let c = cluster();
    // "z" is in region 2, served by B: A must refuse rather than forward a second time.
    let refused =
        c.a.peer_serving()
            .serve_get(&pt(&c), &Get::new("z"))
            .unwrap_err();
    assert!(matches!(
        refused,
        ServiceError::NotServingRegion { region: 2, .. }
    ));
    assert_eq!(refused.kind(), ErrorKind::Unavailable);
    let write = PeerWrite {
        dialect: crate::Dialect::Hbase,
        durability: WriteDurability::SyncWal,
    };
    let put = vec![Cell::put("z", "cf", "q", 1, "v")];
    assert!(c
        .a
        .peer_serving()
        .serve_mutate(&pt(&c), put.clone(), write)
        .is_err());
    let chunk = ScanChunk {
        scan: Scan::new(),
        region_start: Bytes::new(),
        region_end: Bytes::new(),
        after: None,
        max_rows: 10,
    };
    assert!(matches!(
        c.a.peer_serving().serve_scan_chunk(&pt(&c), &chunk),
        Err(ServiceError::NotServingRegion { .. })
    ));
    assert!(c.b.peer_serving().serve_mutate(&pt(&c), put, write).is_ok());
}

#[test]
fn a_conditional_write_is_refused_when_its_reads_changed() {
    let c = cluster();
    let write = PeerWrite {
        dialect: crate::Dialect::Hbase,
        durability: WriteDurability::SyncWal,
    };
    let read = Get::new("z");
    let put = |v: &str| vec![Cell::put("z", "cf", "q", 5, v.to_string())];
    let seen = c.b.peer_serving().serve_get(&pt(&c), &read).unwrap();
    assert!(c
        .b
        .peer_serving()
        .serve_mutate_if(
            &pt(&c),
            b"z",
            &vec![(read.clone(), seen.clone())],
            put("1"),
            write
        )
        .unwrap());
    // The same reads, now stale: nothing is written.
    assert!(!c
        .b
        .peer_serving()
        .serve_mutate_if(&pt(&c), b"z", &vec![(read.clone(), seen)], put("2"), write)
        .unwrap());
    let now = c.b.rows().get(&table(), &read).unwrap().unwrap();
    assert_eq!(now.cells[0].value, Bytes::from("1"));
    let other_row = vec![(Get::new("y"), None)];
    assert!(c
        .b
        .peer_serving()
        .serve_mutate_if(&pt(&c), b"z", &other_row, put("3"), write)
        .is_err());
}

#[test]
fn regression_a_scan_limit_counts_rows_that_pass_the_filter() {
    // Found by the comparison above: a region's scan stopped after `limit` rows read, before
    // the filter, so a filtered scan with a limit missed rows of later regions (and of its
    // first region), unless the region was served elsewhere.
    let c = cluster();
    for i in 0..600 {
        let cell = Cell::put(format!("r{i:03}"), "cf", "q0", 1, format!("v{i}"));
        c.reference
            .rows()
            .mutate(&table(), vec![cell], WriteDurability::SyncWal)
            .unwrap();
    }
    let svc = &c.reference;
    let filter = Some(svc.parse_filter(b"PrefixFilter('r2')").unwrap());
    let id = svc
        .scanners()
        .open_filtered_scanner(&table(), Scan::new().limit(41), filter)
        .unwrap();
    let rows = svc.scanners().scanner_next(id, 1000).unwrap();
    let keys: Vec<&[u8]> = rows.iter().map(|r| r.row.as_ref()).collect();
    assert_eq!(keys.len(), 41);
    assert_eq!((keys[0], keys[40]), (&b"r200"[..], &b"r240"[..]));
}

#[test]
fn increments_of_one_row_through_both_services_are_never_lost() {
    let c = cluster();
    let (threads, each) = (4, 50);
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
}

#[test]
fn a_write_to_a_region_being_moved_waits_for_its_new_owner() {
    let c = cluster();
    // B gives region 2 up; A has not taken it yet, so it answers "not serving" for now.
    c.b_places.elsewhere.lock().push(2);
    assert_eq!(c.b.directory().placements().refresh().unwrap(), 1);
    assert!(c.b.engine().region(2).is_none(), "closed at B");
    let put = vec![Cell::put("z", "cf", "q", 1, "moved")];
    std::thread::scope(|scope| {
        let writer = scope.spawn(|| c.b.rows().mutate(&table(), put, WriteDurability::SyncWal));
        strata_runtime::clock::system().sleep(std::time::Duration::from_millis(100));
        assert!(
            !writer.is_finished(),
            "held while no server serves the region"
        );
        c.a_places.elsewhere.lock().clear();
        assert_eq!(c.a.directory().placements().refresh().unwrap(), 1);
        writer.join().unwrap().unwrap();
    });
    let got = c.a.rows().get(&table(), &Get::new("z")).unwrap().unwrap();
    assert_eq!(got.cells[0].value, Bytes::from("moved"));
    let via_b = c.b.rows().get(&table(), &Get::new("z")).unwrap().unwrap();
    assert_eq!(
        via_b.cells[0].value,
        Bytes::from("moved"),
        "B forwards to A now"
    );
}

#[test]
fn a_service_follows_tables_another_one_creates_and_drops() {
    let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let catalog = Arc::new(SharedCatalog::default());
    let (to_b, to_a) = (
        Arc::new(LoopbackPeer::default()),
        Arc::new(LoopbackPeer::default()),
    );
    let open_with = |dir: &std::path::Path, places: Arc<StaticPlacement>| {
        let mut options = ServiceOptions::new(dir);
        options.region_registry = Some(places as Arc<dyn RegionRegistry>);
        options.catalog = Some(Arc::clone(&catalog) as Arc<dyn crate::catalog::CatalogStore>);
        Service::open(options).unwrap()
    };
    let a = open_with(dirs[0].path(), placement(vec![2], &to_b));
    let b = open_with(dirs[1].path(), placement(vec![1], &to_a));
    to_b.target.set(Arc::downgrade(&b)).unwrap();
    to_a.target.set(Arc::downgrade(&a)).unwrap();
    // A creates the table (writing the shared catalog); region 2 is B's.
    let families = vec![FamilyOptions::new("cf")];
    a.admin()
        .create_table(&table(), families, vec![Bytes::from(SPLIT)])
        .unwrap();
    // B has not read the catalog since; a lookup of a table it does not know reads it.
    assert_eq!(b.admin().table_regions(&table()).unwrap().len(), 2);
    assert_eq!(
        b.directory().catalog_sync().follow().unwrap(),
        0,
        "followed already"
    );
    assert!(b.engine().region(2).is_some() && b.engine().region(1).is_none());
    let put = vec![
        Cell::put("z", "cf", "q", 1, "v"),
        Cell::put("a", "cf", "q", 1, "v"),
    ];
    a.rows()
        .mutate(&table(), put, WriteDurability::SyncWal)
        .unwrap();
    assert!(b
        .engine()
        .region(2)
        .unwrap()
        .get(&Get::new("z"))
        .unwrap()
        .is_some());
    // A adds a family B has not followed yet: a write to it, forwarded to B, makes B catch
    // up with the catalog first instead of refusing a family it does not know.
    a.admin().disable_table(&table()).unwrap();
    a.admin()
        .alter_table(
            &table(),
            crate::AlterOp::AddFamily(FamilyOptions::new("extra")),
        )
        .unwrap();
    a.admin().enable_table(&table()).unwrap();
    let extra = vec![Cell::put("z", "extra", "q", 1, "v")];
    a.rows()
        .mutate(&table(), extra, WriteDurability::SyncWal)
        .unwrap();
    let got = a
        .rows()
        .get(&table(), &Get::new("z").family("extra"))
        .unwrap();
    assert_eq!(got.unwrap().cells.len(), 1);
    // Dropped by A: B closes its region once it follows.
    a.admin().disable_table(&table()).unwrap();
    assert_eq!(b.directory().catalog_sync().follow().unwrap(), 1);
    assert!(
        b.rows().get(&table(), &Get::new("z")).is_err(),
        "disabled at B too"
    );
    a.admin().delete_table(&table()).unwrap();
    assert_eq!(b.directory().catalog_sync().follow().unwrap(), 1);
    assert!(b.engine().region(2).is_none(), "closed at B");
    assert!(b.admin().list_tables().is_empty());
    assert_eq!(
        b.directory().catalog_sync().follow().unwrap(),
        0,
        "nothing more to follow"
    );
}

#[test]
fn a_table_flush_reaches_the_regions_served_elsewhere() {
    let c = cluster();
    let cells = vec![
        Cell::put("a", "cf", "q", 1, "left"),
        Cell::put("z", "cf", "q", 1, "right"),
    ];
    c.a.rows()
        .mutate(&table(), cells, WriteDurability::SyncWal)
        .unwrap();
    let (left, right) = (
        c.a.engine().region(1).unwrap(),
        c.b.engine().region(2).unwrap(),
    );
    assert!(left.memstore_bytes() > 0 && right.memstore_bytes() > 0);
    c.a.admin().flush_table(&table()).unwrap();
    assert_eq!((left.memstore_bytes(), right.memstore_bytes()), (0, 0));
    c.b.admin().compact_table(&table(), true).unwrap();
    assert!(c.a.rows().get(&table(), &Get::new("a")).unwrap().is_some());
}

#[test]
fn region_locations_name_the_server_serving_each_region() {
    use crate::table::ServedBy;
    let c = cluster();
    let served: Vec<(u64, ServedBy)> =
        c.a.admin()
            .table_regions(&table())
            .unwrap()
            .into_iter()
            .map(|r| (r.id, r.served_by))
            .collect();
    assert_eq!(served[0], (1, ServedBy::ThisServer));
    let (id, ServedBy::Peer(at)) = &served[1] else {
        panic!("region 2 is B's: {served:?}")
    };
    assert_eq!(
        (*id, at.host.as_str(), at.thrift_port),
        (2, "peer.example", 9091)
    );
}
