#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The async interface mirrors the blocking one.

use futures_util::StreamExt;
use strata_db::{
    Append, AsyncDb, CheckAndMutate, Delete, Error, Family, Get, Put, Scan, TableBuilder,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_admin_and_row_operations() {
    let dir = tempfile::tempdir().unwrap();
    let db = AsyncDb::open(dir.path()).await.unwrap();
    db.create_namespace("app").await.unwrap();
    assert!(db
        .list_namespaces()
        .await
        .unwrap()
        .contains(&"app".to_string()));
    let t = db
        .create_table(TableBuilder::new("app:t").family(Family::new("cf").versions(3)))
        .await
        .unwrap();
    assert_eq!(db.list_tables().await.unwrap().len(), 1);
    assert_eq!(db.describe_table("app:t").await.unwrap().families.len(), 1);

    t.put(
        Put::new("r")
            .add_at("cf", "q", 1, "a")
            .add_at("cf", "q", 2, "b"),
    )
    .await
    .unwrap();
    let row = t.get(Get::new("r")).await.unwrap().unwrap();
    assert_eq!(row.value("cf", "q"), Some(&b"b"[..]));
    t.delete(Delete::new("r").column("cf", "q")).await.unwrap();
    let row = t.get(Get::new("r")).await.unwrap().unwrap();
    assert_eq!(row.value("cf", "q"), Some(&b"a"[..]));
    assert_eq!(t.increment("r", "cf", "n", 3).await.unwrap(), 3);
    let appended = t
        .append(Append::new("r").add("cf", "s", "xy"))
        .await
        .unwrap();
    assert_eq!(appended.value("cf", "s"), Some(&b"xy"[..]));
    let cam = CheckAndMutate::new("r", "cf", "s")
        .if_equals("xy")
        .then(Put::new("r").add("cf", "done", "1"));
    assert!(t.check_and_mutate(cam).await.unwrap());
    t.batch(vec![
        Put::new("r2").add("cf", "q", "1").into(),
        Put::new("r3").add("cf", "q", "1").into(),
    ])
    .await
    .unwrap();

    let same = db.table("app:t").await.unwrap();
    assert!(same.get(Get::new("r3")).await.unwrap().is_some());
    assert!(db.table("app:nope").await.unwrap_err().is_not_found());

    db.disable_table("app:t").await.unwrap();
    assert!(!db.is_table_enabled("app:t").await.unwrap());
    db.alter_table(
        "app:t",
        strata_db::AlterOp::AddFamily(Family::new("more").into()),
    )
    .await
    .unwrap();
    db.enable_table("app:t").await.unwrap();
    assert!(db.is_table_enabled("app:t").await.unwrap());
    db.flush_table("app:t").await.unwrap();
    db.compact_table("app:t", true).await.unwrap();
    db.split_table_at("app:t", "r2").await.unwrap();
    let split = db
        .split_region("app:t", strata_db::SplitAt::Key("r".into()))
        .await;
    assert!(split.is_ok(), "{split:?}");
    assert_eq!(db.table_regions("app:t").await.unwrap().len(), 3);
    db.disable_table("app:t").await.unwrap();
    db.truncate_table("app:t", false).await.unwrap();
    assert!(t.get(Get::new("r")).await.unwrap().is_none());
    db.disable_table("app:t").await.unwrap();
    db.delete_table("app:t").await.unwrap();
    db.drop_namespace("app").await.unwrap();
    db.close().await.unwrap();
    assert!(matches!(t.get(Get::new("r")).await, Err(Error::Closed)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_scan_streams_rows_and_closes_the_scanner() {
    let dir = tempfile::tempdir().unwrap();
    let db = AsyncDb::open(dir.path()).await.unwrap();
    let t = db
        .create_table(TableBuilder::new("t").family("cf").split_keys(["k5"]))
        .await
        .unwrap();
    for i in 0..10 {
        t.put(Put::new(format!("k{i}")).add("cf", "q", format!("v{i}")))
            .await
            .unwrap();
    }
    let rows: Vec<_> = t
        .scan(Scan::new().batch_size(3))
        .await
        .unwrap()
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    let keys: Vec<_> = rows.iter().map(|r| r.key().to_vec()).collect();
    let expected: Vec<_> = (0..10).map(|i| format!("k{i}").into_bytes()).collect();
    assert_eq!(keys, expected);
    let service = db.blocking().service().clone();
    assert_eq!(service.scanners().open_scanner_count(), 0);

    let mut stream = t
        .scan(
            Scan::new()
                .filter("ValueFilter(=, 'substring:v')")
                .batch_size(2),
        )
        .await
        .unwrap();
    assert!(stream.next().await.unwrap().is_ok());
    assert_eq!(service.scanners().open_scanner_count(), 1);
    drop(stream);
    assert_eq!(service.scanners().open_scanner_count(), 0);

    let bad = t.scan(Scan::new().filter("ValueFilter(")).await;
    assert!(matches!(bad, Err(Error::InvalidFilter { .. })));
}
