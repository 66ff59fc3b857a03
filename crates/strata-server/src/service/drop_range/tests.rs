#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use strata_engine::{FamilyOptions, Get};

use super::*;
use crate::{Service, ServiceOptions};

fn open(dir: &std::path::Path) -> Arc<Service> {
    Service::open(ServiceOptions::new(dir)).unwrap()
}

fn table(svc: &Service, families: &[FamilyOptions], splits: &[&str]) -> TableName {
    let name = TableName::parse("t").unwrap();
    let splits = splits.iter().map(|s| Bytes::from(s.to_string())).collect();
    svc.admin()
        .create_table(&name, families.to_vec(), splits)
        .unwrap();
    name
}

fn put(row: &str, family: &str, q: &str, ts: i64, v: &str) -> Cell {
    Cell::put(
        row.to_string(),
        family.to_string(),
        q.to_string(),
        ts,
        v.to_string(),
    )
}

/// Every visible (row, family, qualifier, ts, value), all versions.
fn dump(svc: &Service, t: &TableName) -> Vec<(String, String, String, i64, String)> {
    let id = svc
        .scanners()
        .open_scanner(t, Scan::new().versions(u32::MAX))
        .unwrap();
    let mut out = Vec::new();
    loop {
        let batch = svc.scanners().scanner_next(id, 100).unwrap();
        if batch.is_empty() {
            break;
        }
        for row in batch {
            for c in row.cells {
                let s = |b: &Bytes| String::from_utf8(b.to_vec()).unwrap();
                out.push((
                    s(&c.row),
                    s(&c.family),
                    s(&c.qualifier),
                    c.timestamp,
                    s(&c.value),
                ));
            }
        }
    }
    svc.scanners().close_scanner(id).unwrap();
    out
}

fn rows(svc: &Service, t: &TableName) -> Vec<String> {
    let mut r: Vec<String> = dump(svc, t).into_iter().map(|c| c.0).collect();
    r.dedup();
    r
}

fn versions(n: u32) -> FamilyOptions {
    let mut f = FamilyOptions::new("cf");
    f.max_versions = n;
    f
}

#[test]
fn prefix_end_is_the_first_key_after_the_prefix() {
    assert_eq!(prefix_end(b"ab"), Bytes::from_static(b"ac"));
    assert_eq!(prefix_end(b"a\xff"), Bytes::from_static(b"b"));
    assert_eq!(prefix_end(b"\xff\xff"), Bytes::new());
    assert_eq!(prefix_end(b""), Bytes::new());
}

#[test]
fn every_cell_of_the_prefixed_rows_goes_and_others_stay() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let mut other = FamilyOptions::new("o");
    other.max_versions = 5;
    // Split inside the prefix so that the drop spans regions.
    let t = table(&svc, &[versions(1), other], &["user2"]);
    let future = i64::MAX / 2;
    let mut cells = vec![
        put("user1", "cf", "a", 10, "old"),
        put("user1", "cf", "a", 20, "hidden-by-versions"),
        put("user1", "cf", "a", future, "future"),
        put("user1", "o", "b", 5, "x"),
        put("user2", "cf", "a", 7, "y"),
        put("user3", "o", "c", 8, "z"),
        put("use", "cf", "a", 1, "not-prefixed"),
        put("uses", "cf", "a", 1, "after"),
    ];
    svc.rows()
        .mutate(&t, cells.split_off(4), Durability::SyncWal)
        .unwrap();
    svc.admin().flush_table(&t).unwrap(); // some data in files, some in the memstore
    svc.rows().mutate(&t, cells, Durability::SyncWal).unwrap();

    svc.rows().drop_rows_with_prefix(&t, b"user").unwrap();
    assert_eq!(rows(&svc, &t), vec!["use", "uses"]);

    // Later writes to a dropped row are visible at any timestamp: older than the dropped
    // cells, equal to one of them, or newer.
    let again = vec![
        put("user1", "cf", "a", 10, "again-old"),
        put("user1", "o", "b", 5, "again-same"),
        put("user3", "o", "c", future + 1, "again-new"),
    ];
    svc.rows().mutate(&t, again, Durability::SyncWal).unwrap();
    let got: Vec<_> = dump(&svc, &t)
        .into_iter()
        .filter(|c| c.0.starts_with("user"))
        .map(|c| (c.0, c.4))
        .collect();
    assert_eq!(
        got,
        vec![
            ("user1".to_string(), "again-old".to_string()),
            ("user1".to_string(), "again-same".to_string()),
            ("user3".to_string(), "again-new".to_string())
        ]
    );
    // The hidden older version did not come back either.
    let row = svc
        .rows()
        .get(&t, &Get::new("user1").versions(u32::MAX))
        .unwrap()
        .unwrap();
    assert!(row
        .cells
        .iter()
        .all(|c| c.value.as_ref() != b"hidden-by-versions"));
}

#[test]
fn dropping_a_prefix_without_rows_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let t = table(&svc, &[versions(3)], &[]);
    svc.rows()
        .mutate(&t, vec![put("a", "cf", "q", 1, "v")], Durability::SyncWal)
        .unwrap();
    svc.rows().drop_rows_with_prefix(&t, b"zzz").unwrap();
    assert_eq!(rows(&svc, &t), vec!["a"]);
    assert!(svc
        .rows()
        .drop_rows_with_prefix(&TableName::parse("nope").unwrap(), b"a")
        .is_err());
}

#[test]
fn the_drop_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let svc = open(dir.path());
        let t = table(&svc, &[versions(2)], &[]);
        let cells = vec![put("k1", "cf", "q", 3, "a"), put("k2", "cf", "q", 3, "b")];
        svc.rows().mutate(&t, cells, Durability::SyncWal).unwrap();
        svc.rows().drop_rows_with_prefix(&t, b"k1").unwrap();
        svc.close().unwrap();
    }
    let svc = open(dir.path());
    let t = TableName::parse("t").unwrap();
    assert_eq!(rows(&svc, &t), vec!["k2"]);
}

/// The drop reads through a row stream, not a registered scanner: it works with every
/// scanner slot taken and leaves the registry as it found it.
#[test]
fn the_drop_needs_no_scanner_slot() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.limits.max_open_scanners = 1;
    options.limits.max_scanners_per_client = 1;
    let svc = Service::open(options).unwrap();
    let t = table(&svc, &[versions(1)], &[]);
    let cells = vec![put("ab", "cf", "q", 1, "v"), put("b", "cf", "q", 1, "w")];
    svc.rows().mutate(&t, cells, Durability::SyncWal).unwrap();
    let held = svc.scanners().open_scanner(&t, Scan::new()).unwrap();
    svc.rows().drop_rows_with_prefix(&t, b"a").unwrap();
    assert!(svc.scanners().scanner_is_open(held));
    assert_eq!(svc.scanners().open_scanner_count(), 1);
    assert!(svc.rows().get(&t, &Get::new("ab")).unwrap().is_none());
    assert!(svc.rows().get(&t, &Get::new("b")).unwrap().is_some());
}
