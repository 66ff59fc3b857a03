//! The row cache as a region uses it: what invalidates a row, and the races it must lose.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use super::cached_read::BEFORE_ROW_CACHE_INSERT;
use crate::fs::{FileSystem, MemFs};
use crate::util::clock::ManualClock;
use crate::util::test_hook;
use crate::{
    Cell, CellType, Durability, Engine, EngineOptions, FamilyOptions, Get, Region, RegionSpec,
    TimeRange,
};

const NOW: i64 = 1_000_000;

struct Setup {
    engine: Arc<Engine>,
    region: Arc<Region>,
    clock: Arc<ManualClock>,
}

/// A region with family "cf" (row cache on, as `configure` leaves it) and "plain" (off).
fn setup(configure: impl FnOnce(&mut FamilyOptions)) -> Setup {
    let clock = Arc::new(ManualClock::new(NOW));
    let mut options = EngineOptions::new("/db");
    options.fs = Arc::new(MemFs::new()) as Arc<dyn FileSystem>;
    options.clock = Arc::clone(&clock) as _;
    options.background_work = false;
    options.row_cache_bytes = 1 << 20;
    let engine = Engine::open(options).unwrap();
    let mut cf = FamilyOptions::new("cf");
    cf.row_cache = true;
    configure(&mut cf);
    let region = engine
        .open_region(RegionSpec {
            id: 1,
            families: vec![cf, FamilyOptions::new("plain")],
        })
        .unwrap();
    // The cache admits a row on its second miss (`doorkeeper.rs`): one miss now, so that
    // the tests' first read of "r" is cached, as they expect.
    region.get(&Get::new("r").family("cf")).unwrap();
    Setup {
        engine,
        region,
        clock,
    }
}

fn put(region: &Region, family: &str, ts: i64, value: &str) {
    let cell = Cell::put("r", family.to_string(), "q", ts, value.to_string());
    region.mutate(vec![cell], Durability::SyncWal).unwrap();
}

fn values(region: &Region, get: &Get) -> Vec<String> {
    let row = region.get(get).unwrap();
    row.map(|r| {
        r.cells
            .iter()
            .map(|c| String::from_utf8_lossy(&c.value).into())
            .collect()
    })
    .unwrap_or_default()
}

impl Setup {
    fn hits(&self) -> u64 {
        self.engine.row_cache_stats().hits
    }
}

#[test]
fn a_repeated_read_is_a_hit_and_every_kind_of_write_drops_it() {
    let s = setup(|f| f.max_versions = 3);
    let get = Get::new("r").family("cf");
    put(&s.region, "cf", 10, "a");
    assert_eq!(values(&s.region, &get), ["a"]);
    assert_eq!(values(&s.region, &get), ["a"]);
    assert_eq!(s.hits(), 1);
    put(&s.region, "cf", 20, "b");
    assert_eq!(values(&s.region, &get), ["b"]);
    let kinds = [
        CellType::Delete,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
    ];
    for (kind, expected) in kinds.into_iter().zip([vec!["a"], vec![], vec![]]) {
        values(&s.region, &get); // cached
        let ts = if kind == CellType::Delete { 20 } else { 15 };
        let marker = Cell::delete("r", "cf", "q", ts, kind);
        s.region.mutate(vec![marker], Durability::SyncWal).unwrap();
        assert_eq!(values(&s.region, &get), expected, "after {kind:?}");
    }
    assert!(s.engine.row_cache_stats().invalidations >= 3);
}

#[test]
fn only_reads_of_row_cache_families_are_cached() {
    let s = setup(|_| {});
    put(&s.region, "cf", 10, "a");
    put(&s.region, "plain", 10, "p");
    for get in [Get::new("r"), Get::new("r").family("plain")] {
        values(&s.region, &get);
        values(&s.region, &get);
    }
    assert_eq!(s.engine.row_cache_stats().inserts, 0);
    values(&s.region, &Get::new("r").family("cf"));
    assert_eq!(s.engine.row_cache_stats().inserts, 1);
}

#[test]
fn a_cached_cell_expires_with_its_ttl() {
    let s = setup(|f| f.ttl_seconds = Some(10));
    let get = Get::new("r").family("cf");
    put(&s.region, "cf", NOW - 5_000, "a");
    assert_eq!(values(&s.region, &get), ["a"]);
    s.clock.advance(4_000);
    assert_eq!(values(&s.region, &get), ["a"]);
    assert_eq!(s.hits(), 1);
    s.clock.advance(1_001);
    assert!(
        values(&s.region, &get).is_empty(),
        "the cell outlived its TTL"
    );
}

#[test]
fn an_alter_of_the_family_drops_what_was_read_under_the_old_settings() {
    let s = setup(|f| f.max_versions = 3);
    let get = Get::new("r").family("cf").versions(3);
    put(&s.region, "cf", 10, "a");
    put(&s.region, "cf", 20, "b");
    assert_eq!(values(&s.region, &get), ["b", "a"]);
    let mut altered = s.region.store(b"cf").unwrap().family();
    altered.max_versions = 1;
    assert!(s.region.set_family(altered));
    assert_eq!(values(&s.region, &get), ["b"]);
}

/// A time-range read under VERSIONS => 1 shows an older version while the newer one and it
/// are both stored; a major compaction keeps only the newer one. The cached answer must not
/// outlive the compaction.
#[test]
fn a_compaction_that_drops_versions_is_not_hidden_by_the_cache() {
    let s = setup(|_| {});
    let get = Get::new("r").family("cf").time_range(TimeRange::new(0, 15));
    put(&s.region, "cf", 10, "old");
    put(&s.region, "cf", 20, "new");
    assert_eq!(values(&s.region, &get), ["old"]);
    s.region.flush().unwrap();
    s.region.compact(true).unwrap();
    assert!(values(&s.region, &get).is_empty());
}

/// The race the write fences exist for: a read misses, a write of the row is acknowledged,
/// then the read inserts what it read. Without the fence every later read would see the
/// value the write replaced.
#[test]
fn a_read_racing_a_write_does_not_cache_what_the_write_replaced() {
    let s = setup(|_| {});
    let get = Get::new("r").family("cf");
    put(&s.region, "cf", 10, "old");
    let region = Arc::clone(&s.region);
    test_hook::set(BEFORE_ROW_CACHE_INSERT, move || {
        put(&region, "cf", 20, "new")
    });
    assert_eq!(values(&s.region, &get), ["old"], "read before the write");
    assert_eq!(values(&s.region, &get), ["new"]);
    assert_eq!(values(&s.region, &get), ["new"]);
    let stats = s.engine.row_cache_stats();
    assert_eq!(stats.stale_refused, 1, "{stats:?}");
}

#[test]
fn a_reopened_region_starts_with_nothing_cached() {
    let s = setup(|_| {});
    let get = Get::new("r").family("cf");
    put(&s.region, "cf", 10, "a");
    values(&s.region, &get);
    assert_eq!(s.engine.row_cache_stats().entries, 1);
    s.engine.close_region(1).unwrap();
    assert_eq!(s.engine.row_cache_stats().entries, 0);
}
