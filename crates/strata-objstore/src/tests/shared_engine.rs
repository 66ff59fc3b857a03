//! The whole storage half of cluster mode in one process: engines whose WAL is an object
//! stream, whose SSTables and manifests are objects (`ObjectFs`) and whose current
//! manifests are pointers. A region moves from a dead server to a live one with no file
//! copied: the master fences the dead stream, the new owner replays its region's sections
//! and flushes; the dead server, if it was only paused, can acknowledge nothing more.

use std::sync::Arc;

use object_store::memory::InMemory;
use strata_engine::{
    Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, InMemoryPointers, Region,
    RegionSpec,
};

use super::deps;
use crate::{
    fence_stream, fenced_region_edits, BlockingStore, ObjectFs, ObjectWalOpener, StreamId,
};

const REGION: u64 = 5;

struct Server {
    engine: Arc<Engine>,
    stream: StreamId,
}

fn server(store: &BlockingStore, pointers: &Arc<InMemoryPointers>, id: u64) -> Server {
    let stream = StreamId::new(id, 1);
    let mut options = EngineOptions::new("/data");
    options.background_work = false;
    options.fs = Arc::new(ObjectFs::new(store.clone(), deps(id).retry, None));
    options.wal_backend = Some(Arc::new(ObjectWalOpener::new(
        store.clone(),
        stream,
        deps(id),
    )));
    options.manifest_pointers = Some(pointers.for_writer(&format!("s{id}i1")));
    Server {
        engine: Engine::open(options).unwrap(),
        stream,
    }
}

fn spec() -> RegionSpec {
    RegionSpec {
        id: REGION,
        families: vec![FamilyOptions::new("cf")],
    }
}

fn put(region: &Region, row: u32, value: &str) -> strata_engine::Result<()> {
    let cell = Cell::put(format!("row{row:03}"), "cf", "q", 1_000, value.to_owned());
    region.mutate(vec![cell], Durability::SyncWal).map(|_| ())
}

fn value(region: &Region, row: u32) -> Option<String> {
    let found = region.get(&Get::new(format!("row{row:03}"))).unwrap()?;
    Some(String::from_utf8(found.cells[0].value.to_vec()).unwrap())
}

#[test]
fn a_region_fails_over_with_every_acknowledged_write_and_the_zombie_is_fenced() {
    let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://cluster").unwrap();
    let pointers = InMemoryPointers::new();

    let a = server(&store, &pointers, 1);
    let on_a = a.engine.open_region(spec()).unwrap();
    for row in 0..40 {
        put(&on_a, row, "a").unwrap();
        if row == 15 {
            on_a.flush().unwrap();
        }
    }

    // A stops answering. The master fences its stream and moves the region's epoch.
    fence_stream(&store, a.stream, &deps(99)).unwrap();
    pointers.refuse(REGION, "s1i1");

    // B replays A's section of the region from the fenced stream, then flushes, so A's
    // stream is no longer needed for it.
    let b = server(&store, &pointers, 2);
    let edits = fenced_region_edits(&store, a.stream, REGION, 0, &deps(2).retry).unwrap();
    assert!(!edits.is_empty());
    let on_b = b.engine.open_region_with(spec(), edits).unwrap();
    on_b.flush().unwrap();
    for row in 0..40 {
        assert_eq!(value(&on_b, row).as_deref(), Some("a"), "row {row} lost");
    }
    put(&on_b, 40, "b").unwrap();

    // A wakes up: nothing it does is acknowledged or becomes visible.
    let err = put(&on_a, 41, "zombie").unwrap_err();
    assert!(err.is_wal_fenced(), "{err}");
    assert!(on_a.flush().is_err(), "a fenced owner committed a flush");

    // C opens the region from B's pointer alone after B stops cleanly.
    on_b.flush().unwrap();
    drop(on_b);
    drop(b);
    let c = server(&store, &pointers, 3);
    let on_c = c.engine.open_region(spec()).unwrap();
    for row in 0..40 {
        assert_eq!(
            value(&on_c, row).as_deref(),
            Some("a"),
            "row {row} lost on C"
        );
    }
    assert_eq!(value(&on_c, 40).as_deref(), Some("b"));
    assert_eq!(value(&on_c, 41), None, "the zombie's write became visible");
}

