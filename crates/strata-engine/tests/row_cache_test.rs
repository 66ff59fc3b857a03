//! The row cache against racing readers and writers: a read that starts after a write was
//! acknowledged must see it, however the reads and writes interleave with the cache's
//! inserts and invalidations (and with flushes, which change the views answers are read
//! from). The model test (`model_test.rs`, row-cache run) covers what is returned; this
//! covers when.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use strata_engine::fs::{FileSystem, MemFs};
use strata_engine::{
    Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, Region, RegionSpec,
    LATEST_TIMESTAMP,
};

const ROWS: [&str; 2] = ["hot0", "hot1"];
const WRITES_PER_ROW: u64 = 2_000;
const READERS_PER_ROW: usize = 2;

fn open() -> (Arc<Engine>, Arc<Region>) {
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new()) as Arc<dyn FileSystem>;
    options.background_work = false;
    options.row_cache_bytes = 1 << 20;
    let engine = Engine::open(options).unwrap();
    let mut family = FamilyOptions::new("cf");
    family.row_cache = true;
    let region = engine
        .open_region(RegionSpec {
            id: 1,
            families: vec![family],
        })
        .unwrap();
    (engine, region)
}

/// The row's value as a number (0 before its first write).
fn read(region: &Region, row: &str) -> u64 {
    let get = Get::new(row.to_string()).column("cf", "n");
    region.get(&get).unwrap().map_or(0, |r| {
        u64::from_be_bytes(r.cells[0].value.as_ref().try_into().unwrap())
    })
}

fn write(region: &Region, row: &str, value: u64) {
    let cell = Cell::put(
        row.to_string(),
        "cf",
        "n",
        LATEST_TIMESTAMP,
        value.to_be_bytes().to_vec(),
    );
    region.mutate(vec![cell], Durability::SkipWal).unwrap();
}

/// Reads `row` until `done`, checking each read against what was acknowledged before it
/// began; returns how many reads it made.
fn check_reads(region: &Region, row: &str, acked: &AtomicU64, done: &AtomicBool) -> u64 {
    let mut reads = 0;
    while !done.load(Ordering::Acquire) {
        let floor = acked.load(Ordering::Acquire);
        let seen = read(region, row);
        assert!(
            seen >= floor,
            "{row}: read {seen} after {floor} was acknowledged"
        );
        reads += 1;
    }
    reads
}

#[test]
fn a_read_never_sees_less_than_what_was_acknowledged_before_it() {
    let (engine, region) = open();
    let acked: Vec<AtomicU64> = ROWS.iter().map(|_| AtomicU64::new(0)).collect();
    let done = AtomicBool::new(false);
    let reads = std::thread::scope(|s| {
        let mut readers = Vec::new();
        for (row, acked) in ROWS.iter().zip(&acked) {
            for _ in 0..READERS_PER_ROW {
                let (region, done) = (&region, &done);
                readers.push(s.spawn(move || check_reads(region, row, acked, done)));
            }
        }
        let writers: Vec<_> = ROWS
            .iter()
            .zip(&acked)
            .map(|(row, acked)| {
                let region = &region;
                s.spawn(move || {
                    for value in 1..=WRITES_PER_ROW {
                        write(region, row, value);
                        acked.store(value, Ordering::Release);
                        if value % 500 == 0 {
                            region.flush().unwrap();
                        }
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        done.store(true, Ordering::Release);
        readers.into_iter().map(|r| r.join().unwrap()).sum::<u64>()
    });
    for row in ROWS {
        assert_eq!(read(&region, row), WRITES_PER_ROW);
    }
    let stats = engine.row_cache_stats();
    assert!(
        stats.hits > 0 && stats.inserts > 0,
        "{stats:?} over {reads} reads"
    );
    assert!(stats.invalidations > 0, "{stats:?}");
}
