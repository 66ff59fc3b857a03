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