#[test]
fn past_the_lease_deadline_a_stored_batch_is_not_acknowledged_and_replaying_names_streams() {
    use std::sync::atomic::{AtomicBool, Ordering};

    let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://gate").unwrap();
    let pointers = InMemoryPointers::new();
    let lease_valid = Arc::new(AtomicBool::new(true));
    let gate_flag = Arc::clone(&lease_valid);
    let stream = StreamId::new(21, 1);
    let mut options = EngineOptions::new("/data");
    options.background_work = false;
    options.fs = Arc::new(ObjectFs::new(store.clone(), deps(21).retry, None));
    options.wal_backend = Some(Arc::new(
        ObjectWalOpener::new(store.clone(), stream, deps(21)).with_ack_gate(Arc::new(move || {
            match gate_flag.load(Ordering::SeqCst) {
                true => Ok(()),
                false => Err("lease deadline passed".to_string()),
            }
        })),
    ));
    options.manifest_pointers = Some(pointers.for_writer("s21i1"));
    let engine = Engine::open(options).unwrap();
    let region = engine.open_region(spec()).unwrap();
    put(&region, 1, "acked").unwrap();
    lease_valid.store(false, Ordering::SeqCst);
    let err = put(&region, 2, "unknown").unwrap_err();
    assert!(err.kind().is_retryable(), "{err}");
    assert!(err.to_string().contains("lease deadline passed"), "{err}");
    assert_eq!(
        value(&region, 2),
        None,
        "an unacknowledged write became visible"
    );

    // A new owner names the dead stream explicitly (its own id has no history).
    fence_stream(&store, stream, &deps(98)).unwrap();
    let next = StreamId::new(22, 1);
    let mut options = EngineOptions::new("/data");
    options.background_work = false;
    options.fs = Arc::new(ObjectFs::new(store.clone(), deps(22).retry, None));
    options.wal_backend = Some(Arc::new(
        ObjectWalOpener::new(store.clone(), next, deps(22)).replaying(vec![(stream, 0)]),
    ));
    options.manifest_pointers = Some(pointers.for_writer("s22i1"));
    let engine = Engine::open(options).unwrap();
    let region = engine.open_region(spec()).unwrap();
    assert_eq!(value(&region, 1).as_deref(), Some("acked"));
    // The refused batch was stored: like any write that failed, its outcome is unknown.
    assert_eq!(value(&region, 2).as_deref(), Some("unknown"));
}

#[test]
fn a_flush_moves_the_first_live_object_and_a_replay_from_it_loses_nothing() {
    use std::sync::atomic::Ordering;

    use crate::StreamProgress;

    let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://bound").unwrap();
    let pointers = InMemoryPointers::new();
    let progress = Arc::new(StreamProgress::default());
    let stream = StreamId::new(31, 1);
    let mut options = EngineOptions::new("/data");
    options.background_work = false;
    options.fs = Arc::new(ObjectFs::new(store.clone(), deps(31).retry, None));
    options.wal_backend = Some(Arc::new(
        ObjectWalOpener::new(store.clone(), stream, deps(31)).with_progress(Arc::clone(&progress)),
    ));
    options.manifest_pointers = Some(pointers.for_writer("s31i1"));
    let engine = Engine::open(options).unwrap();
    let region = engine.open_region(spec()).unwrap();
    for row in 0..30 {
        put(&region, row, "flushed").unwrap();
    }
    region.flush().unwrap();
    engine.keep_wal_bounded();
    for row in 30..40 {
        put(&region, row, "unflushed").unwrap();
    }
    // The flush told the WAL what is flushed: the 30 objects before it are not live.
    let first_live = progress.first_live_id.load(Ordering::Acquire);
    assert!(
        first_live >= 30,
        "first live object {first_live} after a flush of 30 batches"
    );
    assert!(progress.next_id.load(Ordering::Acquire) >= 40);

    fence_stream(&store, stream, &deps(97)).unwrap();
    let next = StreamId::new(32, 1);
    let mut options = EngineOptions::new("/data");
    options.background_work = false;
    options.fs = Arc::new(ObjectFs::new(store.clone(), deps(32).retry, None));
    options.wal_backend = Some(Arc::new(
        ObjectWalOpener::new(store.clone(), next, deps(32)).replaying(vec![(stream, first_live)]),
    ));
    options.manifest_pointers = Some(pointers.for_writer("s32i1"));
    let engine = Engine::open(options).unwrap();
    let region = engine.open_region(spec()).unwrap();
    for row in 0..30 {
        assert_eq!(value(&region, row).as_deref(), Some("flushed"), "row {row}");
    }
    for row in 30..40 {
        assert_eq!(
            value(&region, row).as_deref(),
            Some("unflushed"),
            "row {row}"
        );
    }
}

