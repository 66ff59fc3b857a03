//! Splitting and merging regions through the service: every row stays readable, new writes
//! land in the right region, compactions drop references, and automatic splits happen.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, CellType, Durability, FamilyOptions, Get, Scan, LATEST_TIMESTAMP};
use strata_server::{Service, ServiceOptions, SplitAt, SplitPolicy, TableName};

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

fn open(dir: &std::path::Path, split: SplitPolicy) -> Arc<Service> {
    let mut options = ServiceOptions::new(dir);
    options.engine.background_work = false;
    options.split = split;
    Service::open(options).unwrap()
}

fn manual() -> SplitPolicy {
    SplitPolicy {
        enabled: false,
        ..SplitPolicy::default()
    }
}

/// Automatic splits from 4 KiB, doubling per region up to 64 KiB, in the writer's thread.
fn small_auto_split() -> SplitPolicy {
    SplitPolicy {
        enabled: true,
        initial_size: Some(4 << 10),
        max_region_size: 64 << 10,
        background: false,
    }
}

fn row(i: usize) -> String {
    format!("r{i:03}")
}

fn put(svc: &Service, r: &str, q: &str, ts: i64, v: &str) {
    let cell = Cell::put(r.to_string(), "cf", q.to_string(), ts, v.to_string());
    svc.rows()
        .mutate(&t(), vec![cell], Durability::SyncWal)
        .unwrap();
}

/// Rows 0..60 with two versions of `a`, and every fifth row's `b` deleted.
fn load(svc: &Service) {
    let mut f = FamilyOptions::new("cf");
    f.max_versions = 3;
    svc.admin().create_table(&t(), vec![f], vec![]).unwrap();
    for i in 0..60 {
        put(svc, &row(i), "a", 1, "old");
        put(svc, &row(i), "a", 2, &format!("new{i}"));
        put(svc, &row(i), "b", 1, "b");
        if i % 5 == 0 {
            let del = Cell::delete(row(i), "cf", "b", LATEST_TIMESTAMP, CellType::DeleteColumn);
            svc.rows()
                .mutate(&t(), vec![del], Durability::SyncWal)
                .unwrap();
        }
    }
}

fn scan_rows(svc: &Service, scan: Scan) -> Vec<String> {
    let id = svc.scanners().open_scanner(&t(), scan).unwrap();
    let mut out = Vec::new();
    loop {
        let batch = svc.scanners().scanner_next(id, 7).unwrap();
        if batch.is_empty() {
            break;
        }
        out.extend(
            batch
                .iter()
                .map(|r| String::from_utf8(r.row.to_vec()).unwrap()),
        );
    }
    svc.scanners().close_scanner(id).unwrap();
    out
}

/// Every row reads back as `load` wrote it, by get and by scan in both directions.
fn check(svc: &Service) {
    for i in 0..60 {
        let got = svc
            .rows()
            .get(&t(), &Get::new(row(i)).versions(3))
            .unwrap()
            .unwrap();
        let values: Vec<&[u8]> = got.cells.iter().map(|c| c.value.as_ref()).collect();
        let mut want: Vec<Vec<u8>> = vec![format!("new{i}").into_bytes(), b"old".to_vec()];
        if i % 5 != 0 {
            want.push(b"b".to_vec());
        }
        assert_eq!(
            values,
            want.iter().map(|v| v.as_slice()).collect::<Vec<_>>(),
            "row {i}"
        );
    }
    let all: Vec<String> = (0..60).map(row).collect();
    assert_eq!(scan_rows(svc, Scan::new()), all);
    let mut rev = all.clone();
    rev.reverse();
    assert_eq!(scan_rows(svc, Scan::new().reversed(true)), rev);
    let mid = scan_rows(svc, Scan::new().range("r025", "r035"));
    assert_eq!(mid, (25..35).map(row).collect::<Vec<_>>());
    let mid_rev = scan_rows(svc, Scan::new().range("r034", "r024").reversed(true));
    assert_eq!(mid_rev, (25..35).rev().map(row).collect::<Vec<_>>());
}

#[test]
fn split_keeps_every_row_and_routes_new_writes() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path(), manual());
    load(&svc);
    svc.admin().flush_table(&t()).unwrap();
    put(&svc, "r010", "a", 2, "new10"); // in the parent's memstore at the split
    let (left, right) = svc
        .admin()
        .split_region(&t(), SplitAt::Key(Bytes::from("r030")))
        .unwrap();
    let regions = svc.admin().table_regions(&t()).unwrap();
    assert_eq!(
        regions.iter().map(|r| r.id).collect::<Vec<_>>(),
        vec![left, right]
    );
    assert_eq!(regions[0].end_key.as_ref(), b"r030");
    check(&svc);
    assert_eq!(svc.engine().retired_regions().len(), 1);

    put(&svc, "r001", "a", 2, "new1");
    put(&svc, "r050", "a", 2, "new50");
    let l = svc.engine().region(left).unwrap();
    let r = svc.engine().region(right).unwrap();
    assert!(l.memstore_bytes() > 0 && r.memstore_bytes() > 0);
    assert!(r.get(&Get::new("r001")).unwrap().is_none());
    assert!(
        l.get(&Get::new("r050")).unwrap().is_none(),
        "the left daughter hides the right's rows"
    );

    // Compacting the daughters rewrites their data; the parent's files then go.
    assert!(l.has_references() && r.has_references());
    svc.admin().compact_table(&t(), false).unwrap();
    assert!(!l.has_references() && !r.has_references());
    assert!(svc.engine().retired_regions().is_empty());
    check(&svc);

    // And everything survives a restart.
    svc.close().unwrap();
    drop(svc);
    let svc = open(dir.path(), manual());
    check(&svc);
    assert_eq!(svc.admin().table_regions(&t()).unwrap().len(), 2);
}

