#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Scans: bounds, prefixes, columns, versions, time ranges, reversal, limits, filters, and
//! the scanner's lifetime.

mod common;

use strata_db::{Db, Error, Family, Put, Row, Scan, Table, TableBuilder};

fn rows(t: &Table, scan: Scan) -> Vec<Row> {
    t.scan(scan).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Rows `a0..a9`, `b0..b9`, `c0..c9` in a table pre-split at `b` and `c`, plus `b\xff`.
fn filled(db: &Db) -> Table {
    let t = db
        .create_table(
            TableBuilder::new("s")
                .family(Family::new("cf").versions(3))
                .family("x")
                .split_keys(["b", "c"]),
        )
        .unwrap();
    for p in ["a", "b", "c"] {
        for i in 0..10 {
            let key = format!("{p}{i}");
            t.put(
                Put::new(key.clone())
                    .add_at("cf", "q", 1, format!("{key}-old"))
                    .add_at("cf", "q", 2, format!("{key}-new"))
                    .add_at("x", "n", 1, i.to_string()),
            )
            .unwrap();
        }
    }
    t.put(Put::new(&b"b\xff"[..]).add("cf", "q", "edge"))
        .unwrap();
    t
}

#[test]
fn bounds_prefix_and_reversal() {
    let (_dir, db) = common::open();
    let t = filled(&db);
    assert_eq!(rows(&t, Scan::new()).len(), 31);
    assert_eq!(
        common::keys(&rows(&t, Scan::new().range("a8", "b2"))),
        ["a8", "a9", "b0", "b1"]
    );
    assert_eq!(
        common::keys(&rows(&t, Scan::new().start_row("c8"))),
        ["c8", "c9"]
    );
    assert_eq!(
        common::keys(&rows(&t, Scan::new().stop_row("a2"))),
        ["a0", "a1"]
    );
    let b = rows(&t, Scan::new().prefix("b"));
    assert_eq!(b.len(), 11, "b0..b9 and b\\xff");
    assert_eq!(
        common::keys(&rows(&t, Scan::new().range("b2", "a7").reversed(true))),
        ["b2", "b1", "b0", "a9", "a8"]
    );
    let reversed_prefix = common::keys(&rows(&t, Scan::new().prefix("b").reversed(true)));
    assert_eq!(reversed_prefix.len(), 11);
    assert_eq!(reversed_prefix[1], "b9");
    assert_eq!(reversed_prefix[10], "b0");
    // The successor of the prefix "a" is "b"; a stored "b" row must not leak in.
    t.put(Put::new("b").add("cf", "q", "b")).unwrap();
    let a_rev = common::keys(&rows(&t, Scan::new().prefix("a").reversed(true)));
    assert_eq!(a_rev.first().map(String::as_str), Some("a9"));
    assert_eq!(a_rev.len(), 10);
}

#[test]
fn columns_versions_time_range_and_limit() {
    let (_dir, db) = common::open();
    let t = filled(&db);
    let one = rows(&t, Scan::new().prefix("a1").column("x", "n"));
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].cells().len(), 1);
    assert_eq!(one[0].value("x", "n"), Some(&b"1"[..]));
    let all = rows(&t, Scan::new().prefix("a1").family("cf").versions(5));
    assert_eq!(all[0].versions("cf", "q").count(), 2);
    let old = rows(&t, Scan::new().prefix("a1").family("cf").time_range(0, 2));
    assert_eq!(old[0].value("cf", "q"), Some(&b"a1-old"[..]));
    let limited = rows(&t, Scan::new().limit(12).batch_size(5));
    assert_eq!(common::keys(&limited)[11], "b1");
    assert_eq!(limited.len(), 12);
    assert_eq!(
        rows(&t, Scan::new().prefix("c").reversed(true).limit(2)).len(),
        2
    );
    assert!(rows(&t, Scan::new().limit(0)).is_empty());
}

#[test]
fn filter_language_scans() {
    let (_dir, db) = common::open();
    let t = filled(&db);
    let kept = rows(
        &t,
        Scan::new()
            .filter("PrefixFilter('c') AND SingleColumnValueFilter('x', 'n', >=, 'binary:7')"),
    );
    assert_eq!(common::keys(&kept), ["c7", "c8", "c9"]);
    let substring = rows(&t, Scan::new().filter("ValueFilter(=, 'substring:9-new')"));
    assert_eq!(common::keys(&substring), ["a9", "b9", "c9"]);
    assert!(substring.iter().all(|r| r.cells().len() == 1));
}

#[test]
fn an_invalid_filter_is_a_clear_error() {
    let (_dir, db) = common::open();
    let t = filled(&db);
    let err = t
        .scan(Scan::new().filter("ValueFilter(=, 'binary:x'"))
        .unwrap_err();
    match &err {
        Error::InvalidFilter { filter, reason } => {
            assert_eq!(filter, "ValueFilter(=, 'binary:x'");
            assert!(!reason.is_empty());
        }
        other => panic!("expected InvalidFilter, got {other:?}"),
    }
    assert!(err.to_string().contains("invalid filter"));
    assert!(t.scan(Scan::new().filter("NoSuchFilter()")).is_err());
    assert_eq!(db.service().scanners().open_scanner_count(), 0);
}

#[test]
fn the_iterator_closes_its_scanner() {
    let (_dir, db) = common::open();
    let t = filled(&db);
    let service = db.service().clone();
    let mut iter = t.scan(Scan::new().batch_size(4)).unwrap();
    assert!(iter.next().unwrap().is_ok());
    assert_eq!(service.scanners().open_scanner_count(), 1);
    drop(iter);
    assert_eq!(
        service.scanners().open_scanner_count(),
        0,
        "dropping the iterator closes it"
    );
    let all: Vec<_> = t.scan(Scan::new()).unwrap().collect();
    assert_eq!(all.len(), 31);
    assert_eq!(
        service.scanners().open_scanner_count(),
        0,
        "exhausting it closes it"
    );
    let mut limited = t.scan(Scan::new().limit(3).batch_size(100)).unwrap();
    assert_eq!(limited.by_ref().count(), 3);
    assert_eq!(
        service.scanners().open_scanner_count(),
        0,
        "reaching the limit closes it"
    );
    drop(limited);
    let mut prefixed = t.scan(Scan::new().prefix("a")).unwrap();
    assert_eq!(prefixed.by_ref().count(), 10);
    assert_eq!(service.scanners().open_scanner_count(), 0);
}

#[test]
fn scanning_a_missing_family_fails() {
    let (_dir, db) = common::open();
    let t = filled(&db);
    assert!(t
        .scan(Scan::new().family("nope"))
        .unwrap_err()
        .is_not_found());
}
