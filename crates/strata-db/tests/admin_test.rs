#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Namespaces and table administration through the embedded API.

mod common;

use std::time::Duration;

use strata_db::{
    AlterOp, BloomType, Compression, Db, Durability, Error, Family, Get, Options, Put,
    ServiceError, TableBuilder, WriteDurability,
};

#[test]
fn namespaces_are_created_listed_and_dropped() {
    let (_dir, db) = common::open();
    db.create_namespace("app").unwrap();
    assert!(db.list_namespaces().unwrap().contains(&"app".to_string()));
    assert!(matches!(
        db.create_namespace("app"),
        Err(Error::Service(ServiceError::NamespaceExists(_)))
    ));
    db.create_table(TableBuilder::new("app:t").family("cf"))
        .unwrap();
    assert!(matches!(
        db.drop_namespace("app"),
        Err(Error::Service(ServiceError::NamespaceNotEmpty(_)))
    ));
    db.disable_table("app:t").unwrap();
    db.delete_table("app:t").unwrap();
    db.drop_namespace("app").unwrap();
    assert!(!db.list_namespaces().unwrap().contains(&"app".to_string()));
    assert!(matches!(
        db.create_namespace("bad name"),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn create_table_keeps_family_settings_and_split_keys() {
    let (_dir, db) = common::open();
    db.create_table(
        TableBuilder::new("t")
            .family(
                Family::new("cf")
                    .versions(4)
                    .ttl(Duration::from_secs(3600))
                    .compression(Compression::Zstd)
                    .bloom(BloomType::RowCol)
                    .block_size(16 * 1024)
                    .in_memory(true),
            )
            .split_keys(["g", "p"]),
    )
    .unwrap();
    let d = db.describe_table("t").unwrap();
    assert_eq!(d.families.len(), 1);
    let f = &d.families[0];
    assert_eq!(f.max_versions, 4);
    assert_eq!(f.ttl_seconds, Some(3600));
    assert_eq!(f.compression, Compression::Zstd);
    assert_eq!(f.bloom_type, BloomType::RowCol);
    assert_eq!(f.block_size, 16 * 1024);
    assert!(f.in_memory);
    let starts: Vec<_> = db
        .table_regions("t")
        .unwrap()
        .into_iter()
        .map(|r| r.start_key)
        .collect();
    assert_eq!(starts, vec!["", "g", "p"]);
    assert_eq!(db.list_tables().unwrap().len(), 1);
    assert!(matches!(
        db.create_table(TableBuilder::new("t").family("cf")),
        Err(Error::Service(ServiceError::TableExists(_)))
    ));
    // As in Bigtable, a table may start without families and get them later.
    db.create_table(TableBuilder::new("empty")).unwrap();
    assert!(db.describe_table("empty").unwrap().families.is_empty());
}

#[test]
fn alter_disable_enable_truncate_and_delete() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    t.put(Put::new("r").add("cf", "q", "v")).unwrap();

    db.alter_table(
        "t",
        AlterOp::ModifyFamily(Family::new("cf").versions(2).into()),
    )
    .unwrap();
    assert_eq!(db.describe_table("t").unwrap().families[0].max_versions, 2);
    // Adding a family needs the table disabled, as in HBase 1.x.
    let add = AlterOp::AddFamily(Family::new("new").into());
    assert!(db.alter_table("t", add.clone()).is_err());
    db.disable_table("t").unwrap();
    assert!(!db.is_table_enabled("t").unwrap());
    assert!(matches!(
        t.get(Get::new("r")),
        Err(Error::Service(ServiceError::TableDisabled(_)))
    ));
    db.alter_table("t", add).unwrap();
    db.enable_table("t").unwrap();
    t.put(Put::new("r").add("new", "q", "n")).unwrap();
    assert_eq!(
        t.get(Get::new("r")).unwrap().unwrap().value("new", "q"),
        Some(&b"n"[..])
    );

    db.disable_table("t").unwrap();
    db.truncate_table("t", true).unwrap();
    assert!(db.is_table_enabled("t").unwrap());
    assert!(t.get(Get::new("r")).unwrap().is_none());

    assert!(
        db.delete_table("t").is_err(),
        "an enabled table cannot be deleted"
    );
    db.disable_table("t").unwrap();
    db.delete_table("t").unwrap();
    assert!(db.table("t").unwrap_err().is_not_found());
}

#[test]
fn flush_compact_and_split_keep_the_data() {
    let (_dir, db) = common::open();
    let t = common::table(&db);
    for i in 0..50 {
        t.put(Put::new(format!("row{i:02}")).add("cf", "q", format!("v{i}")))
            .unwrap();
    }
    db.flush_table("t").unwrap();
    db.compact_table("t", true).unwrap();
    let (left, right) = db.split_table_at("t", "row25").unwrap();
    assert_ne!(left, right);
    let regions = db.table_regions("t").unwrap();
    assert_eq!(regions.len(), 2);
    assert_eq!(regions[1].start_key, "row25");
    for i in [0, 24, 25, 49] {
        let row = t.get(Get::new(format!("row{i:02}"))).unwrap().unwrap();
        assert_eq!(row.value("cf", "q"), Some(format!("v{i}").as_bytes()));
    }
    assert!(
        db.split_table_at("t", "row25").is_err(),
        "a region's own start is no split point"
    );
}

/// Edits the WAL has logged so far.
fn logged(db: &Db) -> u64 {
    db.service().engine().wal_stats().appends
}

#[test]
fn a_tables_durability_applies_unless_a_write_or_handle_chooses_its_own() {
    let (_dir, db) = common::open();
    let t = db
        .create_table(
            TableBuilder::new("t")
                .family("cf")
                .durability(Durability::SkipWal),
        )
        .unwrap();
    assert_eq!(
        db.describe_table("t").unwrap().durability,
        WriteDurability::SkipWal
    );
    let before = logged(&db);
    t.put(Put::new("r").add("cf", "q", "v")).unwrap();
    t.increment("r", "cf", "n", 1).unwrap();
    assert_eq!(logged(&db), before, "the table skips the WAL");
    let put = Put::new("s").add("cf", "q", "v");
    t.put(put.clone().durability(Durability::SyncWal)).unwrap();
    assert_eq!(logged(&db), before + 1, "a put's own durability wins");
    t.with_durability(Durability::AsyncWal).put(put).unwrap();
    assert_eq!(logged(&db), before + 2, "a handle's durability wins");
    db.alter_table("t", AlterOp::SetDurability(WriteDurability::UseDefault))
        .unwrap();
    let before = logged(&db); // the catalog's own write is logged too
    t.put(Put::new("u").add("cf", "q", "v")).unwrap();
    assert_eq!(logged(&db), before + 1, "back to the database's default");
}

#[test]
fn the_databases_default_durability_applies_only_to_tables_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open_with(Options::new(dir.path()).durability(Durability::SkipWal)).unwrap();
    let plain = db
        .create_table(TableBuilder::new("plain").family("cf"))
        .unwrap();
    let logging = db
        .create_table(
            TableBuilder::new("logging")
                .family("cf")
                .durability(WriteDurability::SyncWal),
        )
        .unwrap();
    let before = logged(&db);
    plain.put(Put::new("r").add("cf", "q", "v")).unwrap();
    assert_eq!(logged(&db), before);
    logging.put(Put::new("r").add("cf", "q", "v")).unwrap();
    assert_eq!(logged(&db), before + 1);
}
