#![allow(clippy::unwrap_used)]

use super::Engine;
use crate::cache::RESIZE_STEPS;
use crate::stats::EventKind;
use crate::{Cell, Durability, EngineOptions, FamilyOptions, Get, Region, RegionSpec, Scan};

fn engine(dir: &std::path::Path) -> std::sync::Arc<Engine> {
    let mut options = EngineOptions::new(dir);
    options.background_work = false;
    Engine::open(options).unwrap()
}

fn put(region: &Region, row: &str) {
    let cell = Cell::put(row.to_string(), "cf", "q", 1_000, vec![7u8; 100]);
    region.mutate(vec![cell], Durability::SyncWal).unwrap();
}

#[test]
fn regions_stores_files_and_requests_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    let region = engine
        .open_region(RegionSpec {
            id: 7,
            families: vec![FamilyOptions::new("cf")],
        })
        .unwrap();
    put(&region, "a");
    put(&region, "b");
    let before = engine.region_stats(7).unwrap();
    assert_eq!(before.write_requests, 2);
    assert!(before.memstore_bytes > 0);
    assert_eq!(before.file_count, 0);

    region.flush().unwrap();
    put(&region, "c");
    region.flush().unwrap();
    region.get(&Get::new("a")).unwrap();
    let _ = region.scan(&Scan::new()).unwrap().count();

    let stats = engine.stats();
    let r = stats.regions.iter().find(|r| r.id == 7).unwrap();
    assert_eq!((r.read_requests, r.write_requests), (2, 3));
    assert_eq!(r.file_count, 2);
    assert_eq!(r.memstore_bytes, 0);
    let store = &r.stores[0];
    assert_eq!(store.family, "cf");
    let entries: u64 = store.files.iter().map(|f| f.entries).sum();
    assert_eq!(entries, 3);
    assert!(store.files.iter().all(|f| f.origin == "flush"));
    assert!(store.files.iter().all(|f| f.min_timestamp == 1_000));
    assert_eq!(stats.volumes.len(), 1);
    assert_eq!(stats.volumes[0].files, 2);
    assert_eq!(stats.volumes[0].bytes, r.file_bytes);
    assert_eq!(stats.background.totals.flushes, 2);
    assert_eq!(stats.memory.memstore_bytes, 0);
    assert!(stats.wal.appends >= 3);
    assert_eq!(stats.cache_tiers.len(), 2);
}

#[test]
fn flushes_and_compactions_are_recorded_with_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    let region = engine
        .open_region(RegionSpec {
            id: 1,
            families: vec![FamilyOptions::new("cf")],
        })
        .unwrap();
    for row in ["a", "b", "c"] {
        put(&region, row);
        region.flush().unwrap();
    }
    region.compact(true).unwrap();
    let background = engine.stats().background;
    let kinds: Vec<EventKind> = background.recent.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::Flush,
            EventKind::Flush,
            EventKind::Flush,
            EventKind::MajorCompaction
        ]
    );
    let compaction = &background.recent[3];
    assert_eq!(compaction.files_in, 3);
    let flushed: u64 = background.recent[..3].iter().map(|e| e.bytes_out).sum();
    assert_eq!(compaction.bytes_in, flushed);
    assert!(compaction.bytes_out > 0);
    assert_eq!(background.totals.compactions, 1);
    assert_eq!(background.totals.compaction_bytes_in, flushed);
    let files = &engine.region_stats(1).unwrap().stores[0].files;
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].origin, "compaction");
}

/// Index and bloom bytes of every live file of the engine's open regions.
fn live_index_bloom_bytes(engine: &Engine) -> u64 {
    let regions = engine.host.regions.all();
    let stores = regions.iter().flat_map(|r| r.stores().values());
    let files: Vec<_> = stores.flat_map(|s| s.view().files.clone()).collect();
    files.iter().map(|f| f.reader.pinned_bytes() as u64).sum()
}

#[test]
fn the_cache_is_charged_for_the_open_files_and_sized_for_in_memory_families() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(dir.path());
    let mut hot = FamilyOptions::new("hot");
    hot.in_memory = true;
    let region = engine
        .open_region(RegionSpec {
            id: 3,
            families: vec![FamilyOptions::new("cf"), hot],
        })
        .unwrap();
    put(&region, "a");
    region.flush().unwrap();
    let stats = engine.stats();
    assert_eq!(
        stats.cache.index_bloom_bytes,
        live_index_bloom_bytes(&engine)
    );
    assert!(stats.cache.index_bloom_bytes > 0);
    assert_eq!(
        stats.cache_tiers[0].capacity_bytes, 0,
        "no IN_MEMORY file yet"
    );

    let cell = Cell::put("b".to_string(), "hot", "q", 1_000, vec![7u8; 100]);
    region.mutate(vec![cell], Durability::SyncWal).unwrap();
    for row in ["c", "d"] {
        put(&region, row);
        region.flush().unwrap();
    }
    region.compact(true).unwrap();
    let stats = engine.stats();
    assert_eq!(
        stats.cache.index_bloom_bytes,
        live_index_bloom_bytes(&engine),
        "compacted files' charges were released"
    );
    assert!(
        stats.cache_tiers[0].capacity_bytes > 0,
        "an IN_MEMORY file is open"
    );
    let data: u64 = stats.cache_tiers.iter().map(|t| t.capacity_bytes).sum();
    let configured = stats.cache.capacity_bytes - stats.cache.index_bloom_bytes;
    assert!(
        data <= configured && data + configured / RESIZE_STEPS + 4096 > configured,
        "{data} vs {configured}"
    );

    engine.close_region(3).unwrap();
    drop(region);
    let stats = engine.stats();
    assert_eq!(
        stats.cache.index_bloom_bytes, 0,
        "the region's files closed"
    );
    assert_eq!(stats.cache_tiers[0].capacity_bytes, 0);
}
