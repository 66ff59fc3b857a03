//! The block cache as reads reach it through an engine: scans that ask not to cache
//! blocks, and a second level that serves what memory evicted, across a clean restart too.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::db::{test_options, Db};
use strata_engine::fs::{FileSystem, MemFs};
use strata_engine::{Cell, Durability, FamilyOptions, L2Options, RowResult, Scan};

const ROWS: u32 = 2000;

/// An engine whose one region holds `ROWS` rows in one flushed file, behind a block cache
/// large enough for all of them.
fn flushed_db() -> Db {
    let mut options = test_options(Arc::new(MemFs::new()) as Arc<dyn FileSystem>);
    options.block_cache_bytes = 8 << 20;
    fill(Db::open(options, vec![FamilyOptions::new("cf")]).unwrap())
}

/// Writes `ROWS` rows and flushes them into one file.
fn fill(db: Db) -> Db {
    for row in 0..ROWS {
        let cell = Cell::put(format!("r{row:05}"), "cf", "q", 1, vec![b'v'; 100]);
        db.region().mutate(vec![cell], Durability::SyncWal).unwrap();
    }
    db.region().flush().unwrap();
    db
}

fn count(db: &Db, scan: &Scan) -> usize {
    let scanner = db.region().scan(scan).unwrap();
    scanner
        .filter(|row| row.as_ref().is_ok_and(|r| !r.cells.is_empty()))
        .count()
}

#[test]
fn a_scan_without_block_caching_reads_everything_and_caches_nothing() {
    let db = flushed_db();
    let before = db.engine().cache_stats();
    assert_eq!(count(&db, &Scan::new().cache_blocks(false)), ROWS as usize);
    let after = db.engine().cache_stats();
    assert_eq!(after.inserts, before.inserts, "{after:?}");
    assert_eq!(after.entries, before.entries, "{after:?}");
    assert!(after.misses > before.misses, "it did look the blocks up");
    // The same scan asking to cache fills the cache.
    assert_eq!(count(&db, &Scan::new()), ROWS as usize);
    let cached = db.engine().cache_stats();
    assert!(cached.inserts > after.inserts, "{cached:?}");
    assert!(cached.entries > 0, "{cached:?}");
    // Blocks already cached serve a non-caching scan too.
    assert_eq!(count(&db, &Scan::new().cache_blocks(false)), ROWS as usize);
    let again = db.engine().cache_stats();
    assert_eq!(again.inserts, cached.inserts);
    assert!(again.hits > cached.hits, "{again:?}");
}

fn rows(db: &Db) -> Vec<RowResult> {
    let scanner = db.region().scan(&Scan::new()).unwrap();
    scanner.collect::<Result<Vec<_>, _>>().unwrap()
}

#[test]
fn l2_serves_what_memory_evicted_and_survives_a_clean_restart() {
    let l2_dir = tempfile::tempdir().unwrap();
    let mut options = test_options(Arc::new(MemFs::new()) as Arc<dyn FileSystem>);
    options.block_cache_bytes = 64 << 10; // far smaller than the table's blocks
    options.l2_cache = Some(L2Options {
        dir: l2_dir.path().join("l2"),
        capacity_bytes: 16 << 20,
    });
    let mut db = fill(Db::open(options, vec![FamilyOptions::new("cf")]).unwrap());
    let expected = rows(&db);
    assert_eq!(expected.len(), ROWS as usize);
    db.engine().flush_l2_cache();
    let l2 = db.engine().cache_stats().l2.unwrap();
    assert!(l2.demotions > 0 && l2.entries > 0, "{l2:?}");
    assert_eq!(rows(&db), expected);
    let again = db.engine().cache_stats().l2.unwrap();
    assert!(
        again.hits > l2.hits && again.promotions > l2.promotions,
        "{again:?}"
    );

    db.close().unwrap();
    db.reopen().unwrap();
    let restored = db.engine().cache_stats().l2.unwrap();
    assert!(restored.restored > 0, "{restored:?}");
    assert_eq!(restored.hits, 0);
    assert_eq!(rows(&db), expected, "the same rows after the restart");
    let after = db.engine().cache_stats().l2.unwrap();
    assert!(
        after.hits > 0,
        "blocks served from the kept file: {after:?}"
    );
    assert_eq!(after.corrupt, 0);
}

