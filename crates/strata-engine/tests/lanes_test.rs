//! The background lanes: a flush, or a small compaction, completes while a long compaction
//! runs. With one FIFO thread for all background work (before the lanes), both waited until
//! the compaction ended. And a flush to a fast volume completes while one to a slow volume
//! of another storage type runs: the lanes exist once per storage type.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::db::test_options;
use strata_engine::fs::{
    FaultFs, FaultKind, FaultOp, FaultRule, FileSystem, MemFs, StoragePolicy, StorageType, Tiered,
    Volume,
};
use strata_engine::stats::{BackgroundStats, LaneStats};
use strata_engine::{Cell, Durability, Engine, EngineOptions, Error, FamilyOptions, Region};
use strata_engine::{RegionSpec, Scan};

/// Compactions read about 100 KiB per second: one over ~300 KiB takes about 3 s.
const COMPACTION_BYTES_PER_SEC: u64 = 100 * 1024;

fn options() -> EngineOptions {
    let mut opts = test_options(Arc::new(MemFs::new()) as Arc<dyn FileSystem>);
    opts.background_work = true;
    opts.memstore_flush_size = 1 << 30; // flushes only when asked
    opts.compaction.min_files = 3;
    opts.blocking_store_files = 100;
    opts.compaction_bytes_per_sec = Some(COMPACTION_BYTES_PER_SEC);
    opts
}

fn open_region(engine: &Engine, id: u64) -> Arc<Region> {
    let families = vec![FamilyOptions::new("f")];
    engine.open_region(RegionSpec { id, families }).unwrap()
}

/// Writes `rows` rows of ~1 KiB starting at `first`.
fn write_rows(region: &Region, first: usize, rows: usize) {
    for i in first..first + rows {
        let row = format!("row{i:06}");
        let cell = Cell::put(row, "f", "q", 1, vec![b'v'; 1000]);
        region.mutate(vec![cell], Durability::SyncWal).unwrap();
    }
}

/// Three flushed files of `rows_per_file` rows each; the third flush queues a compaction.
fn three_files(region: &Region, rows_per_file: usize) {
    for f in 0..3 {
        write_rows(region, f * rows_per_file, rows_per_file);
        region.flush().unwrap();
    }
}

fn lane(stats: &BackgroundStats, name: &str) -> LaneStats {
    *stats.lanes.iter().find(|l| l.lane == name).unwrap()
}

