//! Failures found by the model-based test, kept as named regression tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::harness::{flatten, Harness};
use strata_engine::{Cell, CellType, Durability, Get};

/// Seed 28: two puts to the same cell in one mutation share a sequence id; the later one
/// wins, as in HBase's memstore, in the memstore and after a flush alike.
#[test]
fn same_cell_twice_in_one_mutation_keeps_the_later_value() {
    let h = Harness::new(1);
    let r = h.region();
    let put = |v: &'static [u8]| Cell::put(b"r".to_vec(), "a", b"q".to_vec(), 100, v.to_vec());
    r.mutate(vec![put(b"first"), put(b"second")], Durability::SyncWal)
        .unwrap();
    let read = || {
        flatten(
            &r.get(&Get::new(b"r".to_vec()).versions(3))
                .unwrap()
                .unwrap()
                .cells,
        )
    };
    assert_eq!(read().len(), 1);
    assert_eq!(read()[0].4, b"second");
    r.flush().unwrap();
    assert_eq!(read()[0].4, b"second");
}

/// Seed 0xC0FFEE: a minor compaction that picks every file runs as a major one and drops a
/// DeleteFamily marker; a put written later with an older timestamp is then visible.
#[test]
fn minor_compaction_of_every_file_is_major_and_drops_markers() {
    let h = Harness::new(2);
    let r = h.region();
    let df = Cell::delete(
        b"s".to_vec(),
        "a",
        Vec::new(),
        999_000,
        CellType::DeleteFamily,
    );
    r.mutate(vec![df], Durability::SyncWal).unwrap();
    r.flush().unwrap();
    r.mutate(
        vec![Cell::put(
            b"t".to_vec(),
            "a",
            b"q".to_vec(),
            5,
            b"x".to_vec(),
        )],
        Durability::SyncWal,
    )
    .unwrap();
    r.flush().unwrap();
    let outcomes = r.compact(false).unwrap();
    assert!(outcomes
        .iter()
        .any(|(f, o)| f.as_ref() == b"a" && o.major && o.input_files == 2));
    r.mutate(
        vec![Cell::put(
            b"s".to_vec(),
            "a",
            b"q".to_vec(),
            996_000,
            b"v".to_vec(),
        )],
        Durability::SyncWal,
    )
    .unwrap();
    assert!(
        r.get(&Get::new(b"s".to_vec())).unwrap().is_some(),
        "the marker is gone, so the put shows"
    );
}

/// Seed 12648439: closing the engine flushes every open region even when the caller has
/// dropped its region handles (the engine owns open regions).
#[test]
fn close_flushes_regions_whose_handles_were_dropped() {
    let mut h = Harness::new(3);
    h.region()
        .mutate(
            vec![Cell::put(
                b"r".to_vec(),
                "b",
                b"q".to_vec(),
                1,
                b"v".to_vec(),
            )],
            Durability::SyncWal,
        )
        .unwrap();
    h.restart_clean();
    let files = h.region().stats().file_count;
    assert_eq!(files, 1, "close must have flushed the memstore");
    assert_eq!(
        h.engine.as_ref().unwrap().memstore_bytes(),
        0,
        "nothing replayed into memory"
    );
}

/// Crash test, background mode, seed 46278: `Region::flush` returned Ok while a snapshot
/// already existed (a concurrent background flush, or here a failed earlier flush) and left
/// the current memstore unflushed, so a write acknowledged before that "successful" flush was
/// lost in a power cut. Flush now flushes the old snapshot and then the memstore.
#[test]
fn flush_after_a_failed_flush_also_flushes_newer_writes() {
    use std::sync::Arc;

    use common::db::{test_options, Db};
    use common::ledger::{ledger_families, CrashKind, Ledger};
    use strata_engine::fs::{CrashOptions, FaultFs, FaultOp, FaultRule, FileSystem, MemFs};

    let mem = MemFs::new();
    let fault = FaultFs::new(Arc::new(mem.clone()));
    let mut db = Db::open(
        test_options(Arc::new(fault.clone()) as Arc<dyn FileSystem>),
        ledger_families(),
    )
    .unwrap();
    let mut ledger = Ledger::new(9);
    for _ in 0..5 {
        ledger.write(db.region(), Durability::SkipWal).unwrap();
    }
    fault
        .inject(
            FaultRule::error(FaultOp::Sync, std::io::ErrorKind::Other)
                .path_contains(".sst")
                .times(1),
        )
        .unwrap();
    assert!(db.region().flush().is_err());
    for _ in 0..5 {
        ledger.write(db.region(), Durability::SkipWal).unwrap();
    }
    db.region().flush().unwrap();
    ledger.flushed();
    assert_eq!(db.region().memstore_bytes(), 0, "flush left data in memory");
    let crashed = mem.crash_power_loss_with(1, CrashOptions::strict());
    db.abandon();
    db.options = test_options(Arc::new(crashed) as Arc<dyn FileSystem>);
    db.reopen().unwrap();
    ledger.check_after_crash(db.region(), CrashKind::PowerLoss, "after power loss");
    assert!(ledger.muts.iter().all(|m| m.alive));
}
