//! Crash tests through `MemFs`: random workloads (puts, all four delete kinds, multi-cell
//! mutations over several rows and families, every durability level) interleaved with
//! flushes and compactions, manual or by the background worker, and repeatedly cut short
//! by a simulated `kill -9` or power loss. After each reopen the ledger (see
//! `common/ledger.rs`) checks that
//! - every write that had to survive did (SyncWal/FsyncWal for a process crash, FsyncWal
//!   for a power loss, and anything a successful flush covered),
//! - no mutation is half applied, and deleted cells did not come back,
//! - no write lost in one crash reappears after a later one.
//!
//! `STRATA_CRASH_SEEDS=N STRATA_CRASH_OPS=M` run more.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::db::{test_options, Db};
use common::ledger::{ledger_families, CrashKind, Ledger};
use rand::Rng;
use strata_engine::fs::{CrashOptions, FileSystem, MemFs};
use strata_engine::{Durability, EngineOptions};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Flushes and compactions only when the test asks.
    Manual,
    /// The background worker flushes and compacts concurrently with the writer.
    Background,
}

fn options(fs: &MemFs, mode: Mode) -> EngineOptions {
    let mut o = test_options(Arc::new(fs.clone()) as Arc<dyn FileSystem>);
    o.wal.segment_size = 4 * 1024; // rolls, and segment deletion after flushes
    o.wal.async_flush_interval = Duration::from_millis(2);
    o.write_wait_timeout = Duration::from_secs(10);
    // Manual mode compacts only when the workload says so.
    o.blocking_store_files = 1000;
    if mode == Mode::Background {
        o.background_work = true;
        o.memstore_flush_size = 6 * 1024;
        o.compaction.min_files = 3;
        o.blocking_store_files = 12;
    }
    o
}

/// One seed: `ops` random steps with a crash every few dozen steps.
fn run_seed(seed: u64, ops: u64, mode: Mode) {
    let mut fs = MemFs::new();
    let mut db = Db::open(options(&fs, mode), ledger_families()).unwrap();
    let mut ledger = Ledger::new(seed);
    let mut crashes = 0;
    for op in 0..ops {
        let context = format!("{mode:?} op {op}");
        match ledger.rng.random_range(0..100) {
            0..=79 => {
                let durability = match ledger.rng.random_range(0..20) {
                    0..=6 => Durability::FsyncWal,
                    7..=13 => Durability::SyncWal,
                    14..=16 => Durability::AsyncWal,
                    _ => Durability::SkipWal,
                };
                ledger
                    .write(db.region(), durability)
                    .unwrap_or_else(|e| panic!("seed {seed}: {context}: mutate: {e}"));
            }
            80..=85 => {
                db.region()
                    .flush()
                    .unwrap_or_else(|e| panic!("seed {seed}: {context}: flush: {e}"));
                ledger.flushed();
            }
            86..=89 => {
                let major = ledger.rng.random_bool(0.3);
                db.region()
                    .compact(major)
                    .unwrap_or_else(|e| panic!("seed {seed}: {context}: compact: {e}"));
            }
            90..=93 => ledger.check_live(db.region(), &context),
            _ => {
                ledger.check_live(db.region(), &format!("{context} before crash"));
                let kind = match ledger.rng.random_range(0..3) {
                    0 => CrashKind::Process,
                    _ => CrashKind::PowerLoss,
                };
                let crash_seed = ledger.rng.random();
                let strict = ledger.rng.random_bool(0.5);
                // The crashed disk is taken while the old engine (and its background
                // thread) still runs, then the old process is abandoned.
                let crashed = match kind {
                    CrashKind::Process => fs.crash_process(),
                    CrashKind::PowerLoss if strict => {
                        fs.crash_power_loss_with(crash_seed, CrashOptions::strict())
                    }
                    CrashKind::PowerLoss => fs.crash_power_loss(crash_seed),
                };
                db.abandon();
                fs = crashed;
                db.options = options(&fs, mode);
                db.reopen().unwrap_or_else(|e| {
                    panic!("seed {seed}: {context}: reopen after {kind:?} (strict {strict}): {e}")
                });
                crashes += 1;
                let context = format!("{context} after {kind:?} crash {crashes} (strict {strict})");
                ledger.check_after_crash(db.region(), kind, &context);
                ledger.check_read_paths(db.region(), &context);
            }
        }
    }
    let lost = ledger.muts.iter().filter(|m| !m.alive).count();
    eprintln!(
        "seed {seed} {mode:?}: {} mutations, {crashes} crashes, {lost} lost, {} files",
        ledger.muts.len(),
        db.file_count()
    );
    assert!(
        crashes > 0 || ops < 50,
        "seed {seed}: the workload never crashed"
    );
    // A clean close loses nothing, whatever the durability.
    ledger.check_live(db.region(), "before close");
    db.close().unwrap();
    db.options = options(&fs, mode);
    db.reopen().unwrap();
    ledger.check_live(db.region(), "after clean close and reopen");
    // And a power loss right after a clean close loses nothing either.
    db.close().unwrap();
    let crashed = fs.crash_power_loss_with(seed, CrashOptions::strict());
    db.options = options(&crashed, mode);
    db.reopen().unwrap();
    ledger.check_live(db.region(), "after close and power loss");
    db.abandon();
}

#[test]
fn crashes_keep_durable_writes_and_atomic_mutations() {
    let seeds = env_or("STRATA_CRASH_SEEDS", 14);
    let ops = env_or("STRATA_CRASH_OPS", 300);
    let base = env_or("STRATA_CRASH_BASE_SEED", 0xC4A5);
    for seed in base..base + seeds {
        run_seed(seed, ops, Mode::Manual);
    }
}

#[test]
fn crashes_during_background_flushes_and_compactions() {
    let seeds = env_or("STRATA_CRASH_SEEDS", 12);
    let ops = env_or("STRATA_CRASH_OPS", 300);
    let base = env_or("STRATA_CRASH_BASE_SEED", 0xB4C6);
    for seed in base..base + seeds {
        run_seed(seed, ops, Mode::Background);
    }
}

/// A crash right after a flush: the WAL segments the flush made obsolete may be gone, and
/// the data must come from the SSTables alone.
#[test]
fn power_loss_right_after_flush_and_compaction() {
    for seed in 0..6 {
        let fs = MemFs::new();
        let mut db = Db::open(options(&fs, Mode::Manual), ledger_families()).unwrap();
        let mut ledger = Ledger::new(seed);
        for round in 0..4 {
            for _ in 0..30 {
                ledger.write(db.region(), Durability::SkipWal).unwrap();
            }
            db.region().flush().unwrap();
            ledger.flushed();
            if round % 2 == 1 {
                db.region().compact(round == 3).unwrap();
            }
        }
        let files = db.file_count();
        assert!(files > 0);
        let crashed = fs.crash_power_loss_with(seed, CrashOptions::strict());
        db.abandon();
        db.options = options(&crashed, Mode::Manual);
        db.reopen().unwrap();
        ledger.check_after_crash(db.region(), CrashKind::PowerLoss, "after flush");
        assert!(
            ledger.muts.iter().all(|m| m.alive),
            "every flushed SkipWal write survives"
        );
        assert_eq!(db.file_count(), files);
    }
}