/// Not a check but a measurement (run with `--ignored --nocapture`): random point reads
/// over a table about ten times the in-memory level, without and then with a second level
/// that holds it all (on /dev/shm when there is one). Store files are on the local
/// filesystem, so a read that misses both levels is a page-cache read plus decompression
/// and CRC: the figures show what an L2 hit saves over that, not over a real disk.
#[test]
#[ignore]
fn measure_point_reads_with_and_without_l2() {
    use strata_engine::fs::LocalFs;
    use strata_engine::{Compression, Get};
    use strata_runtime::clock::system;

    const N: u32 = 40_000;
    const READS: u32 = 20_000;
    let data = tempfile::tempdir().unwrap();
    let shm = std::path::Path::new("/dev/shm");
    let l2_parent = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let mut options = test_options(Arc::new(LocalFs) as Arc<dyn FileSystem>);
    options.data_dir = data.path().to_path_buf();
    options.block_cache_bytes = 1 << 20;
    let mut family = FamilyOptions::new("cf");
    family.compression = Compression::Lz4;
    let mut db = Db::open(options.clone(), vec![family.clone()]).unwrap();
    for row in 0..N {
        let value: Vec<u8> = (0..200).map(|i| ((row + i) % 251) as u8).collect();
        let cell = Cell::put(format!("r{row:06}"), "cf", "q", 1, value);
        db.region().mutate(vec![cell], Durability::SyncWal).unwrap();
    }
    db.region().flush().unwrap();
    db.close().unwrap();

    let clock = system();
    let run = |db: &Db, seed: u64| {
        let mut x = seed;
        let start = clock.now();
        for _ in 0..READS {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let row = (x >> 33) as u32 % N;
            let got = db.region().get(&Get::new(format!("r{row:06}"))).unwrap();
            assert!(got.is_some());
        }
        clock.elapsed(start)
    };
    db.reopen().unwrap();
    run(&db, 1); // warm the page cache and L1 alike
    let before = db.engine().cache_stats();
    let plain = run(&db, 2);
    let after = db.engine().cache_stats();
    let l1_hits = after.hits - before.hits;
    db.close().unwrap();

    options.l2_cache = Some(L2Options {
        dir: l2_parent.path().join("l2"),
        capacity_bytes: 64 << 20,
    });
    db.options = options;
    db.reopen().unwrap();
    run(&db, 1);
    db.engine().flush_l2_cache();
    run(&db, 3);
    db.engine().flush_l2_cache();
    let before = db.engine().cache_stats();
    let with_l2 = run(&db, 2);
    let after = db.engine().cache_stats();
    let (l2_before, l2_after) = (before.l2.unwrap(), after.l2.unwrap());
    let l2_hits = l2_after.hits - l2_before.hits;
    let l2_misses = l2_after.misses - l2_before.misses;
    println!(
        "{READS} random gets over {N} rows, L1 1 MiB: without L2 {:?} ({:.1} us/get, L1 hits \
         {l1_hits}); with L2 {:?} ({:.1} us/get, L1 hits {}, L2 hits {l2_hits}, L2 misses \
         {l2_misses}, L2 holds {} blocks / {} KiB)",
        plain,
        plain.as_secs_f64() * 1e6 / f64::from(READS),
        with_l2,
        with_l2.as_secs_f64() * 1e6 / f64::from(READS),
        after.hits - before.hits,
        l2_after.entries,
        l2_after.size_bytes >> 10,
    );
    assert!(l2_hits > 0);
    db.close().unwrap();
}
