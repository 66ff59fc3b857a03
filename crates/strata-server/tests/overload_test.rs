//! Overload: writers push far faster than flush and (throttled) compaction can absorb. The
//! service must push back (writers wait, then fail with a clear "too busy" error), keep its
//! memstores under the configured limit, keep answering reads with bounded latency, and
//! accept writes again once the load stops.
//!
//! Run with `--nocapture` to print the memory samples (docs/reliability-fuzz.md quotes them).
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use strata_engine::{Cell, Durability, Error as EngineError, FamilyOptions, Get};
use strata_server::{Service, ServiceError, ServiceOptions, TableName};

const MEMSTORE_LIMIT: u64 = 4 << 20;
const WRITERS: usize = 4;
const CELLS_PER_BATCH: usize = 16;
const VALUE_LEN: usize = 4096;
/// A batch is charged after it is inserted, so each writer may overshoot by one batch (plus
/// the memstore's per-cell overhead, well under the value bytes again).
const OVERSHOOT: u64 = (WRITERS * CELLS_PER_BATCH * VALUE_LEN * 2) as u64;
const LOAD: Duration = Duration::from_secs(4);
const BOUNDED_READ_LATENCY: Duration = Duration::from_secs(1);

fn open(dir: &std::path::Path) -> Arc<Service> {
    let mut options = ServiceOptions::new(dir);
    options.engine.memstore_limit = MEMSTORE_LIMIT;
    options.engine.memstore_flush_size = 512 << 10;
    options.engine.write_wait_timeout = Duration::from_millis(100);
    options.engine.blocking_store_files = 4;
    // Compaction far slower than the writers, so store files pile up and writers must wait.
    options.engine.compaction_bytes_per_sec = Some(1 << 20);
    // The subject is backpressure: a split of the loaded region (slow here, its seal flushes
    // behind the throttled compaction) would only make the writers wait for the new regions.
    options.split.enabled = false;
    Service::open(options).unwrap()
}

/// This process's resident set size, from /proc (None elsewhere).
// Reading /proc is not database file I/O; the engine's FileSystem does not cover it.
#[allow(clippy::disallowed_methods)]
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[derive(Default)]
struct Counts {
    written: AtomicU64,
    rejected: AtomicU64,
}

fn writer(svc: Arc<Service>, table: TableName, id: usize, stop: Arc<AtomicBool>, n: Arc<Counts>) {
    let value = vec![b'v'; VALUE_LEN];
    let mut batch_no = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let cells = (0..CELLS_PER_BATCH)
            .map(|i| {
                let row = format!("w{id}-{batch_no:08}-{i:02}");
                Cell::put(row, "cf", "q", 1, value.clone())
            })
            .collect();
        batch_no += 1;
        match svc.rows().mutate(&table, cells, Durability::SkipWal) {
            Ok(()) => n.written.fetch_add(1, Ordering::Relaxed),
            Err(e @ ServiceError::Engine(EngineError::TooBusy(_))) => {
                // What a client sees: the kind, then why (memory limit or store files).
                let text = e.to_string();
                assert!(text.starts_with("too busy: "), "unclear rejection: {text}");
                n.rejected.fetch_add(1, Ordering::Relaxed)
            }
            Err(other) => panic!("overload must be TooBusy, got: {other}"),
        };
    }
}

#[test]
fn writes_faster_than_flush_and_compaction_are_rejected_not_buffered() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let table = TableName::parse("load").unwrap();
    svc.admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let probe = vec![Cell::put("probe", "cf", "q", 1, "here")];
    svc.rows()
        .mutate(&table, probe, Durability::SyncWal)
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let writers: Vec<_> = (0..WRITERS)
        .map(|id| {
            let (svc, table, stop, n) = (svc.clone(), table.clone(), stop.clone(), counts.clone());
            thread::spawn(move || writer(svc, table, id, stop, n))
        })
        .collect();

    let started = Instant::now();
    let mut samples = Vec::new();
    let mut worst_read = Duration::ZERO;
    let mut peak_memstore = 0u64;
    while started.elapsed() < LOAD {
        let read_started = Instant::now();
        let row = svc.rows().get(&table, &Get::new("probe")).unwrap();
        worst_read = worst_read.max(read_started.elapsed());
        assert!(row.is_some(), "the probe row vanished under load");
        let memstore = svc.engine().memstore_bytes();
        peak_memstore = peak_memstore.max(memstore);
        samples.push((started.elapsed(), memstore, rss_bytes()));
        thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }

    println!("t_ms memstore_KiB rss_MiB");
    for (t, memstore, rss) in samples.iter().step_by(8) {
        let rss = rss.map_or("-".to_string(), |r| (r >> 20).to_string());
        println!("{} {} {rss}", t.as_millis(), memstore >> 10);
    }
    let written = counts.written.load(Ordering::Relaxed);
    let rejected = counts.rejected.load(Ordering::Relaxed);
    println!(
        "batches written {written}, rejected {rejected}, peak memstore {} KiB, worst read {:?}",
        peak_memstore >> 10,
        worst_read
    );
    assert!(
        rejected > 0,
        "the load never reached the limit: nothing was pushed back"
    );
    assert!(written > 0, "nothing got through at all");
    assert!(
        peak_memstore <= MEMSTORE_LIMIT + OVERSHOOT,
        "memstores reached {peak_memstore} bytes, limit {MEMSTORE_LIMIT}"
    );
    assert!(
        worst_read < BOUNDED_READ_LATENCY,
        "a read took {worst_read:?}"
    );

    // Once the load stops, flush and compaction catch up and a write gets through again.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let after = vec![Cell::put("after", "cf", "q", 1, "ok")];
        match svc.rows().mutate(&table, after, Durability::SyncWal) {
            Ok(()) => break,
            Err(ServiceError::Engine(EngineError::TooBusy(_))) if Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("the service did not recover: {e}"),
        }
    }
    assert!(svc
        .rows()
        .get(&table, &Get::new("after"))
        .unwrap()
        .is_some());
    svc.close().unwrap();
}
