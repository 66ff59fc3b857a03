//! Engines sharing one storage through manifest pointers (cluster mode's engine half): a
//! region moves from one engine to another without copying files, the new owner replays
//! the old owner's unflushed edits, a fenced old owner can neither commit nor delete, and
//! nothing of its late work becomes visible.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use strata_engine::codec::WalEdit;
use strata_engine::fs::{ByCategory, FileCategory, FileSystem, MemFs, StorageType, Volume};
use strata_engine::{
    Cell, Durability, Engine, EngineOptions, FamilyOptions, Get, InMemoryPointers, Region,
    RegionSpec,
};

const REGION: u64 = 7;

/// An engine whose data volume `/shared` is shared, with a WAL of its own, writing with
/// the tag `tag`.
fn engine(fs: &MemFs, pointers: &Arc<InMemoryPointers>, tag: &str) -> Arc<Engine> {
    let wal_volume = format!("wal-{tag}");
    let mut opts = EngineOptions::new("/unused");
    opts.fs = Arc::new(fs.clone());
    opts.background_work = false;
    opts.volumes = vec![
        Volume::new("data", "/shared", StorageType::Ssd),
        Volume::new(&wal_volume, format!("/{wal_volume}"), StorageType::Ssd),
    ];
    opts.placement = Some(Arc::new(
        ByCategory::new().route(FileCategory::Wal, &wal_volume),
    ));
    opts.manifest_pointers = Some(pointers.for_writer(tag));
    Engine::open(opts).unwrap()
}

fn spec() -> RegionSpec {
    RegionSpec {
        id: REGION,
        families: vec![FamilyOptions::new("cf")],
    }
}

fn put(region: &Region, row: &str, value: &str) -> strata_engine::Result<()> {
    let cell = Cell::put(
        row.as_bytes().to_vec(),
        "cf",
        "q",
        10,
        value.as_bytes().to_vec(),
    );
    region.mutate(vec![cell], Durability::SyncWal).map(|_| ())
}

fn value(region: &Region, row: &str) -> Option<String> {
    let result = region.get(&Get::new(row.as_bytes().to_vec())).unwrap()?;
    let cell = result.cells.first()?;
    Some(String::from_utf8(cell.value.to_vec()).unwrap())
}

fn tables(fs: &MemFs) -> Vec<String> {
    let dir = Path::new("/shared/regions/0000000000000007/cf");
    let mut names = fs.list(dir).unwrap();
    names.retain(|n| n.ends_with(".sst"));
    names
}

#[test]
fn a_region_moves_between_engines_and_the_old_owner_is_fenced() {
    let fs = MemFs::new();
    let pointers = InMemoryPointers::new();

    let a = engine(&fs, &pointers, "a");
    let on_a = a.open_region(spec()).unwrap();
    put(&on_a, "r1", "a1").unwrap();
    on_a.flush().unwrap();
    put(&on_a, "r2", "a2").unwrap();
    on_a.flush().unwrap();
    assert!(
        tables(&fs).iter().all(|n| n.ends_with("-a.sst")),
        "{:?}",
        tables(&fs)
    );

    // The region moves to B. A's unflushed edit (r3) reaches B as a replayed section of
    // A's stream, with a sequence id far above anything B handed out.
    let b = engine(&fs, &pointers, "b");
    let foreign = WalEdit::new(
        REGION,
        1_000,
        vec![Cell::put(b"r3".to_vec(), "cf", "q", 10, b"a3".to_vec())],
    );
    let on_b = b.open_region_with(spec(), vec![foreign]).unwrap();
    pointers.refuse(REGION, "a");
    assert_eq!(value(&on_b, "r1").as_deref(), Some("a1"));
    assert_eq!(value(&on_b, "r3").as_deref(), Some("a3"));
    // Same timestamp: the later write wins only if B's sequence ids skipped past 1000.
    put(&on_b, "r3", "b3").unwrap();
    assert_eq!(value(&on_b, "r3").as_deref(), Some("b3"));

    // A is a zombie now: its flush and its compaction cannot commit, and delete nothing.
    put(&on_a, "r4", "zombie").unwrap();
    let before = tables(&fs);
    assert!(on_a.flush().is_err(), "a fenced owner's flush must fail");
    assert!(on_a.compact(true).is_err() || tables(&fs).len() >= before.len());
    for name in &before {
        assert!(tables(&fs).contains(name), "{name} deleted by a zombie");
    }

    // B flushes and compacts; A's files stay for the collector.
    on_b.flush().unwrap();
    on_b.compact(true).unwrap();
    for name in &before {
        assert!(
            tables(&fs).contains(name),
            "{name} deleted on shared storage"
        );
    }
    drop(on_b);
    drop(b);

    // A third engine opens the region from B's pointer: B's data, none of the zombie's.
    let c = engine(&fs, &pointers, "c");
    let on_c = c.open_region(spec()).unwrap();
    assert_eq!(value(&on_c, "r1").as_deref(), Some("a1"));
    assert_eq!(value(&on_c, "r2").as_deref(), Some("a2"));
    assert_eq!(value(&on_c, "r3").as_deref(), Some("b3"));
    assert_eq!(
        value(&on_c, "r4"),
        None,
        "the zombie's write became visible"
    );
}

