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
    let files: usize = h.region().stores().values().map(|s| s.file_count()).sum();
    assert_eq!(files, 1, "close must have flushed the memstore");
    assert_eq!(
        h.engine.as_ref().unwrap().memstore_bytes(),
        0,
        "nothing replayed into memory"
    );
}
