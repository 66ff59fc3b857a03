#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Bad requests get clear errors, never panics.

mod common;

use strata_db::{Db, Delete, Error, Get, Options, Put, Scan, ServiceError};

#[test]
fn missing_tables_and_namespaces() {
    let (_dir, db) = common::open();
    let err = db.table("nope").unwrap_err();
    assert!(err.is_not_found());
    assert!(err.to_string().contains("nope"), "{err}");
    assert!(db.describe_table("ns:nope").unwrap_err().is_not_found());
    assert!(db.disable_table("nope").unwrap_err().is_not_found());
    assert!(db.drop_namespace("nope").unwrap_err().is_not_found());
    assert!(matches!(
        db.table("bad name!"),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn a_handle_on_a_dropped_table_reports_it() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    db.disable_table("t").unwrap();
    db.delete_table("t").unwrap();
    assert!(t
        .put(Put::new("r").add("cf", "q", "v"))
        .unwrap_err()
        .is_not_found());
    assert!(t.get(Get::new("r")).unwrap_err().is_not_found());
}

#[test]
fn bad_families_rows_and_timestamps() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    let err = t.put(Put::new("r").add("nope", "q", "v")).unwrap_err();
    assert!(
        matches!(&err, Error::Service(ServiceError::FamilyNotFound { family, .. }) if family == "nope"),
        "{err:?}"
    );
    assert!(t
        .get(Get::new("r").family("nope"))
        .unwrap_err()
        .is_not_found());
    assert!(t
        .delete(Delete::new("r").family("nope"))
        .unwrap_err()
        .is_not_found());
    assert!(t.increment("r", "nope", "q", 1).unwrap_err().is_not_found());
    assert!(matches!(
        t.put(Put::new("").add("cf", "q", "v")),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.put(Put::new("r").add_at("cf", "q", -5, "v")),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        t.get(Get::new("r").filter("")),
        Err(Error::InvalidFilter { .. })
    ));
}

#[test]
fn handles_fail_cleanly_after_close() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(Options::new(dir.path())).unwrap();
    let t = common::table(&db);
    t.put(Put::new("r").add("cf", "q", "v")).unwrap();
    let mut iter = t.scan(Scan::new().batch_size(1)).unwrap();
    db.close().unwrap();
    db.close().unwrap();
    assert!(matches!(t.get(Get::new("r")), Err(Error::Closed)));
    assert!(matches!(db.list_tables(), Err(Error::Closed)));
    assert!(matches!(iter.next(), Some(Err(Error::Closed))));
    assert!(iter.next().is_none());
}
