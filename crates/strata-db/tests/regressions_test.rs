#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Service-layer bugs found through the embedded API, kept as named regression tests.

use strata_db::{AlterOp, Db, Family, Get, Put, TableBuilder};

/// `alter_table` with AddFamily closes a table's regions and reopens them. While they are
/// closed, a retired parent region referenced only by them looks unreferenced, and a
/// collection of retired regions triggered meanwhile (here by a daughter's post-split
/// compaction finishing) deletes the parent's files; the reopen then fails with NotFound
/// and the table is gone from the service. Fixed by keeping the references of closed
/// regions (`Shared::closed_refs`) until they are opened again or dropped.
#[test]
fn altering_a_table_right_after_splits_keeps_its_files() {
    for _ in 0..6 {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        let t = db
            .create_table(TableBuilder::new("t").family("cf"))
            .unwrap();
        for r in ["r", "r1", "r2", "r3"] {
            t.put(Put::new(r).add("cf", "q", "1")).unwrap();
        }
        db.split_table_at("t", "r2").unwrap();
        db.flush_table("t").unwrap();
        db.split_table_at("t", "r1").unwrap();
        db.disable_table("t").unwrap();
        db.alter_table("t", AlterOp::AddFamily(Family::new("more").into()))
            .unwrap();
        db.enable_table("t").unwrap();
        assert!(t.get(Get::new("r")).unwrap().is_some());
    }
}
