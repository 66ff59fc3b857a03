//! Writers racing splits and merges: every acknowledged write is readable afterwards (writes
//! that reach a sealed region are retried on its successors), and none is applied twice.
//! The test also prints the longest single write while splits ran, as a first figure for
//! the split pause (measured properly by a benchmark later).
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use strata_engine::{Cell, Durability, FamilyOptions, Get, Scan};
use strata_server::{Service, ServiceOptions, SplitAt, SplitPolicy, TableName};

fn t() -> TableName {
    TableName::parse("race").unwrap()
}

#[test]
fn writes_racing_splits_and_merges_are_never_lost() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.split = SplitPolicy {
        enabled: false,
        ..SplitPolicy::default()
    };
    let svc = Service::open(options).unwrap();
    svc.admin()
        .create_table(&t(), vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let (svc, stop) = (Arc::clone(&svc), Arc::clone(&stop));
            std::thread::spawn(move || {
                let (mut acked, mut slowest) = (Vec::new(), Duration::ZERO);
                let mut i = 0u32;
                while !stop.load(Ordering::Acquire) {
                    let row = format!("w{w}-{:05}", i * 7919 % 100_000);
                    let started = Instant::now();
                    let cell = Cell::put(row.clone(), "cf", "q", 1, format!("{i}"));
                    svc.rows()
                        .mutate(&t(), vec![cell], Durability::SyncWal)
                        .unwrap();
                    slowest = slowest.max(started.elapsed());
                    acked.push(row);
                    i += 1;
                }
                (acked, slowest)
            })
        })
        .collect();
    // Split the table three times while the writers run, then merge two neighbours back.
    for key in ["w1", "w0-5", "w2"] {
        std::thread::sleep(Duration::from_millis(40));
        svc.admin()
            .split_region(&t(), SplitAt::Key(Bytes::from_static(key.as_bytes())))
            .unwrap();
    }
    std::thread::sleep(Duration::from_millis(40));
    let regions = svc.admin().table_regions(&t()).unwrap();
    assert_eq!(regions.len(), 4);
    svc.admin()
        .merge_regions(&t(), regions[0].id, regions[1].id)
        .unwrap();
    std::thread::sleep(Duration::from_millis(40));
    stop.store(true, Ordering::Release);
    let mut acked = Vec::new();
    let mut slowest = Duration::ZERO;
    for w in writers {
        let (rows, s) = w.join().unwrap();
        acked.extend(rows);
        slowest = slowest.max(s);
    }
    eprintln!(
        "{} acknowledged writes; the slowest took {slowest:?} while regions split and merged",
        acked.len()
    );
    assert!(acked.len() > 100, "the writers ran during the splits");
    for row in &acked {
        assert!(
            svc.rows()
                .get(&t(), &Get::new(row.clone()))
                .unwrap()
                .is_some(),
            "acknowledged write to {row} lost"
        );
    }
    let id = svc.scanners().open_scanner(&t(), Scan::new()).unwrap();
    let mut seen = Vec::new();
    loop {
        let batch = svc.scanners().scanner_next(id, 1000).unwrap();
        if batch.is_empty() {
            break;
        }
        seen.extend(batch.into_iter().map(|r| r.row));
    }
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        seen, sorted,
        "a scan returns each row once, in order, across the new regions"
    );
    assert_eq!(svc.admin().table_regions(&t()).unwrap().len(), 3);
}
