#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Row operations of a table handle: put, get, the delete kinds, increment, append,
//! check-and-mutate and batches.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata_db::{Append, CheckAndMutate, CompareOp, Delete, Durability, Error, Get, Mutation, Put};

fn versions(t: &strata_db::Table, row: &str, q: &str) -> Vec<i64> {
    t.get(
        Get::new(row.to_string())
            .column("cf", q.to_string())
            .versions(10),
    )
    .unwrap()
    .map(|r| r.versions("cf", q).map(|c| c.timestamp).collect())
    .unwrap_or_default()
}

#[test]
fn put_and_get_with_versions_and_time_ranges() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    for ts in [10, 20, 30] {
        t.put(Put::new("r").add_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    t.put(
        Put::new("r")
            .timestamp(5)
            .add("cf", "p", "p5")
            .add("other", "o", "x"),
    )
    .unwrap();
    let row = t.get(Get::new("r")).unwrap().unwrap();
    assert_eq!(row.key(), b"r");
    assert_eq!(row.value("cf", "q"), Some(&b"v30"[..]));
    assert_eq!(row.latest("cf", "p").unwrap().timestamp, 5);
    assert_eq!(row.len(), 3, "newest version of each of three columns");
    assert_eq!(versions(&t, "r", "q"), vec![30, 20, 10]);
    let old = t
        .get(Get::new("r").column("cf", "q").time_range(0, 25))
        .unwrap()
        .unwrap();
    assert_eq!(old.value("cf", "q"), Some(&b"v20"[..]));
    let exact = t
        .get(Get::new("r").column("cf", "q").timestamp(10))
        .unwrap()
        .unwrap();
    assert_eq!(exact.value("cf", "q"), Some(&b"v10"[..]));
    let family = t.get(Get::new("r").family("other")).unwrap().unwrap();
    assert_eq!(family.cells().len(), 1);
    assert!(t.get(Get::new("missing")).unwrap().is_none());
    assert!(matches!(
        t.put(Put::new("r")),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn get_with_a_filter() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    t.put(
        Put::new("r")
            .add("cf", "a", "apple")
            .add("cf", "b", "banana"),
    )
    .unwrap();
    let row = t
        .get(Get::new("r").filter("ValueFilter(=, 'substring:nan')"))
        .unwrap()
        .unwrap();
    assert_eq!(row.cells().len(), 1);
    assert_eq!(row.value("cf", "b"), Some(&b"banana"[..]));
    assert!(t
        .get(Get::new("r").filter("ValueFilter(=, 'binary:zzz')"))
        .unwrap()
        .is_none());
}

#[test]
fn delete_kinds_follow_hbase() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    let put_versions = |row: &str| {
        for ts in [10, 20, 30] {
            t.put(
                Put::new(row.to_string())
                    .add_at("cf", "a", ts, "x")
                    .add_at("cf", "b", ts, "y")
                    .add_at("other", "o", ts, "z"),
            )
            .unwrap();
        }
    };
    put_versions("r");
    // The newest version only: the one below it shows again.
    t.delete(Delete::new("r").column("cf", "a")).unwrap();
    assert_eq!(versions(&t, "r", "a"), vec![20, 10]);
    t.delete(Delete::new("r").column("cf", "a")).unwrap();
    assert_eq!(versions(&t, "r", "a"), vec![10]);
    // One exact version.
    t.delete(Delete::new("r").column_version("cf", "b", 20))
        .unwrap();
    assert_eq!(versions(&t, "r", "b"), vec![30, 10]);
    // Every version up to a timestamp, then all of them.
    t.delete(Delete::new("r").all_versions_up_to("cf", "b", 10))
        .unwrap();
    assert_eq!(versions(&t, "r", "b"), vec![30]);
    t.delete(Delete::new("r").all_versions("cf", "b")).unwrap();
    assert!(versions(&t, "r", "b").is_empty());
    // A family.
    t.delete(Delete::new("r").family("other")).unwrap();
    assert!(t.get(Get::new("r").family("other")).unwrap().is_none());
    assert!(t.get(Get::new("r").family("cf")).unwrap().is_some());

    put_versions("s");
    t.delete(Delete::new("s").family_version("cf", 20)).unwrap();
    assert_eq!(versions(&t, "s", "a"), vec![30, 10]);
    assert_eq!(versions(&t, "s", "b"), vec![30, 10]);
    t.delete(Delete::new("s").family_up_to("cf", 10)).unwrap();
    assert_eq!(versions(&t, "s", "a"), vec![30]);
    // The whole row, up to a timestamp, then entirely.
    t.delete(Delete::new("s").up_to(25)).unwrap();
    let left = t.get(Get::new("s").versions(10)).unwrap().unwrap();
    assert!(left.cells().iter().all(|c| c.timestamp == 30), "{left:?}");
    t.delete(Delete::new("s")).unwrap();
    assert!(t.get(Get::new("s")).unwrap().is_none());
}

#[test]
fn deleting_the_latest_version_of_a_missing_column_deletes_nothing_later() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    t.delete(Delete::new("r").column("cf", "a")).unwrap();
    t.put(Put::new("r").add_at("cf", "a", 1, "old")).unwrap();
    // With no version to delete, the marker went in at the current time (as in HBase),
    // and a single-version marker removes only its exact timestamp: the put at 1 stays.
    assert_eq!(versions(&t, "r", "a"), vec![1]);
}

#[test]
fn increment_and_append() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    assert_eq!(t.increment("c", "cf", "n", 5).unwrap(), 5);
    assert_eq!(t.increment("c", "cf", "n", -7).unwrap(), -2);
    let row = t.get(Get::new("c")).unwrap().unwrap();
    assert_eq!(row.counter("cf", "n"), Some(-2));
    t.put(Put::new("c").add("cf", "text", "abc")).unwrap();
    assert!(matches!(
        t.increment("c", "cf", "text", 1),
        Err(Error::Service(strata_db::ServiceError::IncompatibleValue(
            _
        )))
    ));
    let appended = t
        .append(
            Append::new("c")
                .add("cf", "text", "def")
                .add("cf", "log", "x"),
        )
        .unwrap();
    assert_eq!(appended.value("cf", "text"), Some(&b"abcdef"[..]));
    assert_eq!(appended.value("cf", "log"), Some(&b"x"[..]));
    let row = t.get(Get::new("c")).unwrap().unwrap();
    assert_eq!(row.value("cf", "text"), Some(&b"abcdef"[..]));
    assert!(matches!(
        t.append(Append::new("c")),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn check_and_mutate_applies_only_when_the_check_passes() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    let claim = |who: &str| {
        CheckAndMutate::new("job", "cf", "owner")
            .if_missing()
            .then(Put::new("job").add("cf", "owner", who.to_string()))
    };
    assert!(t.check_and_mutate(claim("w1")).unwrap());
    assert!(!t.check_and_mutate(claim("w2")).unwrap());
    let owner = |t: &strata_db::Table| {
        let row = t.get(Get::new("job")).unwrap();
        row.and_then(|r| r.value("cf", "owner").map(<[u8]>::to_vec))
    };
    assert_eq!(owner(&t), Some(b"w1".to_vec()));
    let release = CheckAndMutate::new("job", "cf", "owner")
        .if_equals("w1")
        .then(Delete::new("job").all_versions("cf", "owner"));
    assert!(t.check_and_mutate(release).unwrap());
    assert_eq!(owner(&t), None::<Vec<u8>>);
    // HBase's operand order: `given < stored` passes.
    t.put(Put::new("job").add("cf", "n", "5")).unwrap();
    let given_less = CheckAndMutate::new("job", "cf", "n")
        .if_matches(CompareOp::Less, "3")
        .then(Put::new("job").add("cf", "seen", "yes"));
    assert!(t.check_and_mutate(given_less).unwrap());
    let other_row = CheckAndMutate::new("job", "cf", "n")
        .if_equals("5")
        .then(Put::new("elsewhere").add("cf", "q", "v"));
    assert!(matches!(
        t.check_and_mutate(other_row),
        Err(Error::InvalidArgument(_))
    ));
    let latest = CheckAndMutate::new("job", "cf", "n")
        .if_equals("5")
        .then(Delete::new("job").column("cf", "n"));
    assert!(matches!(
        t.check_and_mutate(latest),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn batch_applies_puts_and_deletes_of_many_rows() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    t.put(
        Put::new("b")
            .add_at("cf", "q", 1, "old")
            .add_at("cf", "q", 2, "new"),
    )
    .unwrap();
    let batch: Vec<Mutation> = vec![
        Put::new("a").add("cf", "q", "1").into(),
        Delete::new("b").column("cf", "q").into(),
        Put::new("c")
            .add("cf", "q", "3")
            .durability(Durability::FsyncWal)
            .into(),
        Delete::new("d").into(),
    ];
    t.batch(batch).unwrap();
    assert!(t.get(Get::new("a")).unwrap().is_some());
    assert_eq!(versions(&t, "b", "q"), vec![1]);
    assert!(t.get(Get::new("c")).unwrap().is_some());
    t.batch(Vec::new()).unwrap();
}

#[test]
fn a_batch_with_a_bad_family_applies_nothing() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    let err = t
        .batch(vec![
            Put::new("a").add("cf", "q", "1").into(),
            Put::new("b").add("nope", "q", "2").into(),
        ])
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert!(t.get(Get::new("a")).unwrap().is_none());
}

#[test]
fn each_row_of_a_batch_is_atomic_for_readers() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (t, stop) = (t.clone(), Arc::clone(&stop));
        strata_runtime::thread::spawn("batch-writer", move || {
            for i in 0..300u32 {
                let v = i.to_string();
                // Two mutations of the same row in one batch land together.
                t.batch(vec![
                    Put::new("r").add("cf", "a", v.clone()).into(),
                    Put::new("r").add("other", "b", v).into(),
                ])
                .unwrap();
            }
            stop.store(true, Ordering::Release);
        })
        .unwrap()
    };
    let mut observed = 0;
    while !stop.load(Ordering::Acquire) {
        if let Some(row) = t.get(Get::new("r")).unwrap() {
            assert_eq!(
                row.value("cf", "a"),
                row.value("other", "b"),
                "torn row {row:?}"
            );
            observed += 1;
        }
    }
    writer.join().unwrap();
    let row = t.get(Get::new("r")).unwrap().unwrap();
    assert_eq!(row.value("cf", "a"), Some(&b"299"[..]));
    assert!(observed > 0 || row.value("other", "b") == Some(&b"299"[..]));
}

#[test]
fn durability_can_be_chosen_per_handle_and_per_write() {
    let (_dir, db) = common::open();
    let t = common::table(&db).with_durability(Durability::SkipWal);
    t.put(Put::new("r").add("cf", "q", "v")).unwrap();
    t.put(
        Put::new("s")
            .add("cf", "q", "v")
            .durability(Durability::FsyncWal),
    )
    .unwrap();
    assert!(t.get(Get::new("r")).unwrap().is_some());
    assert!(t.get(Get::new("s")).unwrap().is_some());
}

#[test]
fn two_latest_version_deletes_of_a_column_remove_its_two_newest_versions() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    for ts in [10, 20, 30] {
        t.put(
            Put::new("r")
                .add_at("cf", "a", ts, "x")
                .add_at("cf", "b", ts, "y"),
        )
        .unwrap();
    }
    t.delete(
        Delete::new("r")
            .column("cf", "a")
            .column("cf", "a")
            .column("cf", "b"),
    )
    .unwrap();
    assert_eq!(versions(&t, "r", "a"), vec![10]);
    assert_eq!(versions(&t, "r", "b"), vec![20, 10]);
    // In a batch, the rows that delete a newest version and the others both apply.
    t.batch(vec![
        Delete::new("r").column("cf", "b").into(),
        Put::new("other").add("cf", "a", "1").into(),
    ])
    .unwrap();
    assert_eq!(versions(&t, "r", "b"), vec![10]);
    assert_eq!(versions(&t, "other", "a").len(), 1);
}
