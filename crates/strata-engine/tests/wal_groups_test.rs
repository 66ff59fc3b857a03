//! WAL groups through the engine: regions in different groups log to their own
//! directories on their own volumes, every group replays after a crash (also when the
//! group count changed), each group drops its segments as its own regions flush, and a
//! slow device under one group does not delay the acknowledgements of another.
#![allow(clippy::disallowed_methods)] // real time and randomness in these tests
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use strata_engine::codec::WalEdit;
use strata_engine::fs::{
    FaultFs, FaultKind, FaultOp, FaultRule, FileSystem, MemFs, StoragePolicy, StorageType, Tiered,
    Volume,
};
use strata_engine::stats::WalGroupStats;
use strata_engine::{
    Cell, Durability, Engine, EngineOptions, Error, FamilyOptions, Get, RegionSpec, Result,
    WalBackend, WalBackendOpener, WalGroupCount,
};
use strata_runtime::clock::system;
use strata_runtime::thread;

/// Two SSD volumes (the WAL's storage type) and an HDD; `groups` WAL groups.
fn options(fs: Arc<dyn FileSystem>, groups: usize) -> EngineOptions {
    let mut opts = EngineOptions::new("/unused");
    opts.fs = fs;
    opts.background_work = false;
    opts.volumes = vec![
        Volume::new("default", "/ssd0", StorageType::Ssd),
        Volume::new("hdd0", "/hdd0", StorageType::Hdd),
        Volume::new("ssd1", "/ssd1", StorageType::Ssd),
    ];
    opts.placement = Some(Arc::new(Tiered::new(
        StoragePolicy::Hot,
        StoragePolicy::AllSsd,
    )));
    opts.wal.groups = WalGroupCount::Fixed(groups);
    opts
}

fn open(opts: &EngineOptions, regions: &[u64]) -> Arc<Engine> {
    let engine = Engine::open(opts.clone()).unwrap();
    for &id in regions {
        let families = vec![FamilyOptions::new("cf")];
        engine.open_region(RegionSpec { id, families }).unwrap();
    }
    engine
}

fn put(engine: &Engine, region: u64, i: u32, durability: Durability) {
    let cell = Cell::put(
        format!("r{i:04}"),
        "cf",
        "q",
        10,
        format!("value-{i:0>200}"),
    );
    engine
        .region(region)
        .unwrap()
        .mutate(vec![cell], durability)
        .unwrap();
}

fn has_row(engine: &Engine, region: u64, i: u32) -> bool {
    let get = Get::new(format!("r{i:04}"));
    engine.region(region).unwrap().get(&get).unwrap().is_some()
}

/// (group, directory, appends, segments) of every log.
fn logs(engine: &Engine) -> Vec<(Option<usize>, String, u64, u64)> {
    let brief = |g: WalGroupStats| (g.group, g.dir, g.stats.appends, g.stats.segments);
    engine.wal_group_stats().into_iter().map(brief).collect()
}

#[test]
fn regions_in_different_groups_log_apart_and_all_survive_a_power_loss() {
    let fs = MemFs::new();
    let opts = options(Arc::new(fs.clone()), 2);
    let engine = open(&opts, &[1, 2]);
    for i in 0..5 {
        put(&engine, 1, i, Durability::FsyncWal);
        put(&engine, 2, i, Durability::FsyncWal);
    }
    put(&engine, 2, 5, Durability::FsyncWal);
    let groups = logs(&engine);
    assert_eq!(groups[0].0, Some(0));
    assert_eq!((groups[0].1.as_str(), groups[0].2), ("/ssd0/wal", 6));
    assert_eq!(
        (groups[1].1.as_str(), groups[1].2),
        ("/ssd1/wal-group-1", 5)
    );
    assert_eq!(
        engine.wal_stats().appends,
        11,
        "the WAL's stats are the sum"
    );
    drop(engine);
    let opts = options(Arc::new(fs.crash_power_loss(7)), 2);
    let engine = open(&opts, &[1, 2]);
    for i in 0..5 {
        assert!(
            has_row(&engine, 1, i) && has_row(&engine, 2, i),
            "row {i} lost"
        );
    }
    assert!(has_row(&engine, 2, 5));
}

