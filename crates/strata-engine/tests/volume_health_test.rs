//! Placement around bad volumes: a volume much slower than its peers (the fault layer adds
//! 20 ms to each sync) stops getting new files (unless `avoid_slow_volumes` is off), and one that fails is taken out of
//! rotation without losing an acknowledged write.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use strata_engine::fs::{
    FaultFs, FaultKind, FaultOp, FaultRule, FileSystem, MemFs, StoragePolicy, StorageType, Tiered,
    Volume,
};
use strata_engine::{Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, RegionSpec};
use strata_runtime::clock::ManualClock;

fn ssts(fs: &dyn FileSystem, root: &str) -> usize {
    let dir = Path::new(root).join("regions/0000000000000001/cf");
    fs.list(&dir)
        .unwrap_or_default()
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count()
}

fn engine(fs: Arc<dyn FileSystem>, clock: Arc<ManualClock>) -> Arc<Engine> {
    engine_with(fs, clock, true)
}

fn engine_with(fs: Arc<dyn FileSystem>, clock: Arc<ManualClock>, avoid_slow: bool) -> Arc<Engine> {
    let mut opts = EngineOptions::new("/unused");
    opts.avoid_slow_volumes = avoid_slow;
    opts.fs = fs;
    opts.clock = clock;
    opts.background_work = false;
    opts.blocking_store_files = 1_000; // no compaction runs here; writers must not wait for one
    opts.volumes = vec![
        Volume::new("default", "/ssd0", StorageType::Ssd),
        Volume::new("ssd1", "/ssd1", StorageType::Ssd),
    ];
    opts.placement = Some(Arc::new(Tiered::new(
        StoragePolicy::AllSsd,
        StoragePolicy::AllSsd,
    )));
    let engine = Engine::open(opts).unwrap();
    engine
        .open_region(RegionSpec {
            id: 1,
            families: vec![FamilyOptions::new("cf")],
        })
        .unwrap();
    engine
}

fn put(engine: &Engine, i: u32) {
    let cell = Cell::put(format!("r{i:04}"), "cf", "q", 10, format!("v{i}"));
    engine
        .region(1)
        .unwrap()
        .mutate(vec![cell], Durability::SyncWal)
        .unwrap();
}

fn state_of(engine: &Engine, volume: &str) -> &'static str {
    engine
        .volume_health()
        .into_iter()
        .find(|(name, _)| name == volume)
        .map(|(_, report)| report.state)
        .unwrap()
}

#[test]
fn a_volume_much_slower_than_its_peers_stops_getting_new_files() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let mem = MemFs::new();
    let faulty = FaultFs::new(Arc::new(mem.clone())).with_clock(clock.clone());
    let slow = FaultRule::new(FaultOp::Sync, FaultKind::Delay(Duration::from_millis(20)))
        .path_contains("/ssd1/");
    faulty.inject(slow).unwrap();
    let engine = engine(Arc::new(faulty), clock);
    for i in 0..24 {
        put(&engine, i);
        engine.region(1).unwrap().flush().unwrap();
    }
    let (fast, slow) = (ssts(&mem, "/ssd0"), ssts(&mem, "/ssd1"));
    assert_eq!(fast + slow, 24);
    // Turns alternate until the slow volume has enough samples, then it is passed over.
    assert!(slow <= 5, "the slow volume still got {slow} of 24 files");
    assert_eq!(state_of(&engine, "ssd1"), "slow");
    assert_eq!(state_of(&engine, "default"), "ok");
}

#[test]
fn without_latency_awareness_a_slow_volume_keeps_its_turns_and_is_reported_slow() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let mem = MemFs::new();
    let faulty = FaultFs::new(Arc::new(mem.clone())).with_clock(clock.clone());
    let slow = FaultRule::new(FaultOp::Sync, FaultKind::Delay(Duration::from_millis(20)))
        .path_contains("/ssd1/");
    faulty.inject(slow).unwrap();
    let engine = engine_with(Arc::new(faulty), clock, false);
    for i in 0..24 {
        put(&engine, i);
        engine.region(1).unwrap().flush().unwrap();
    }
    let (fast, slow) = (ssts(&mem, "/ssd0"), ssts(&mem, "/ssd1"));
    assert_eq!(fast + slow, 24);
    assert!(
        slow >= 10,
        "plain turns gave the slow volume only {slow} of 24 files"
    );
    assert_eq!(state_of(&engine, "ssd1"), "slow");
}

#[test]
fn a_failing_volume_leaves_rotation_and_no_acknowledged_write_is_lost() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let mem = MemFs::new();
    let faulty = FaultFs::new(Arc::new(mem.clone())).with_clock(clock.clone());
    let broken =
        FaultRule::error(FaultOp::Append, std::io::ErrorKind::Other).path_contains("/ssd1/regions");
    faulty.inject(broken).unwrap();
    let engine = engine(Arc::new(faulty.clone()), clock.clone());
    let mut failures = 0;
    for i in 0..10 {
        put(&engine, i);
        if engine.region(1).unwrap().flush().is_err() {
            failures += 1;
            // The next attempt goes elsewhere: the volume is out of rotation.
            engine.region(1).unwrap().flush().unwrap();
        }
    }
    assert!(failures <= 1, "{failures} flushes failed");
    assert_eq!(ssts(&mem, "/ssd1"), 0);
    assert_eq!(state_of(&engine, "ssd1"), "failed");
    for i in 0..10 {
        let row = engine
            .region(1)
            .unwrap()
            .get(&Get::new(format!("r{i:04}")))
            .unwrap();
        assert!(row.is_some(), "row {i} lost");
    }
    // After the penalty the volume is tried again.
    faulty.clear_rules();
    clock.advance(61_000);
    assert_eq!(state_of(&engine, "ssd1"), "ok");
    drop(engine);
    let engine = self::engine(Arc::new(mem.crash_process()), clock);
    for i in 0..10 {
        let row = engine
            .region(1)
            .unwrap()
            .get(&Get::new(format!("r{i:04}")))
            .unwrap();
        assert!(row.is_some(), "row {i} lost after a restart");
    }
}