#[test]
fn local_copies_of_files_the_engine_is_done_with_are_evicted_and_the_objects_stay() {
    let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://evict").unwrap();
    let cache = tempfile::tempdir().unwrap();
    let pointers = InMemoryPointers::new();
    let mut options = EngineOptions::new("/data");
    options.background_work = false;
    options.fs = Arc::new(ObjectFs::new(
        store.clone(),
        deps(41).retry,
        Some(cache.path().to_path_buf()),
    ));
    options.wal_backend = Some(Arc::new(ObjectWalOpener::new(
        store.clone(),
        StreamId::new(41, 1),
        deps(41),
    )));
    options.manifest_pointers = Some(pointers.for_writer("s41i1"));
    let engine = Engine::open(options).unwrap();
    let region = engine.open_region(spec()).unwrap();
    for row in 0..3 {
        put(&region, row, "v").unwrap();
        region.flush().unwrap();
    }
    let local_tables = || {
        let dir = cache.path().join("data/regions/0000000000000005/cf");
        use strata_engine::fs::{FileSystem, LocalFs};
        let names = LocalFs.list(&dir).unwrap();
        names.iter().filter(|n| n.ends_with(".sst")).count()
    };
    assert_eq!(local_tables(), 3);
    region.compact(true).unwrap();
    assert_eq!(local_tables(), 1, "the inputs' local copies are evicted");
    let objects = store
        .list(&object_store::path::Path::from(
            "data/regions/0000000000000005/cf",
        ))
        .unwrap();
    let in_store = objects
        .iter()
        .filter(|o| o.location.as_ref().ends_with(".sst"))
        .count();
    assert_eq!(in_store, 4, "the objects stay for the collector");
    for row in 0..3 {
        assert_eq!(value(&region, row).as_deref(), Some("v"));
    }
}

/// Issue 16's "the same L2 is the local cache in front of the object store": a server
/// that did not write the files (no local copies) reads their blocks from the store once,
/// and then from its second cache level when the first level is too small to hold them.
#[test]
fn the_second_cache_level_serves_blocks_of_objects_the_server_did_not_write() {
    let store = BlockingStore::new(Arc::new(InMemory::new()), "memory://l2").unwrap();
    let pointers = InMemoryPointers::new();
    let writer = server(&store, &pointers, 51);
    let region = writer.engine.open_region(spec()).unwrap();
    let big = "v".repeat(1024);
    for row in 0..400 {
        put(&region, row, &big).unwrap();
    }
    region.flush().unwrap();
    writer.engine.close().unwrap();

    let l2 = tempfile::tempdir().unwrap();
    let mut options = EngineOptions::new("/data");
    options.background_work = false;
    options.fs = Arc::new(ObjectFs::new(store.clone(), deps(52).retry, None));
    options.wal_backend = Some(Arc::new(ObjectWalOpener::new(
        store.clone(),
        StreamId::new(52, 1),
        deps(52),
    )));
    options.manifest_pointers = Some(pointers.for_writer("s52i1"));
    options.block_cache_bytes = 64 * 1024; // one of the file's ~7 blocks of 64 KiB
    options.l2_cache = Some(strata_engine::L2Options {
        dir: l2.path().to_path_buf(),
        capacity_bytes: 16 << 20,
    });
    let reader = Engine::open(options).unwrap();
    let region = reader.open_region(spec()).unwrap();
    for _ in 0..3 {
        for row in 0..400 {
            assert_eq!(
                value(&region, row).as_deref(),
                Some(big.as_str()),
                "row {row}"
            );
        }
    }
    let l2_stats = reader.cache_stats().l2.expect("an L2 is configured");
    assert!(
        l2_stats.writes > 0,
        "blocks evicted from L1 went to L2: {l2_stats:?}"
    );
    assert!(l2_stats.hits > 0, "reads were served by L2: {l2_stats:?}");
}
