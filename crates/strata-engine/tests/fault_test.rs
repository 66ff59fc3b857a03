//! Fault injection through `FaultFs` over a `MemFs`: failing WAL writes, flushes and
//! compactions, corrupted reads, a read-only volume and a full disk. Each test checks the
//! error reaches the caller, reads keep returning exactly the acknowledged data, work
//! resumes once the fault is gone, and nothing acknowledged is lost across a crash.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::db::{test_options, Db};
use common::ledger::{ledger_families, read_all, CrashKind, Ledger};
use strata_engine::fs::{CrashOptions, FaultFs, FaultKind, FaultOp, FaultRule, FileSystem, MemFs};
use strata_engine::{Durability, Engine, Error, FamilyOptions, Get, RegionSpec, Scan};

/// A database on `FaultFs(MemFs)`.
struct Faulty {
    mem: MemFs,
    fault: FaultFs,
    db: Db,
    ledger: Ledger,
}

impl Faulty {
    fn new(seed: u64) -> Faulty {
        let mem = MemFs::new();
        let fault = FaultFs::new(Arc::new(mem.clone()));
        let db = Db::open(
            test_options(Arc::new(fault.clone()) as Arc<dyn FileSystem>),
            ledger_families(),
        )
        .unwrap();
        Faulty {
            mem,
            fault,
            db,
            ledger: Ledger::new(seed),
        }
    }

    fn write(&mut self, n: usize, durability: Durability) {
        for _ in 0..n {
            self.ledger.write(self.db.region(), durability).unwrap();
        }
    }

    /// Crashes (the disk as a restarted process finds it) and reopens without faults.
    fn crash(&mut self, kind: CrashKind, context: &str) {
        let crashed = match kind {
            CrashKind::Process => self.mem.crash_process(),
            CrashKind::PowerLoss => self.mem.crash_power_loss_with(7, CrashOptions::strict()),
        };
        self.db.abandon();
        self.mem = crashed;
        self.fault = FaultFs::new(Arc::new(self.mem.clone()));
        self.db.options = test_options(Arc::new(self.fault.clone()) as Arc<dyn FileSystem>);
        self.db.reopen().unwrap();
        self.ledger
            .check_after_crash(self.db.region(), kind, context);
        assert_no_stray_tables(&self.db, &self.mem, context);
    }
}

/// Every `.sst` file in the store directories is in its store's live set.
fn assert_no_stray_tables(db: &Db, fs: &MemFs, context: &str) {
    let mut live = BTreeSet::new();
    let mut on_disk = BTreeSet::new();
    for store in db.region().stats().stores {
        // The test's only volume is rooted at /db.
        for file in &store.files {
            live.insert(Path::new("/db").join(&file.path));
        }
        let dir = PathBuf::from(format!(
            "/db/regions/{:016x}/{}",
            common::db::REGION,
            store.family
        ));
        for name in fs.list(&dir).unwrap() {
            if name.ends_with(".sst") {
                on_disk.insert(dir.join(name));
            }
        }
    }
    let live: BTreeSet<PathBuf> = live.iter().map(|p| normalize(p)).collect();
    assert_eq!(on_disk, live, "{context}: SSTables on disk vs live set");
}

fn normalize(p: &Path) -> PathBuf {
    PathBuf::from(p.to_string_lossy().replace("//", "/"))
}

fn is_io(e: &Error, kind: ErrorKind) -> bool {
    matches!(e, Error::Io { source, .. } if source.kind() == kind)
}

