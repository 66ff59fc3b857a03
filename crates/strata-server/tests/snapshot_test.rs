//! HBase's snapshot administration through the service: snapshot, list, clone, restore
//! and delete, across splits, schema changes and a restart.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, Durability, FamilyOptions, Get, LATEST_TIMESTAMP};
use strata_server::{AlterOp, Service, ServiceError, ServiceOptions, TableName};

fn open(dir: &std::path::Path) -> Arc<Service> {
    Service::open(ServiceOptions::new(dir)).unwrap()
}

fn t(name: &str) -> TableName {
    TableName::parse(name).unwrap()
}

fn put_rows(svc: &Service, table: &TableName, rows: std::ops::Range<u32>, tag: &str) {
    for i in rows {
        let cell = Cell::put(
            format!("r{i:03}"),
            "cf",
            "q",
            LATEST_TIMESTAMP,
            format!("{tag}{i}"),
        );
        svc.rows()
            .mutate(table, vec![cell], Durability::SyncWal)
            .unwrap();
    }
}

fn value(svc: &Service, table: &TableName, i: u32) -> Option<String> {
    let row = svc
        .rows()
        .get(table, &Get::new(format!("r{i:03}")))
        .unwrap()?;
    Some(String::from_utf8(row.cells[0].value.to_vec()).unwrap())
}

fn split_table(svc: &Service) -> TableName {
    let table = t("t1");
    let splits = vec![Bytes::from_static(b"r050"), Bytes::from_static(b"r120")];
    svc.admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], splits)
        .unwrap();
    table
}

#[test]
fn a_clone_has_the_snapshot_schema_regions_and_data() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let table = split_table(&svc);
    put_rows(&svc, &table, 0..200, "old");
    svc.admin().snapshot_table(&table, "snap1").unwrap();
    put_rows(&svc, &table, 0..200, "new");
    svc.admin().disable_table(&table).unwrap();
    svc.admin()
        .alter_table(&table, AlterOp::AddFamily(FamilyOptions::new("extra")))
        .unwrap();
    svc.admin().enable_table(&table).unwrap();

    let listed = svc.admin().list_snapshots().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].name.as_str(), &listed[0].table),
        ("snap1", &table)
    );
    assert_eq!(listed[0].regions, 3);

    let clone = t("copy");
    svc.admin().clone_snapshot("snap1", &clone).unwrap();
    let regions = svc.admin().table_regions(&clone).unwrap();
    let starts: Vec<&[u8]> = regions.iter().map(|r| r.start_key.as_ref()).collect();
    assert_eq!(starts, vec![&b""[..], b"r050", b"r120"]);
    let families = svc.admin().describe_table(&clone).unwrap().families;
    assert_eq!(
        families.len(),
        1,
        "the clone has the schema of the snapshot time"
    );
    for i in 0..200 {
        assert_eq!(value(&svc, &clone, i), Some(format!("old{i}")));
        assert_eq!(value(&svc, &table, i), Some(format!("new{i}")));
    }
    // The clone is a table of its own: writes to it do not reach the source.
    put_rows(&svc, &clone, 0..1, "mine");
    assert_eq!(value(&svc, &table, 0), Some("new0".into()));

    assert!(matches!(
        svc.admin().clone_snapshot("snap1", &clone),
        Err(ServiceError::TableExists(_))
    ));
    assert!(matches!(
        svc.admin().snapshot_table(&table, "snap1"),
        Err(ServiceError::SnapshotExists(_))
    ));
    assert!(matches!(
        svc.admin().clone_snapshot("nope", &t("x")),
        Err(ServiceError::SnapshotNotFound(_))
    ));
    assert!(matches!(
        svc.admin().snapshot_table(&t("missing"), "s2"),
        Err(ServiceError::TableNotFound(_))
    ));
    let bad = svc.admin().snapshot_table(&table, "bad/name").unwrap_err();
    assert_eq!(
        bad.kind(),
        strata_server::ErrorKind::InvalidArgument,
        "{bad}"
    );

    // Deleting the snapshot and the source leaves the clone whole, across a restart.
    svc.admin().delete_snapshot("snap1").unwrap();
    svc.admin().disable_table(&table).unwrap();
    svc.admin().delete_table(&table).unwrap();
    svc.close().unwrap();
    drop(svc);
    let svc = open(dir.path());
    assert!(svc.admin().list_snapshots().unwrap().is_empty());
    assert_eq!(value(&svc, &clone, 0), Some("mine0".into()));
    assert_eq!(value(&svc, &clone, 199), Some("old199".into()));
}

#[test]
fn restore_puts_a_disabled_table_back_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let table = split_table(&svc);
    put_rows(&svc, &table, 0..150, "old");
    svc.admin().snapshot_table(&table, "before").unwrap();
    put_rows(&svc, &table, 0..150, "new");
    put_rows(&svc, &table, 150..160, "added");

    assert!(matches!(
        svc.admin().restore_snapshot("before"),
        Err(ServiceError::TableNotDisabled(_))
    ));
    svc.admin().disable_table(&table).unwrap();
    svc.admin().restore_snapshot("before").unwrap();
    assert!(
        !svc.admin().is_table_enabled(&table).unwrap(),
        "a restored table stays disabled"
    );
    svc.admin().enable_table(&table).unwrap();
    for i in 0..150 {
        assert_eq!(value(&svc, &table, i), Some(format!("old{i}")));
    }
    assert_eq!(value(&svc, &table, 155), None);
    assert_eq!(svc.admin().table_regions(&table).unwrap().len(), 3);

    // The snapshot is still there, and a restart keeps the restored table.
    svc.close().unwrap();
    drop(svc);
    let svc = open(dir.path());
    assert_eq!(svc.admin().list_snapshots().unwrap().len(), 1);
    assert_eq!(value(&svc, &table, 149), Some("old149".into()));
}
