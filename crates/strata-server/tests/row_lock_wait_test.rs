//! A writer waiting for room (here: its region holds the blocking multiple of the flush
//! size, and its flush does not come) holds no row lock meanwhile, so writers of other
//! tables go on. Found by `bench/tier-lanes.sh`: writers of a table on a slow HDD, waiting
//! for their region's flush, held most of the 256 lock stripes with their batches, and
//! every write of an SSD table stalled with them.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use strata_engine::{Cell, Durability, Error as EngineError, FamilyOptions};
use strata_server::{Service, ServiceError, ServiceOptions, TableName};

const FLUSH_SIZE: u64 = 64 << 10;
const WAIT: Duration = Duration::from_secs(3);

fn open(dir: &std::path::Path) -> Arc<Service> {
    let mut options = ServiceOptions::new(dir);
    // No flush ever comes: a writer over its region's memstore block waits the whole WAIT.
    options.engine.background_work = false;
    options.engine.memstore_flush_size = FLUSH_SIZE;
    options.engine.write_wait_timeout = WAIT;
    options.split.enabled = false;
    Service::open(options).unwrap()
}

fn table(svc: &Service, name: &str) -> TableName {
    let table = TableName::parse(name).unwrap();
    svc.admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    table
}

#[test]
fn a_writer_waiting_for_its_regions_flush_does_not_hold_up_another_tables_writers() {
    let dir = tempfile::tempdir().unwrap();
    let svc = open(dir.path());
    let (slow, fast) = (table(&svc, "slow"), table(&svc, "fast"));
    // Past the block (4 x the flush size) with a few large cells.
    for i in 0..4 {
        let cell = Cell::put(format!("big{i}"), "cf", "q", 1, vec![b'x'; 64 << 10]);
        svc.rows()
            .mutate(&slow, vec![cell], Durability::SyncWal)
            .unwrap();
    }
    // A batch of 3,000 rows covers every lock stripe (but for about one in a thousand).
    let batch: Vec<Cell> = (0..3000)
        .map(|i| Cell::put(format!("row{i:05}"), "cf", "q", 1, "v"))
        .collect();
    let waiting = {
        let (svc, slow) = (Arc::clone(&svc), slow.clone());
        thread::spawn(move || svc.rows().mutate(&slow, batch, Durability::SyncWal))
    };
    thread::sleep(Duration::from_millis(200));
    assert!(!waiting.is_finished(), "the batch did not wait");

    let started = Instant::now();
    for i in 0..20 {
        let cell = Cell::put(format!("row{:05}", i * 150), "cf", "q", 1, "v");
        svc.rows()
            .mutate(&fast, vec![cell], Durability::SyncWal)
            .unwrap();
    }
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "writes to another table waited {took:?} behind the waiting batch"
    );
    let err = waiting.join().unwrap().unwrap_err();
    assert!(
        matches!(err, ServiceError::Engine(EngineError::TooBusy(_))),
        "{err}"
    );
}
