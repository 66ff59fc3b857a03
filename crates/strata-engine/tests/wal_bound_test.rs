//! The WAL stays bounded when one region is written rarely: found by the process-level
//! crash soak (tests/reliability), where the server's catalog region, written once at
//! table creation and never flushed, pinned every WAL segment, so the WAL and the restart
//! time grew with the whole history.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use strata_engine::{Cell, Durability, Engine, EngineOptions, FamilyOptions, RegionSpec};

const SEGMENT_LIMIT: u64 = 32;

#[test]
fn a_quiet_region_is_flushed_once_it_pins_too_many_wal_segments() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = EngineOptions::new(dir.path());
    options.wal.segment_size = 4 * 1024;
    options.memstore_flush_size = 16 * 1024;
    options.background_work = true;
    let engine = Engine::open(options).unwrap();
    let spec = |id| RegionSpec {
        id,
        families: vec![FamilyOptions::new("cf")],
    };
    let quiet = engine.open_region(spec(1)).unwrap();
    let busy = engine.open_region(spec(2)).unwrap();
    quiet
        .mutate(
            vec![Cell::put("q", "cf", "c", 1, "once")],
            Durability::SyncWal,
        )
        .unwrap();
    // ~800 KiB through 4 KiB segments: about 200 segments without the bound.
    for i in 0..4000u32 {
        let cell = Cell::put(format!("r{i:06}"), "cf", "c", 1, vec![b'x'; 200]);
        busy.mutate(vec![cell], Durability::SyncWal).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while quiet.min_unflushed_seq().is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        quiet.min_unflushed_seq(),
        None,
        "the quiet region was never flushed"
    );
    // One more flush of the busy region lets the freed segments go.
    busy.flush().unwrap();
    let segments = engine.wal_stats().segments;
    assert!(
        segments <= SEGMENT_LIMIT + 2,
        "{segments} WAL segments kept"
    );
    engine.close().unwrap();
}
