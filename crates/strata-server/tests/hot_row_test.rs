//! One hot row: read-modify-writes of the same cell share WAL group commits (the row lock is
//! released before the wait for durability), each still builds on the one before, and a
//! write at server time is never hidden behind increments stamped ahead of the clock.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use strata_engine::{Cell, Durability, FamilyOptions, Get, LATEST_TIMESTAMP};
use strata_runtime::clock::ManualClock;
use strata_server::{Service, ServiceOptions, TableName, WriteDurability};

fn open(
    dir: &std::path::Path,
    clock: Option<Arc<ManualClock>>,
    durability: WriteDurability,
) -> (Arc<Service>, TableName) {
    let mut options = ServiceOptions::new(dir);
    if let Some(clock) = clock {
        options.engine.clock = clock;
    }
    let svc = Service::open(options).unwrap();
    let table = TableName::parse("counters").unwrap();
    let mut family = FamilyOptions::new("cf");
    family.max_versions = 3;
    svc.admin()
        .create_table_with_durability(&table, vec![family], vec![], durability)
        .unwrap();
    (svc, table)
}

#[test]
fn increments_of_one_cell_share_group_commits_and_never_lose_a_step() {
    const THREADS: usize = 8;
    const EACH: i64 = 150;
    let dir = tempfile::tempdir().unwrap();
    // FSYNC_WAL: each group commit takes long enough (an fsync) for the other threads to
    // queue behind it, however the scheduler runs them; a SYNC_WAL write can finish before
    // the next thread gets the CPU, so even shared batches would look serial under load.
    let (svc, table) = open(dir.path(), None, WriteDurability::FsyncWal);
    let batches_before = svc.engine().wal_stats().batches;
    let seen: Vec<Vec<i64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    (0..EACH)
                        .map(|_| {
                            svc.rows()
                                .increment(&table, b"hot", b"cf", b"n", 1)
                                .unwrap()
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let total = THREADS as i64 * EACH;
    let mut all: Vec<i64> = seen.iter().flatten().copied().collect();
    all.sort_unstable();
    assert_eq!(
        all,
        (1..=total).collect::<Vec<_>>(),
        "each value returned once"
    );
    for values in &seen {
        assert!(
            values.windows(2).all(|w| w[0] < w[1]),
            "a client's values grow"
        );
    }
    let batches = svc.engine().wal_stats().batches - batches_before;
    // Holding the row lock across the WAL wait made this exactly one batch per increment.
    assert!(
        batches < total as u64,
        "{total} increments of one cell took {batches} group commits"
    );
    assert_eq!(
        svc.rows()
            .increment(&table, b"hot", b"cf", b"n", 0)
            .unwrap(),
        total
    );
}

/// happybase's own `test_atomic_counters`, in one millisecond: increments stamp the cell
/// ahead of the clock, and the put that resets it must still be the newest version.
#[test]
fn a_put_at_server_time_after_quick_increments_is_not_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (svc, table) = open(
        dir.path(),
        Some(Arc::clone(&clock)),
        WriteDurability::UseDefault,
    );
    let inc = |by| {
        svc.rows()
            .increment(&table, b"row", b"cf", b"c", by)
            .unwrap()
    };
    assert_eq!(inc(0), 0);
    assert_eq!(inc(10), 10);
    assert_eq!(inc(0), 10);
    let reset = Cell::put(
        "row",
        "cf",
        "c",
        LATEST_TIMESTAMP,
        0i64.to_be_bytes().to_vec(),
    );
    svc.rows()
        .mutate(&table, vec![reset], Durability::SyncWal)
        .unwrap();
    assert_eq!(inc(1), 1, "the reset is not hidden behind the increments");
    let versions = svc
        .rows()
        .get(&table, &Get::new("row").versions(3))
        .unwrap()
        .unwrap()
        .cells;
    assert!(
        versions[0].timestamp > 1_000_000,
        "stamped ahead of the frozen clock"
    );
    assert!(versions
        .windows(2)
        .all(|w| w[0].timestamp >= w[1].timestamp));
    // Other rows of the region get the region's server time too: never backwards.
    let other = Cell::put("other", "cf", "c", LATEST_TIMESTAMP, "x");
    svc.rows()
        .mutate(&table, vec![other], Durability::SyncWal)
        .unwrap();
    let other_ts = svc
        .rows()
        .get(&table, &Get::new("other"))
        .unwrap()
        .unwrap()
        .cells[0]
        .timestamp;
    assert!(other_ts >= versions[0].timestamp);
}

/// Found by `tests/differential` (seed 2): an increment of a cell whose newest version a
/// client wrote with a far-future timestamp goes one past it, as in HBase, but the region's
/// other server-time writes stay at the clock instead of following it into the future.
#[test]
fn regression_an_increment_above_an_explicit_future_version_does_not_drag_the_region() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let (svc, table) = open(
        dir.path(),
        Some(Arc::clone(&clock)),
        WriteDurability::UseDefault,
    );
    let future = 4_000_000_000_007;
    let explicit = Cell::put("row", "cf", "c", future, 5i64.to_be_bytes().to_vec());
    svc.rows()
        .mutate(&table, vec![explicit], Durability::SyncWal)
        .unwrap();
    assert_eq!(
        svc.rows()
            .increment(&table, b"row", b"cf", b"c", 1)
            .unwrap(),
        6
    );
    let newest = svc
        .rows()
        .get(&table, &Get::new("row"))
        .unwrap()
        .unwrap()
        .cells[0]
        .timestamp;
    assert_eq!(newest, future + 1, "HBase: max(now, previous + 1)");
    let other = Cell::put("other", "cf", "c", LATEST_TIMESTAMP, "x");
    svc.rows()
        .mutate(&table, vec![other], Durability::SyncWal)
        .unwrap();
    let other_ts = svc
        .rows()
        .get(&table, &Get::new("other"))
        .unwrap()
        .unwrap()
        .cells[0]
        .timestamp;
    assert_eq!(
        other_ts, 1_000_000,
        "a put elsewhere in the region gets the clock's time"
    );
}
