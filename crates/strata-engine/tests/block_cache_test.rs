//! The block cache as reads reach it through an engine: scans that ask not to cache blocks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::db::{test_options, Db};
use strata_engine::fs::{FileSystem, MemFs};
use strata_engine::{Cell, Durability, FamilyOptions, Scan};

const ROWS: u32 = 2000;

/// An engine whose one region holds `ROWS` rows in one flushed file, behind a block cache
/// large enough for all of them.
fn flushed_db() -> Db {
    let mut options = test_options(Arc::new(MemFs::new()) as Arc<dyn FileSystem>);
    options.block_cache_bytes = 8 << 20;
    let db = Db::open(options, vec![FamilyOptions::new("cf")]).unwrap();
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