#[test]
fn a_manifest_number_taken_by_another_writer_is_skipped() {
    let fs = MemFs::new();
    let pointers = InMemoryPointers::new();
    let a = engine(&fs, &pointers, "a");
    let on_a = a.open_region(spec()).unwrap();
    put(&on_a, "r1", "v1").unwrap();
    on_a.flush().unwrap();
    // Another writer's candidate, never pointed to, sits at the next number.
    let dir = Path::new("/shared/regions/0000000000000007/cf");
    let mut names = fs.list(dir).unwrap();
    names.retain(|n| n.starts_with("MANIFEST-"));
    assert_eq!(names.len(), 1, "{names:?}");
    let b = engine(&fs, &pointers, "b");
    let on_b = b.open_region(spec()).unwrap();
    put(&on_b, "r2", "v2").unwrap();
    on_b.flush().unwrap();
    drop(on_b);
    drop(b);
    // A's view of the numbers is stale: its next candidate number is B's. Its commit must
    // not overwrite B's manifest.
    let b_manifest = fs
        .read_all(&dir.join("MANIFEST-00000000000000000002"))
        .unwrap();
    put(&on_a, "r3", "v3").unwrap();
    let _ = on_a.flush();
    assert_eq!(
        fs.read_all(&dir.join("MANIFEST-00000000000000000002"))
            .unwrap(),
        b_manifest,
        "a candidate overwrote another writer's manifest"
    );
}

#[test]
fn files_a_compaction_replaced_are_held_while_a_scan_reads_them() {
    let fs = MemFs::new();
    let pointers = InMemoryPointers::new();
    let a = engine(&fs, &pointers, "a");
    let region = a.open_region(spec()).unwrap();
    for (row, value) in [("r1", "v1"), ("r2", "v2")] {
        put(&region, row, value).unwrap();
        region.flush().unwrap();
    }
    let before = tables(&fs);
    assert_eq!(before.len(), 2);
    let scanner = region.scan(&strata_engine::Scan::new()).unwrap();
    region.compact(true).unwrap();
    let held: Vec<String> = a
        .held_obsolete_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(held, before, "both inputs are still read by the scan");
    assert!(a.held_obsolete_files()[0].starts_with("/shared/regions/0000000000000007/cf"));
    let rows: Vec<_> = scanner.collect::<Result<_, _>>().unwrap();
    assert_eq!(rows.len(), 2);
    assert!(a.held_obsolete_files().is_empty(), "the scan let go");
    // Nothing was deleted on shared storage: that is the collector's.
    assert_eq!(tables(&fs).len(), 3);
}
