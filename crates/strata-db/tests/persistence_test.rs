#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Data and schema survive closing and reopening the database.

mod common;

use strata_db::{Db, Delete, Durability, Family, Get, Options, Put, Scan, TableBuilder};

#[test]
fn data_survives_close_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open(dir.path()).unwrap();
        db.create_namespace("app").unwrap();
        let t = db
            .create_table(
                TableBuilder::new("app:t")
                    .family(Family::new("cf").versions(2))
                    .split_keys(["m"]),
            )
            .unwrap();
        for i in 0..100 {
            t.put(Put::new(format!("k{i:03}")).add("cf", "q", i.to_string()))
                .unwrap();
        }
        t.delete(Delete::new("k050")).unwrap();
        t.increment("counter", "cf", "n", 42).unwrap();
        db.close().unwrap();
    }
    let db = Db::open(dir.path()).unwrap();
    assert!(db.list_namespaces().unwrap().contains(&"app".to_string()));
    assert_eq!(
        db.describe_table("app:t").unwrap().families[0].max_versions,
        2
    );
    assert_eq!(db.table_regions("app:t").unwrap().len(), 2);
    let t = db.table("app:t").unwrap();
    let rows: Vec<_> = t
        .scan(Scan::new().prefix("k"))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 99);
    assert!(t.get(Get::new("k050")).unwrap().is_none());
    let row = t.get(Get::new("k099")).unwrap().unwrap();
    assert_eq!(row.value("cf", "q"), Some(&b"99"[..]));
    assert_eq!(t.increment("counter", "cf", "n", 1).unwrap(), 43);
}

#[test]
fn dropping_the_last_handle_closes_and_flushes() {
    let dir = tempfile::tempdir().unwrap();
    {
        let db = Db::open_with(Options::new(dir.path()).durability(Durability::SkipWal)).unwrap();
        let t = db
            .create_table(TableBuilder::new("t").family("cf"))
            .unwrap();
        drop(db);
        // The table handle keeps the database open.
        t.put(Put::new("r").add("cf", "q", "unlogged")).unwrap();
        // Without a WAL record, only the flush on close can keep this write.
    }
    let db = Db::open(dir.path()).unwrap();
    let row = db.table("t").unwrap().get(Get::new("r")).unwrap();
    assert_eq!(row.unwrap().value("cf", "q"), Some(&b"unlogged"[..]));
}

#[test]
fn a_db_over_a_borrowed_service_leaves_it_open() {
    let dir = tempfile::tempdir().unwrap();
    let owner = Db::open(dir.path()).unwrap();
    let borrowed = Db::from_service(owner.service().clone());
    borrowed
        .create_table(TableBuilder::new("t").family("cf"))
        .unwrap()
        .put(Put::new("r").add("cf", "q", "v"))
        .unwrap();
    borrowed.close().unwrap();
    drop(borrowed);
    let row = owner.table("t").unwrap().get(Get::new("r")).unwrap();
    assert!(row.is_some(), "the owner's service is still open");
}

#[test]
fn a_second_cache_level_is_persisted_by_a_clean_close() {
    let dir = tempfile::tempdir().unwrap();
    let l2 = dir.path().join("l2");
    let options = || Options::new(dir.path().join("data")).l2_cache(&l2, 4 << 20);
    {
        let db = Db::open_with(options()).unwrap();
        let t = db
            .create_table(TableBuilder::new("t").family(Family::new("cf")))
            .unwrap();
        for i in 0..200 {
            t.put(Put::new(format!("k{i:03}")).add("cf", "q", "v"))
                .unwrap();
        }
        let rows = t.scan(Scan::new().cache_blocks(false)).unwrap().count();
        assert_eq!(rows, 200);
        assert!(
            l2.join("blocks").exists(),
            "the cache file is created at open"
        );
        db.close().unwrap();
    }
    assert!(l2.join("index").exists(), "a clean close writes the index");
    let db = Db::open_with(options()).unwrap();
    assert!(!l2.join("index").exists(), "read once at open");
    let t = db.table("t").unwrap();
    assert_eq!(t.scan(Scan::new()).unwrap().count(), 200);
}
