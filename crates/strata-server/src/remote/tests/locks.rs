//! Row locks are taken only for rows served here, and never held while a peer applies its
//! share of a write.
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time

use std::time::{Duration, Instant};

use super::*;

#[test]
fn a_write_forwarded_to_a_slow_owner_holds_no_row_lock_here() {
    let c = cluster();
    // B is slow to apply what A forwards: the test holds the peer's gate.
    let gate = c.to_b.mutations.write();
    // 3,000 rows of region 2 (rows from "r300" on): their lock stripes would be nearly all
    // of A's 256.
    let batch: Vec<Cell> = (0..3000)
        .map(|i| Cell::put(format!("r{:06}", 300_000 + i), "cf", "q", 1, "v"))
        .collect();
    let forwarded = {
        let a = Arc::clone(&c.a);
        std::thread::spawn(move || a.rows().mutate(&table(), batch, WriteDurability::SyncWal))
    };
    std::thread::sleep(Duration::from_millis(100));
    assert!(!forwarded.is_finished(), "the forwarded write did not wait");
    // Writes of rows A serves itself (region 1, before "r300") go on meanwhile.
    let local = {
        let a = Arc::clone(&c.a);
        std::thread::spawn(move || {
            let started = Instant::now();
            for i in 0..20 {
                let cell = Cell::put(format!("a{:04}", i * 97), "cf", "q", 1, "v");
                a.rows()
                    .mutate(&table(), vec![cell], WriteDurability::SyncWal)?;
            }
            Ok::<_, ServiceError>(started.elapsed())
        })
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while !local.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let local_done = local.is_finished();
    drop(gate);
    assert!(local_done, "local writes waited behind the forwarded one");
    let took = local.join().unwrap().unwrap();
    assert!(took < Duration::from_secs(1), "local writes took {took:?}");
    forwarded.join().unwrap().unwrap();
    let row = c.b.rows().get(&table(), &Get::new("r301234")).unwrap();
    assert!(row.is_some(), "the forwarded batch reached its owner");
}