#[test]
fn each_group_drops_its_segments_as_its_own_regions_flush() {
    let fs = MemFs::new();
    let mut opts = options(Arc::new(fs.clone()), 2);
    opts.wal.segment_size = 1024;
    let engine = open(&opts, &[1, 2]);
    for i in 0..40 {
        put(&engine, 1, i, Durability::SyncWal);
        put(&engine, 2, i, Durability::SyncWal);
    }
    let segments = |engine: &Engine| -> Vec<u64> { logs(engine).iter().map(|l| l.3).collect() };
    let before = segments(&engine);
    assert!(before.iter().all(|&n| n > 5), "{before:?}");
    // Region 2 logs to group 0: its flush frees group 0's segments, not group 1's.
    engine.region(2).unwrap().flush().unwrap();
    let after = segments(&engine);
    assert!(after[0] <= 1, "at most the active segment stays: {after:?}");
    assert_eq!(after[1], before[1]);
    engine.region(1).unwrap().flush().unwrap();
    let last = segments(&engine);
    assert!(last.iter().all(|&n| n <= 1), "{last:?}");
}

#[test]
fn a_changed_group_count_replays_every_group_and_drops_leftovers_once_flushed() {
    let fs = MemFs::new();
    let regions = [1, 2, 3, 4, 5, 6];
    let engine = open(&options(Arc::new(fs.clone()), 3), &regions);
    for &region in &regions {
        put(&engine, region, region as u32, Durability::SyncWal);
    }
    drop(engine);
    let fs = fs.crash_process();
    // Down to one group: groups 1 and 2 are leftovers, replayed and kept until flushed.
    let opts = options(Arc::new(fs.clone()), 1);
    let engine = open(&opts, &regions);
    for &region in &regions {
        assert!(has_row(&engine, region, region as u32), "region {region}");
    }
    let leftovers: Vec<String> = logs(&engine)
        .into_iter()
        .filter(|l| l.0.is_none())
        .map(|l| l.1)
        .collect();
    assert_eq!(leftovers, ["/ssd0/wal-group-2", "/ssd1/wal-group-1"]);
    // A crash before anything was flushed: the leftovers are replayed again.
    drop(engine);
    let fs = fs.crash_process();
    let opts = options(Arc::new(fs.clone()), 1);
    let engine = open(&opts, &regions);
    assert!(has_row(&engine, 4, 4));
    for &region in &regions {
        engine.region(region).unwrap().flush().unwrap();
    }
    let leftover_segments: u64 = logs(&engine)
        .iter()
        .filter(|l| l.0.is_none())
        .map(|l| l.3)
        .sum();
    assert_eq!(leftover_segments, 0);
    engine.close().unwrap();
    let engine = open(&opts, &regions);
    assert_eq!(logs(&engine).len(), 1);
    assert!(!fs.exists(Path::new("/ssd1/wal-group-1")).unwrap());
    assert!(has_row(&engine, 5, 5));
}

#[test]
fn a_slow_group_does_not_delay_the_acknowledgements_of_a_fast_one() {
    const SLOW_SYNC: Duration = Duration::from_millis(800);
    let faulty = FaultFs::new(Arc::new(MemFs::new()));
    let engine = open(&options(Arc::new(faulty.clone()), 2), &[1, 2]);
    // Group 1 (region 1) is on a device whose syncs take 800 ms from now on.
    let slow =
        FaultRule::new(FaultOp::Sync, FaultKind::Delay(SLOW_SYNC)).path_contains("wal-group-1");
    faulty.inject(slow).unwrap();
    let slow_writer = {
        let engine = Arc::clone(&engine);
        thread::spawn("slow-writer", move || {
            let started = system().now();
            put(&engine, 1, 0, Durability::FsyncWal);
            system().elapsed(started)
        })
        .unwrap()
    };
    while faulty.injected() == 0 {
        system().sleep(Duration::from_millis(1));
    }
    // Region 1's writer is now in its slow sync; region 2's writes go through group 0.
    let started = system().now();
    for i in 0..20 {
        put(&engine, 2, i, Durability::FsyncWal);
    }
    let fast = system().elapsed(started);
    let slow = slow_writer.join().unwrap();
    assert!(slow >= SLOW_SYNC, "the slow group took {slow:?}");
    assert!(
        fast < SLOW_SYNC / 2,
        "20 writes to the fast group took {fast:?} while the slow group synced"
    );
}

/// A WAL backend that is never opened: the engine refuses groups before it gets there.
struct UnusedBackend;

impl WalBackendOpener for UnusedBackend {
    fn open(&self, _: &mut dyn FnMut(WalEdit) -> Result<()>) -> Result<Box<dyn WalBackend>> {
        Err(Error::Closed("not reached".into()))
    }
}

#[test]
fn groups_are_refused_on_a_wal_backend() {
    let mut opts = options(Arc::new(MemFs::new()), 2);
    opts.wal_backend = Some(Arc::new(UnusedBackend));
    let err = Engine::open(opts).err().unwrap();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
}