#[test]
fn failed_wal_writes_are_not_acknowledged_and_the_next_write_succeeds() {
    let cases: [(FaultOp, FaultKind, Durability); 4] = [
        (
            FaultOp::Append,
            FaultKind::Error(ErrorKind::Other),
            Durability::SyncWal,
        ),
        (FaultOp::Append, FaultKind::TornAppend, Durability::FsyncWal),
        (
            FaultOp::Flush,
            FaultKind::Error(ErrorKind::Other),
            Durability::SyncWal,
        ),
        (
            FaultOp::Sync,
            FaultKind::Error(ErrorKind::Other),
            Durability::FsyncWal,
        ),
    ];
    for (i, (op, kind, durability)) in cases.into_iter().enumerate() {
        for crash in [CrashKind::Process, CrashKind::PowerLoss] {
            let context = format!("{op:?} {kind:?} then {crash:?}");
            let mut t = Faulty::new(i as u64);
            t.write(10, Durability::FsyncWal);
            let rule = t
                .fault
                .inject(FaultRule::new(op, kind).path_contains("/wal/").times(1))
                .unwrap();
            let err = t
                .ledger
                .write(t.db.region(), durability)
                .expect_err(&context);
            assert!(matches!(err, Error::Io { .. }), "{context}: {err}");
            assert!(
                err.to_string().contains("wal"),
                "{context}: the error names the WAL file: {err}"
            );
            t.fault.remove_rule(rule);
            // The failed write is not visible; the next ones are acknowledged.
            t.ledger.check_live(t.db.region(), &context);
            t.write(10, Durability::FsyncWal);
            t.ledger.check_live(t.db.region(), &context);
            assert_eq!(t.db.engine().wal_stats().write_errors, 1, "{context}");
            t.crash(crash, &context);
            let acked = t.ledger.muts.iter().filter(|m| m.acked).count();
            assert!(acked >= 20, "{context}: every acknowledged write survived");
        }
    }
}

#[test]
fn failed_flushes_keep_data_readable_retry_and_leave_no_stray_tables() {
    let rules = [
        FaultRule::error(FaultOp::Create, ErrorKind::Other).path_contains(".sst"),
        FaultRule::error(FaultOp::Append, ErrorKind::Other).path_contains(".sst"),
        FaultRule::error(FaultOp::Sync, ErrorKind::Other).path_contains(".sst"),
        FaultRule::error(FaultOp::Create, ErrorKind::Other).path_contains("MANIFEST"),
        FaultRule::error(FaultOp::Sync, ErrorKind::Other).path_contains("MANIFEST"),
        FaultRule::error(FaultOp::SyncDir, ErrorKind::Other).path_contains("/regions/"),
        // The second family's table fails after the first one's commit succeeded.
        FaultRule::error(FaultOp::Sync, ErrorKind::Other)
            .path_contains(".sst")
            .skip(1),
    ];
    for (i, rule) in rules.into_iter().enumerate() {
        let context = format!("flush with {rule:?}");
        let mut t = Faulty::new(100 + i as u64);
        t.write(30, Durability::SyncWal);
        let id = t.fault.inject(rule.times(1)).unwrap();
        let err = t.db.region().flush().expect_err(&context);
        assert!(matches!(err, Error::Io { .. }), "{context}: {err}");
        t.fault.remove_rule(id);
        t.ledger.check_live(t.db.region(), &context);
        t.write(10, Durability::SkipWal);
        t.db.region().flush().unwrap();
        t.ledger.flushed();
        assert_eq!(t.db.region().memstore_bytes(), 0, "{context}");
        assert_no_stray_tables(&t.db, &t.mem, &context);
        t.ledger.check_live(t.db.region(), &context);
        t.crash(CrashKind::PowerLoss, &context);
        assert!(t.ledger.muts.iter().all(|m| m.alive), "{context}");
    }
}

#[test]
fn failed_compactions_keep_data_and_a_later_compaction_succeeds() {
    let rules = [
        FaultRule::error(FaultOp::Sync, ErrorKind::Other).path_contains(".sst"),
        FaultRule::error(FaultOp::Create, ErrorKind::Other).path_contains("MANIFEST"),
        FaultRule::error(FaultOp::Read, ErrorKind::Other).path_contains(".sst"),
    ];
    for (i, rule) in rules.into_iter().enumerate() {
        let context = format!("compaction with {rule:?}");
        let mut t = Faulty::new(200 + i as u64);
        for _ in 0..4 {
            t.write(15, Durability::SyncWal);
            t.db.region().flush().unwrap();
            t.ledger.flushed();
        }
        let files = t.db.file_count();
        assert!(files >= 8, "{context}: {files} files");
        let id = t.fault.inject(rule.times(1)).unwrap();
        let err = t.db.region().compact(true).expect_err(&context);
        assert!(matches!(err, Error::Io { .. }), "{context}: {err}");
        t.fault.remove_rule(id);
        t.ledger.check_live(t.db.region(), &context);
        assert_no_stray_tables(&t.db, &t.mem, &context);
        // Compaction goes family by family; the one that failed kept its inputs.
        assert!(t.db.file_count() > 3, "{context}");
        t.db.region().compact(true).unwrap();
        assert_eq!(t.db.file_count(), 3, "{context}: one file per family");
        t.ledger.check_live(t.db.region(), &context);
        t.ledger.check_read_paths(t.db.region(), &context);
        assert_no_stray_tables(&t.db, &t.mem, &context);
        t.crash(CrashKind::PowerLoss, &context);
        assert!(t.ledger.muts.iter().all(|m| m.alive), "{context}");
    }
}

