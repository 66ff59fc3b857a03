//! The engine over the object WAL: acknowledged writes survive a crash, and a fenced
//! stream refuses writes with the engine's typed error.

use std::sync::Arc;

use object_store::memory::InMemory;
use strata_engine::{
    Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, Region, RegionSpec,
};

use super::deps;
use crate::{fence_stream, BlockingStore, ObjectWalOpener, StreamId};

const SERVER: u64 = 9;

fn engine(dir: &std::path::Path, store: &BlockingStore, incarnation: u64) -> Arc<Engine> {
    let stream = StreamId::new(SERVER, incarnation);
    let mut options = EngineOptions::new(dir);
    options.background_work = false;
    options.wal_backend = Some(Arc::new(ObjectWalOpener::new(
        store.clone(),
        stream,
        deps(incarnation),
    )));
    Engine::open(options).unwrap()
}

fn region(engine: &Engine) -> Arc<Region> {
    let spec = RegionSpec {
        id: 1,
        families: vec![FamilyOptions::new("cf")],
    };
    engine.open_region(spec).unwrap()
}

fn put(region: &Region, row: &str) -> strata_engine::Result<()> {
    let cell = Cell::put(
        row.to_owned(),
        "cf",
        "q",
        1_700_000_000_000,
        format!("v-{row}"),
    );
    region.mutate(vec![cell], Durability::SyncWal).map(|_| ())
}

fn value(region: &Region, row: &str) -> Option<String> {
    let get = Get::new(row.to_owned()).family("cf");
    let found = region.get(&get).unwrap()?;
    Some(String::from_utf8(found.cells[0].value.to_vec()).unwrap())
}

fn memory_store() -> BlockingStore {
    BlockingStore::new(Arc::new(InMemory::new()), "memory://test").unwrap()
}

#[test]
fn acknowledged_writes_survive_a_crash_and_replay_from_objects() {
    let dir = tempfile::tempdir().unwrap();
    let store = memory_store();
    let first = engine(dir.path(), &store, 1);
    let r = region(&first);
    for i in 0..20 {
        put(&r, &format!("row{i:02}")).unwrap();
    }
    // A crash: no close, so nothing is flushed and only the WAL objects hold the writes.
    drop(r);
    drop(first);
    let second = engine(dir.path(), &store, 2);
    let r = region(&second);
    for i in 0..20 {
        let row = format!("row{i:02}");
        assert_eq!(value(&r, &row), Some(format!("v-{row}")), "{row}");
    }
    // The second incarnation writes on, and a third replays both streams.
    put(&r, "late").unwrap();
    drop(r);
    drop(second);
    let third = engine(dir.path(), &store, 3);
    let r = region(&third);
    assert_eq!(value(&r, "row00"), Some("v-row00".into()));
    assert_eq!(value(&r, "late"), Some("v-late".into()));
}

#[test]
fn a_fenced_stream_refuses_writes_with_the_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = memory_store();
    let first = engine(dir.path(), &store, 1);
    let r = region(&first);
    put(&r, "before").unwrap();
    let fenced = fence_stream(&store, StreamId::new(SERVER, 1), &deps(77)).unwrap();
    assert_eq!(fenced.replay.len(), 1);
    let refused = put(&r, "after").unwrap_err();
    assert!(refused.is_wal_fenced(), "{refused}");
    assert!(!refused.kind().is_retryable(), "{refused}");
    let again = put(&r, "later").unwrap_err();
    assert!(again.is_wal_fenced(), "{again}");
    drop(r);
    drop(first);
    let second = engine(dir.path(), &store, 2);
    let r = region(&second);
    assert_eq!(value(&r, "before"), Some("v-before".into()));
    assert_eq!(value(&r, "after"), None);
    assert_eq!(value(&r, "later"), None);
}

#[test]
fn an_incarnation_already_in_the_store_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = memory_store();
    let first = engine(dir.path(), &store, 1);
    put(&region(&first), "x").unwrap();
    drop(first);
    let mut options = EngineOptions::new(dir.path());
    options.background_work = false;
    let opener = ObjectWalOpener::new(store, StreamId::new(SERVER, 1), deps(5));
    options.wal_backend = Some(Arc::new(opener));
    let refused = Engine::open(options).err().unwrap();
    assert_eq!(refused.kind(), strata_engine::ErrorKind::InvalidArgument);
}
