//! Writes queued before they are durable (`Region::mutate_queued`): they share a group
//! commit, read-modify-writes see them, a failed WAL batch takes them all back out before
//! anyone sees them, and a flush never writes one that is unresolved.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::ErrorKind;
use std::sync::Arc;

use common::db::{test_options, Db};
use strata_engine::fs::{FaultFs, FaultOp, FaultRule, FileSystem, MemFs};
use strata_engine::{Cell, Durability, Error, FamilyOptions, Get};

fn open() -> (FaultFs, Db) {
    let fault = FaultFs::new(Arc::new(MemFs::new()));
    let db = Db::open(
        test_options(Arc::new(fault.clone()) as Arc<dyn FileSystem>),
        vec![FamilyOptions {
            max_versions: 10,
            ..FamilyOptions::new("cf")
        }],
    )
    .unwrap();
    (fault, db)
}

fn put(value: &str) -> Vec<Cell> {
    vec![Cell::put("row", "cf", "q", 5, value.to_string())]
}

fn newest(db: &Db, queued: bool) -> Option<String> {
    let get = Get::new("row").column("cf", "q");
    let row = if queued {
        db.region().get_queued(&get)
    } else {
        db.region().get(&get)
    };
    row.unwrap()
        .map(|r| String::from_utf8(r.cells[0].value.to_vec()).unwrap())
}

#[test]
fn queued_writes_of_one_row_share_a_group_commit_and_are_read_by_the_next() {
    let (_fault, db) = open();
    let region = db.region();
    let batches_before = db.engine().wal_stats().batches;
    let first = region
        .mutate_queued(put("one"), Durability::SyncWal, None)
        .unwrap();
    assert_eq!(newest(&db, false), None, "not visible before it is durable");
    assert_eq!(
        newest(&db, true).as_deref(),
        Some("one"),
        "a read-modify-write sees it"
    );
    let guard = region.failure_guard().unwrap();
    let second = region
        .mutate_queued(put("two"), Durability::SyncWal, Some(guard))
        .unwrap();
    assert!(second.seq() > first.seq());
    // Acknowledged in WAL order: the first is waited for first (the second's visibility
    // waits for it).
    first.wait().unwrap();
    second.wait().unwrap();
    assert_eq!(
        db.engine().wal_stats().batches - batches_before,
        1,
        "both edits went out in one group commit"
    );
    assert_eq!(newest(&db, false).as_deref(), Some("two"));
}

#[test]
fn a_failed_batch_takes_every_queued_write_back_out() {
    let (fault, db) = open();
    let region = db.region();
    region.mutate(put("kept"), Durability::SyncWal).unwrap();
    let memory_before = db.engine().memstore_bytes();
    let rule = fault
        .inject(FaultRule::error(FaultOp::Append, ErrorKind::Other).path_contains("/wal/"))
        .unwrap();
    let guard = region.failure_guard().unwrap();
    let first = region
        .mutate_queued(put("lost-1"), Durability::SyncWal, None)
        .unwrap();
    let second = region
        .mutate_queued(put("lost-2"), Durability::FsyncWal, Some(guard))
        .unwrap();
    assert!(matches!(first.wait(), Err(Error::Io { .. })));
    assert!(matches!(second.wait(), Err(Error::Io { .. })));
    fault.remove_rule(rule);
    assert_eq!(newest(&db, false).as_deref(), Some("kept"));
    assert_eq!(newest(&db, true).as_deref(), Some("kept"), "taken back out");
    assert_eq!(
        db.engine().memstore_bytes(),
        memory_before,
        "their memstore bytes are released"
    );
    assert!(
        matches!(
            region.mutate_queued(put("stale"), Durability::SyncWal, Some(guard)),
            Err(Error::TooBusy(_))
        ),
        "a guard taken before the failure is refused"
    );
    let fresh = region.failure_guard().unwrap();
    region
        .mutate_queued(put("after"), Durability::SyncWal, Some(fresh))
        .unwrap()
        .wait()
        .unwrap();
    region.flush().unwrap();
    assert_eq!(newest(&db, false).as_deref(), Some("after"));
}

#[test]
fn a_flush_waits_for_the_writes_in_its_snapshot() {
    let (_fault, db) = open();
    let region = Arc::clone(db.region());
    let queued = region
        .mutate_queued(put("queued"), Durability::SyncWal, None)
        .unwrap();
    std::thread::scope(|s| {
        let flusher = s.spawn(|| region.flush());
        // The flush cannot finish while the write in its snapshot is unresolved.
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(
            !flusher.is_finished(),
            "the flush wrote an unresolved write"
        );
        queued.wait().unwrap();
        flusher.join().unwrap().unwrap();
    });
    assert_eq!(region.memstore_bytes(), 0);
    assert_eq!(newest(&db, false).as_deref(), Some("queued"));
}