#[test]
fn corrupted_reads_fail_with_corruption_and_other_data_stays_readable() {
    let mem = MemFs::new();
    let fault = FaultFs::new(Arc::new(mem.clone()));
    let mut opts = test_options(Arc::new(fault.clone()) as Arc<dyn FileSystem>);
    opts.block_cache_bytes = 0;
    let engine = Engine::open(opts).unwrap();
    let families = || {
        ["a", "b"]
            .map(|f| {
                let mut fam = FamilyOptions::new(f);
                fam.block_cache_enabled = false;
                fam.block_size = 256;
                fam
            })
            .to_vec()
    };
    let one = engine
        .open_region(RegionSpec {
            id: 1,
            families: families(),
        })
        .unwrap();
    let two = engine
        .open_region(RegionSpec {
            id: 2,
            families: families(),
        })
        .unwrap();
    for region in [&one, &two] {
        for f in ["a", "b"] {
            for i in 0..50 {
                let cell = strata_engine::Cell::put(
                    format!("row{i:03}"),
                    f,
                    "q",
                    5,
                    format!("value-{f}-{i}"),
                );
                region.mutate(vec![cell], Durability::SyncWal).unwrap();
            }
        }
        region.flush().unwrap();
    }
    let expected_one = read_all(&one).unwrap();
    let expected_two = read_all(&two).unwrap();
    assert_eq!(expected_one.len(), 100);
    // Corrupt every read of region 1's family b tables.
    let rule = fault
        .inject(
            FaultRule::new(FaultOp::Read, FaultKind::CorruptRead)
                .path_contains("0000000000000001/b/"),
        )
        .unwrap();
    let err = one
        .get(&Get::new("row007"))
        .expect_err("family b is corrupt");
    assert!(err.is_corruption(), "{err}");
    match &err {
        Error::Corruption { path, .. } => assert!(
            path.to_string_lossy().contains("0000000000000001/b/")
                && path.to_string_lossy().ends_with(".sst"),
            "the error names the damaged file: {err}"
        ),
        other => panic!("{other}"),
    }
    let scan_err = one
        .scan(&Scan::new())
        .and_then(|rows| rows.collect::<strata_engine::Result<Vec<_>>>())
        .expect_err("a scan over family b fails");
    assert!(scan_err.is_corruption(), "{scan_err}");
    // Family a of the same region, and the other region, still read correctly.
    let a_only: Vec<_> = expected_one
        .iter()
        .filter(|c| c.1 == b"a")
        .cloned()
        .collect();
    let mut got = Vec::new();
    for row in one.scan(&Scan::new().family("a")).unwrap() {
        got.extend(common::harness::flatten(&row.unwrap().cells));
    }
    got.sort();
    assert_eq!(got, a_only);
    let row = one.get(&Get::new("row010").family("a")).unwrap().unwrap();
    assert_eq!(row.cells[0].value.as_ref(), b"value-a-10");
    assert_eq!(read_all(&two).unwrap(), expected_two);
    assert!(fault.injected() > 0);
    // Once the disk reads correctly again, so does the region.
    fault.remove_rule(rule);
    assert_eq!(read_all(&one).unwrap(), expected_one);
    drop((one, two));
    engine.close().unwrap();
}

