//! A table's DURABILITY reaches the WAL on every write path: each write is logged (the
//! WAL's `appends` counter) or not, and fsynced (`syncs`) or not, as the table and the
//! write's own durability decide. (The WAL's `skipped` counter cannot tell: the region does
//! not hand SKIP_WAL edits to the WAL at all, so it stays 0.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, Durability, FamilyOptions, Get, LATEST_TIMESTAMP};
use strata_server::{
    AlterOp, Check, CompareOp, Service, ServiceOptions, TableName, WriteDurability,
};

fn open(dir: &std::path::Path) -> Arc<Service> {
    Service::open(ServiceOptions::new(dir)).unwrap()
}

fn create(svc: &Service, name: &str, durability: WriteDurability) -> TableName {
    let table = TableName::parse(name).unwrap();
    svc.admin()
        .create_table_with_durability(&table, vec![FamilyOptions::new("cf")], vec![], durability)
        .unwrap();
    table
}

fn put(row: &str, value: &str) -> Cell {
    Cell::put(
        row.to_string(),
        "cf",
        "q",
        LATEST_TIMESTAMP,
        value.to_string(),
    )
}

/// Edits the WAL logged while `write` ran.
fn logged_by(svc: &Service, write: impl FnOnce()) -> u64 {
    let before = svc.engine().wal_stats().appends;
    write();
    svc.engine().wal_stats().appends - before
}

/// Runs one write of every kind a table takes; returns how many there were.
fn every_kind_of_write(svc: &Service, table: &TableName) -> u64 {
    let unset = WriteDurability::UseDefault;
    svc.rows()
        .mutate(table, vec![put("a", "1")], unset)
        .unwrap();
    svc.rows()
        .mutate_each_row(table, vec![vec![put("b", "1")]], unset)
        .unwrap()
        .into_iter()
        .for_each(|r| r.unwrap());
    svc.rows().increment(table, b"c", b"cf", b"n", 1).unwrap();
    let suffix = (Bytes::from("cf"), Bytes::from("q"), Bytes::from("x"));
    svc.rows().append(table, b"d", &[suffix]).unwrap();
    let check = Check {
        row: Bytes::from("a"),
        family: Bytes::from("cf"),
        qualifier: Bytes::from("q"),
        op: CompareOp::Equal,
        value: Some(Bytes::from("1")),
    };
    assert!(svc
        .rows()
        .check_and_mutate(table, &check, vec![put("a", "2")], unset)
        .unwrap());
    svc.rows()
        .read_modify_write_row(table, &Get::new("e"), |_, _| Ok((vec![put("e", "1")], ())))
        .unwrap();
    svc.rows()
        .mutate_row_resolving_latest(table, b"f", vec![put("f", "1")], unset)
        .unwrap();
    7
}

#[test]
fn a_skip_wal_table_skips_the_log_on_every_write_path() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let table = create(&svc, "skipped", WriteDurability::SkipWal);
    let logged = logged_by(&svc, || {
        every_kind_of_write(&svc, &table);
    });
    assert_eq!(logged, 0);
    // Every write happened, just unlogged.
    for row in ["a", "b", "c", "d", "e", "f"] {
        assert!(
            svc.rows().get(&table, &Get::new(row)).unwrap().is_some(),
            "{row}"
        );
    }
    let row = svc.rows().get(&table, &Get::new("a")).unwrap().unwrap();
    assert_eq!(row.cells[0].value, Bytes::from("2"), "the check-and-put");
}

#[test]
fn a_table_without_durability_logs_every_write() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let table = create(&svc, "plain", WriteDurability::UseDefault);
    let mut writes = 0;
    let logged = logged_by(&svc, || writes = every_kind_of_write(&svc, &table));
    assert_eq!(logged, writes);
}

#[test]
fn a_write_that_chooses_its_durability_overrides_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let skipping = create(&svc, "skipping", WriteDurability::SkipWal);
    let logged = logged_by(&svc, || {
        svc.rows()
            .mutate(&skipping, vec![put("a", "1")], Durability::SyncWal)
            .unwrap();
    });
    assert_eq!(logged, 1);
    let logging = create(&svc, "logging", WriteDurability::FsyncWal);
    let logged = logged_by(&svc, || {
        svc.rows()
            .mutate(&logging, vec![put("a", "1")], Durability::SkipWal)
            .unwrap();
    });
    assert_eq!(logged, 0);
}

#[test]
fn an_fsync_wal_table_fsyncs_its_increments() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let table = create(&svc, "counters", WriteDurability::FsyncWal);
    let before = svc.engine().wal_stats().syncs;
    for _ in 0..3 {
        svc.rows().increment(&table, b"r", b"cf", b"n", 1).unwrap();
    }
    let syncs = svc.engine().wal_stats().syncs - before;
    assert!(syncs >= 3, "three FSYNC_WAL increments made {syncs} syncs");
}

#[test]
fn alter_changes_durability_online_and_it_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let table = {
        let svc = open(dir.path());
        let table = create(&svc, "t", WriteDurability::UseDefault);
        assert_eq!(
            svc.admin().describe_table(&table).unwrap().durability,
            WriteDurability::UseDefault
        );
        svc.admin()
            .alter_table(&table, AlterOp::SetDurability(WriteDurability::SkipWal))
            .unwrap();
        assert!(
            svc.admin().is_table_enabled(&table).unwrap(),
            "alter is online"
        );
        let logged = logged_by(&svc, || {
            svc.rows().increment(&table, b"r", b"cf", b"n", 1).unwrap();
        });
        assert_eq!(logged, 0);
        svc.close().unwrap();
        table
    };
    let svc = open(dir.path());
    assert_eq!(
        svc.admin().describe_table(&table).unwrap().durability,
        WriteDurability::SkipWal
    );
    // The skipped increment was flushed at close, so it is still there.
    assert_eq!(
        svc.rows().increment(&table, b"r", b"cf", b"n", 1).unwrap(),
        2
    );
}

#[test]
fn truncate_keeps_the_tables_durability() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let table = create(&svc, "t", WriteDurability::AsyncWal);
    svc.admin().disable_table(&table).unwrap();
    svc.admin().truncate_table(&table, false).unwrap();
    assert_eq!(
        svc.admin().describe_table(&table).unwrap().durability,
        WriteDurability::AsyncWal
    );
}