#[test]
fn split_at_the_middle_then_again_and_merge_back() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path(), manual());
    load(&svc);
    let first = svc.admin().table_regions(&t()).unwrap()[0].id;
    let (a, b) = svc
        .admin()
        .split_region(&t(), SplitAt::Region(first))
        .unwrap();
    assert_ne!(a, b);
    check(&svc);
    // A daughter that still references its parent can split again: references point at
    // the owner's file directly.
    svc.admin()
        .split_region(&t(), SplitAt::Key(Bytes::from("r015")))
        .unwrap();
    check(&svc);
    let ids: Vec<u64> = svc
        .admin()
        .table_regions(&t())
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(ids.len(), 3);
    assert!(
        svc.admin().merge_regions(&t(), ids[0], ids[2]).is_err(),
        "not adjacent"
    );
    let m = svc.admin().merge_regions(&t(), ids[1], ids[2]).unwrap();
    check(&svc);
    let m2 = svc.admin().merge_regions(&t(), m, ids[0]).unwrap();
    check(&svc);
    let regions = svc.admin().table_regions(&t()).unwrap();
    assert_eq!(regions.len(), 1);
    assert_eq!(
        (
            regions[0].id,
            regions[0].start_key.len(),
            regions[0].end_key.len()
        ),
        (m2, 0, 0)
    );
    put(&svc, "r007", "a", 2, "new7");
    svc.admin().compact_table(&t(), true).unwrap();
    assert!(svc.engine().retired_regions().is_empty());
    check(&svc);
    assert!(svc
        .admin()
        .split_region(&t(), SplitAt::Key(Bytes::from("")))
        .is_err());
}

#[test]
fn regions_split_by_themselves_past_a_doubling_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let policy = small_auto_split();
    let svc = open(dir.path(), policy);
    assert_eq!(svc.admin().split_threshold(1), 4 << 10);
    assert_eq!(svc.admin().split_threshold(2), 8 << 10);
    assert_eq!(svc.admin().split_threshold(3), 16 << 10);
    assert_eq!(svc.admin().split_threshold(40), 64 << 10);
    svc.admin()
        .create_table(&t(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let value = "v".repeat(100);
    for i in 0..400 {
        put(&svc, &format!("k{i:05}"), "q", 1, &value);
        if i % 50 == 49 {
            // Daughters split again only once compactions dropped their references.
            svc.admin().flush_table(&t()).unwrap();
            svc.admin().compact_table(&t(), false).unwrap();
        }
    }
    let regions = svc.admin().table_regions(&t()).unwrap();
    assert!(regions.len() >= 3, "{} regions", regions.len());
    for w in regions.windows(2) {
        assert_eq!(w[0].end_key, w[1].start_key);
    }
    let id = svc.scanners().open_scanner(&t(), Scan::new()).unwrap();
    assert_eq!(svc.scanners().scanner_next(id, 1000).unwrap().len(), 400);
}

/// Every write path reports to the splitter: a table written only by increments and appends
/// (once never checked) splits by itself too.
#[test]
fn a_table_grown_only_by_increments_and_appends_splits_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let policy = small_auto_split();
    let svc = open(dir.path(), policy);
    svc.admin()
        .create_table(&t(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let suffix = Bytes::from("x".repeat(100));
    for i in 0..300 {
        let key = format!("k{i:05}");
        svc.rows()
            .increment(&t(), key.as_bytes(), b"cf", b"n", 1)
            .unwrap();
        let column = (Bytes::from("cf"), Bytes::from("log"), suffix.clone());
        svc.rows().append(&t(), key.as_bytes(), &[column]).unwrap();
        if i % 50 == 49 {
            svc.admin().flush_table(&t()).unwrap();
            svc.admin().compact_table(&t(), false).unwrap();
        }
    }
    let regions = svc.admin().table_regions(&t()).unwrap();
    assert!(regions.len() >= 2, "{} regions", regions.len());
    let id = svc.scanners().open_scanner(&t(), Scan::new()).unwrap();
    assert_eq!(svc.scanners().scanner_next(id, 1000).unwrap().len(), 300);
}