#[test]
fn read_only_volume_refuses_writes_keeps_reads_and_recovers() {
    let mut t = Faulty::new(300);
    t.write(20, Durability::SyncWal);
    t.db.region().flush().unwrap();
    t.ledger.flushed();
    t.write(10, Durability::FsyncWal);
    t.fault.set_read_only(true);
    for durability in [
        Durability::SyncWal,
        Durability::FsyncWal,
        Durability::SyncWal,
    ] {
        let err = t.ledger.write(t.db.region(), durability).unwrap_err();
        assert!(is_io(&err, ErrorKind::PermissionDenied), "{err}");
    }
    let err = t.db.region().flush().unwrap_err();
    assert!(is_io(&err, ErrorKind::PermissionDenied), "{err}");
    t.ledger.check_live(t.db.region(), "read-only");
    t.ledger.check_read_paths(t.db.region(), "read-only");
    t.fault.set_read_only(false);
    t.write(10, Durability::SyncWal);
    t.db.region().flush().unwrap();
    t.ledger.flushed();
    t.write(10, Durability::FsyncWal);
    t.ledger.check_live(t.db.region(), "writable again");
    assert_no_stray_tables(&t.db, &t.mem, "writable again");
    t.crash(CrashKind::PowerLoss, "after read-only episode");
}

#[test]
fn full_disk_refuses_writes_keeps_reads_and_recovers() {
    let mut t = Faulty::new(400);
    t.write(20, Durability::FsyncWal);
    t.fault.set_disk_full_after(Some(3000));
    let mut failures = 0;
    for _ in 0..100 {
        match t.ledger.write(t.db.region(), Durability::SyncWal) {
            Ok(_) => {}
            Err(e) => {
                assert!(is_io(&e, ErrorKind::StorageFull), "{e}");
                failures += 1;
            }
        }
    }
    assert!(
        failures > 50,
        "writes fail once the disk is full ({failures})"
    );
    let err = t.db.region().flush().unwrap_err();
    assert!(is_io(&err, ErrorKind::StorageFull), "{err}");
    t.ledger.check_live(t.db.region(), "disk full");
    t.fault.set_disk_full_after(None);
    t.write(10, Durability::FsyncWal);
    t.db.region().flush().unwrap();
    t.ledger.flushed();
    t.ledger.check_live(t.db.region(), "space again");
    assert_no_stray_tables(&t.db, &t.mem, "space again");
    t.crash(CrashKind::PowerLoss, "after disk-full episode");
    assert!(t.ledger.muts.iter().filter(|m| m.acked).all(|m| m.alive));
}

/// A manifest commit whose file was written but whose roll-back also failed may have
/// committed: the store must keep the new SSTable (the disk may list it), not delete it.
#[test]
fn a_commit_that_may_have_landed_keeps_its_new_table() {
    for (i, op) in ["flush", "compaction"].into_iter().enumerate() {
        let context = format!("{op} whose manifest commit is unknown");
        let mut t = Faulty::new(300 + i as u64);
        for _ in 0..3 {
            t.write(15, Durability::SyncWal);
            t.db.region().flush().unwrap();
            t.ledger.flushed();
        }
        t.write(15, Durability::SyncWal);
        // The new manifest is written and synced, its directory sync fails, and so does the
        // removal that would roll it back: the disk may now hold either state.
        let sync_dir = FaultRule::error(FaultOp::SyncDir, ErrorKind::Other)
            .path_contains("/regions/")
            .times(1);
        let remove = FaultRule::error(FaultOp::Remove, ErrorKind::Other)
            .path_contains("MANIFEST")
            .times(1);
        let ids = [
            t.fault.inject(sync_dir).unwrap(),
            t.fault.inject(remove).unwrap(),
        ];
        let result = match op {
            "flush" => t.db.region().flush(),
            _ => t.db.region().compact(true).map(|_| ()),
        };
        assert!(result.is_err(), "{context}: the commit must fail");
        for id in ids {
            t.fault.remove_rule(id);
        }
        t.crash(CrashKind::Process, &context);
        assert!(t.ledger.muts.iter().all(|m| m.alive), "{context}");
        t.ledger.check_read_paths(t.db.region(), &context);
    }
}
