//! A hot counter through the two-step write path, as the service's `with_row` drives it:
//! under a row lock, read the queued value, queue value + 1, unlock, then wait. Checked
//! against crashes at every durability and against failing WAL writes:
//! - no acknowledged increment is lost (SyncWal/FsyncWal over a process crash, FsyncWal
//!   over a power loss),
//! - none is counted twice (the recovered value never exceeds what was queued),
//! - every version builds on the one before (no gaps), and
//! - when a WAL write fails, the count equals the acknowledged increments exactly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::ErrorKind;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use common::db::{test_options, Db};
use strata_engine::fs::{FaultFs, FaultOp, FaultRule, FileSystem, MemFs};
use strata_engine::{Cell, Durability, FamilyOptions, Get, Region, Result};

const THREADS: usize = 4;

fn families() -> Vec<FamilyOptions> {
    vec![FamilyOptions {
        max_versions: 4,
        ..FamilyOptions::new("cf")
    }]
}

/// Every stored version of the counter, newest first.
fn versions(region: &Region) -> Vec<i64> {
    let get = Get::new("hot").column("cf", "n").versions(4);
    region
        .get(&get)
        .unwrap()
        .map(|r| {
            r.cells
                .iter()
                .map(|c| i64::from_be_bytes(c.value.as_ref().try_into().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

/// What the increments of all threads have queued and had acknowledged so far.
#[derive(Default)]
struct Progress {
    queued: AtomicI64,
    acked: AtomicI64,
    acks: AtomicI64,
}

/// One increment: `Ok(Some(value))` when acknowledged, `Ok(None)` when refused or failed.
fn increment(
    region: &Arc<Region>,
    row_lock: &Mutex<()>,
    durability: Durability,
    progress: &Progress,
) -> Result<Option<i64>> {
    let lock = row_lock.lock().unwrap();
    let Ok(guard) = region.failure_guard() else {
        return Ok(None);
    };
    let get = Get::new("hot").column("cf", "n");
    let (current, previous_ts) = region.get_queued(&get)?.map_or((0, i64::MIN), |r| {
        let cell = &r.cells[0];
        let value = i64::from_be_bytes(cell.value.as_ref().try_into().unwrap());
        (value, cell.timestamp)
    });
    let next = current + 1;
    // As HBase stamps an increment: past the previous version, so each is a version.
    let ts = region.server_timestamp(previous_ts.saturating_add(1));
    let cell = Cell::put("hot", "cf", "n", ts, next.to_be_bytes().to_vec());
    let Ok(pending) = region.mutate_queued(vec![cell], durability, Some(guard)) else {
        return Ok(None);
    };
    progress.queued.fetch_max(next, Ordering::SeqCst);
    drop(lock);
    match pending.wait() {
        Ok(_) => {
            progress.acked.fetch_max(next, Ordering::SeqCst);
            progress.acks.fetch_add(1, Ordering::SeqCst);
            Ok(Some(next))
        }
        Err(_) => Ok(None),
    }
}

fn run_threads(region: &Arc<Region>, durability: Durability, each: usize, progress: &Progress) {
    let row_lock = Mutex::new(());
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for _ in 0..each {
                    increment(region, &row_lock, durability, progress).unwrap();
                }
            });
        }
    });
}

#[test]
fn no_acknowledged_increment_is_lost_or_counted_twice_across_crashes() {
    for durability in [
        Durability::AsyncWal,
        Durability::SyncWal,
        Durability::FsyncWal,
    ] {
        for seed in 0..4u64 {
            let context = format!("{durability:?} seed {seed}");
            let mem = MemFs::new();
            let db = Db::open(
                test_options(Arc::new(mem.clone()) as Arc<dyn FileSystem>),
                families(),
            )
            .unwrap();
            let progress = Progress::default();
            let power_loss = seed % 2 == 1;
            let crashed = std::thread::scope(|s| {
                s.spawn(|| run_threads(db.region(), durability, 150, &progress));
                // Crash while the threads run: wait for some acknowledgements first.
                while progress.acks.load(Ordering::SeqCst) < 40 * (seed as i64 + 1) {
                    std::thread::yield_now();
                }
                let acked_before = progress.acked.load(Ordering::SeqCst);
                let disk = if power_loss {
                    mem.crash_power_loss(seed)
                } else {
                    mem.crash_process()
                };
                (disk, acked_before, progress.queued.load(Ordering::SeqCst))
            });
            let (disk, acked_before, queued) = crashed;
            let reopened = Db::open(
                test_options(Arc::new(disk) as Arc<dyn FileSystem>),
                families(),
            )
            .unwrap();
            let found = versions(reopened.region());
            let value = found.first().copied().unwrap_or(0);
            assert!(
                value <= queued,
                "{context}: {value} > {queued} queued: counted twice"
            );
            let must_survive = match durability {
                Durability::FsyncWal => true,
                Durability::SyncWal => !power_loss,
                _ => false,
            };
            if must_survive {
                assert!(
                    value >= acked_before,
                    "{context}: recovered {value}, but {acked_before} was acknowledged"
                );
            }
            assert!(
                found.windows(2).all(|w| w[0] == w[1] + 1),
                "{context}: each version builds on the one before: {found:?}"
            );
        }
    }
}

#[test]
fn a_failing_wal_leaves_exactly_the_acknowledged_increments() {
    for (i, op) in [FaultOp::Append, FaultOp::Flush].into_iter().enumerate() {
        let mem = MemFs::new();
        let fault = FaultFs::new(Arc::new(mem.clone()));
        let db = Db::open(
            test_options(Arc::new(fault.clone()) as Arc<dyn FileSystem>),
            families(),
        )
        .unwrap();
        let progress = Progress::default();
        // Every 7th WAL write fails, a few times, while four threads increment.
        let rule = FaultRule::error(op, ErrorKind::Other)
            .path_contains("/wal/")
            .skip(5 + i as u64)
            .times(6);
        fault.inject(rule).unwrap();
        run_threads(db.region(), Durability::SyncWal, 120, &progress);
        let acks = progress.acks.load(Ordering::SeqCst);
        let found = versions(db.region());
        assert!(
            acks > 0 && acks < (THREADS * 120) as i64,
            "{op:?}: {acks} acks"
        );
        assert_eq!(
            found.first().copied(),
            Some(acks),
            "{op:?}: the counter holds exactly the acknowledged increments"
        );
        assert!(
            found.windows(2).all(|w| w[0] == w[1] + 1),
            "{op:?}: {found:?}"
        );
        assert!(db.engine().wal_stats().write_errors >= 1, "{op:?}");
    }
}