/// Polls the engine's background stats until `done` holds (panics after 20 s).
fn wait_for(engine: &Engine, what: &str, done: impl Fn(&BackgroundStats) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let stats = engine.stats().background;
        if done(&stats) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}: {stats:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_flush_completes_while_a_long_compaction_runs() {
    let engine = Engine::open(options()).unwrap();
    let region = open_region(&engine, 1);
    three_files(&region, 100); // ~300 KiB to compact: ~3 s at the rate limit
    wait_for(&engine, "the compaction to start", |s| {
        lane(s, "small_compaction").running == 1
    });
    let flushes_before = engine.stats().background.totals.flushes;

    write_rows(&region, 1000, 10);
    let asked = Instant::now();
    engine.request_flush(1);
    wait_for(&engine, "the flush", |s| s.totals.flushes > flushes_before);
    let flushed_after = asked.elapsed();

    let stats = engine.stats().background;
    assert_eq!(
        stats.totals.compactions, 0,
        "the flush finished before the compaction (after {flushed_after:?})"
    );
    assert_eq!(lane(&stats, "small_compaction").running, 1, "{stats:?}");
    wait_for(&engine, "the compaction", |s| s.totals.compactions == 1);
    assert_eq!(region.scan(&Scan::new()).unwrap().count(), 310);
    engine.close().unwrap();
}

#[test]
fn a_small_compaction_completes_while_a_large_one_runs() {
    let mut opts = options();
    opts.compaction_throttle_bytes = Some(64 * 1024);
    let engine = Engine::open(opts).unwrap();
    let large = open_region(&engine, 1);
    let small = open_region(&engine, 2);
    three_files(&large, 100); // ~300 KiB: over the throttle
    wait_for(&engine, "the large compaction to start", |s| {
        lane(s, "large_compaction").running == 1
    });
    three_files(&small, 5); // ~15 KiB: under it
    wait_for(&engine, "the small compaction", |s| {
        s.totals.compactions == 1
    });
    let events = engine.stats().background.recent;
    let compacted: Vec<u64> = events
        .iter()
        .filter(|e| e.kind != strata_engine::stats::EventKind::Flush)
        .map(|e| e.region)
        .collect();
    assert_eq!(compacted, [2], "region 2 compacted first");
    assert_eq!(
        lane(&engine.stats().background, "large_compaction").running,
        1
    );
    wait_for(&engine, "the large compaction", |s| {
        s.totals.compactions == 2
    });
    let files = large.stats().file_count;
    assert_eq!(files, 1, "the large compaction merged region 1's files");
    engine.close().unwrap();
}

#[test]
fn every_lane_needs_a_thread() {
    for set in [
        |o: &mut EngineOptions| o.flush_threads = 0,
        |o: &mut EngineOptions| o.compaction_small_threads = 0,
        |o: &mut EngineOptions| o.compaction_large_threads = 0,
    ] {
        let mut opts = options();
        set(&mut opts);
        let err = Engine::open(opts).err().unwrap();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
        assert!(err.to_string().contains("must be at least 1"), "{err}");
    }
    // Without background work the thread counts do not matter.
    let mut opts = options();
    opts.background_work = false;
    opts.flush_threads = 0;
    Engine::open(opts).unwrap().close().unwrap();
}

#[test]
fn several_threads_per_lane_start_and_stop() {
    let mut opts = options();
    opts.flush_threads = 3;
    opts.compaction_small_threads = 2;
    opts.compaction_large_threads = 2;
    opts.compaction_bytes_per_sec = None;
    let engine = Engine::open(opts).unwrap();
    let threads: Vec<u64> = engine
        .stats()
        .background
        .lanes
        .iter()
        .map(|l| l.threads)
        .collect();
    assert_eq!(threads, [3, 2, 2]);
    let regions: Vec<Arc<Region>> = (1..=4).map(|id| open_region(&engine, id)).collect();
    for region in &regions {
        write_rows(region, 0, 20);
        engine.request_flush(region.id());
    }
    wait_for(&engine, "four flushes", |s| s.totals.flushes >= 4);
    for region in &regions {
        assert_eq!(region.scan(&Scan::new()).unwrap().count(), 20);
        assert_eq!(region.memstore_bytes(), 0, "region {} flushed", region.id());
    }
    engine.close().unwrap();
}

/// One SSD and one HDD volume, WAL and flushes on the SSD unless a family says otherwise;
/// every sync on the HDD takes `hdd_sync` (a slow device).
fn ssd_and_slow_hdd(hdd_sync: Duration) -> EngineOptions {
    let faulty = FaultFs::new(Arc::new(MemFs::new()));
    let slow = FaultRule::new(FaultOp::Sync, FaultKind::Delay(hdd_sync)).path_contains("/hdd/");
    faulty.inject(slow).unwrap();
    let mut opts = options();
    opts.fs = Arc::new(faulty);
    opts.volumes = vec![
        Volume::new("ssd", "/ssd", StorageType::Ssd),
        Volume::new("hdd", "/hdd", StorageType::Hdd),
    ];
    let policy = Tiered::new(StoragePolicy::AllSsd, StoragePolicy::AllSsd);
    opts.placement = Some(Arc::new(policy));
    opts
}

fn open_region_with_policy(engine: &Engine, id: u64, policy: StoragePolicy) -> Arc<Region> {
    let mut family = FamilyOptions::new("f");
    family.storage_policy = Some(policy);
    let families = vec![family];
    engine.open_region(RegionSpec { id, families }).unwrap()
}

fn lane_of(stats: &BackgroundStats, name: &str, storage_type: &str) -> LaneStats {
    *stats
        .lanes
        .iter()
        .find(|l| l.lane == name && l.storage_type == storage_type)
        .unwrap()
}

#[test]
fn a_flush_to_the_ssd_completes_while_one_to_a_slow_hdd_runs() {
    let engine = Engine::open(ssd_and_slow_hdd(Duration::from_secs(3))).unwrap();
    let lanes: Vec<(&str, &str, u64)> = engine
        .stats()
        .background
        .lanes
        .iter()
        .map(|l| (l.lane, l.storage_type, l.threads))
        .collect();
    assert_eq!(lanes.len(), 6, "three lanes per storage type: {lanes:?}");
    assert!(lanes.contains(&("flush", "hdd", 1)), "{lanes:?}");

    let cold = open_region_with_policy(&engine, 1, StoragePolicy::Cold);
    let hot = open_region_with_policy(&engine, 2, StoragePolicy::AllSsd);
    write_rows(&cold, 0, 10);
    engine.request_flush(1);
    wait_for(&engine, "the HDD flush to start", |s| {
        lane_of(s, "flush", "hdd").running == 1
    });
    write_rows(&hot, 0, 10);
    engine.request_flush(2);
    wait_for(&engine, "the SSD flush", |s| s.totals.flushes == 1);

    let stats = engine.stats().background;
    assert_eq!(
        lane_of(&stats, "flush", "hdd").running,
        1,
        "the SSD flush finished first: {stats:?}"
    );
    assert_eq!(hot.memstore_bytes(), 0, "region 2 flushed");
    assert!(cold.memstore_bytes() > 0, "region 1 is still flushing");
    wait_for(&engine, "the HDD flush", |s| s.totals.flushes == 2);
    assert_eq!(cold.scan(&Scan::new()).unwrap().count(), 10);
    engine.close().unwrap();
}
