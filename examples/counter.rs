//! A counter service: threads increment shared counters concurrently with `Table::increment`
//! (atomic per cell, as HBase's Increment), the totals are checked, and they survive closing
//! and reopening the database.
//!
//! Run: `cargo run -p strata-examples --example counter [DATA_DIR]`
#![allow(clippy::disallowed_methods)] // an example program: user code, which starts its own threads

use std::thread;

use strata_db::{Db, Family, Get, TableBuilder};
use strata_examples::{ensure, fresh_table, msg, run, DataDir};

const THREADS: usize = 4;
const INCREMENTS_PER_THREAD: usize = 250;
const COUNTERS: [&str; 5] = ["page:home", "page:docs", "page:blog", "api:get", "api:put"];
const TABLE: &str = "counters";

/// What thread `t`'s `i`-th increment adds, and to which counter.
fn increment(t: usize, i: usize) -> (&'static str, i64) {
    let counter = COUNTERS[(t * 7 + i) % COUNTERS.len()];
    (counter, (i % 3 + 1) as i64)
}

fn expected_totals() -> Vec<i64> {
    let mut totals = vec![0; COUNTERS.len()];
    for t in 0..THREADS {
        for i in 0..INCREMENTS_PER_THREAD {
            let (counter, amount) = increment(t, i);
            let index = COUNTERS.iter().position(|c| *c == counter).unwrap_or(0);
            totals[index] += amount;
        }
    }
    totals
}

fn check_totals(db: &Db, expected: &[i64], when: &str) -> Result<(), String> {
    let table = db.table(TABLE).map_err(msg("open table"))?;
    for (counter, want) in COUNTERS.iter().zip(expected) {
        let row = table
            .get(Get::new(*counter).column("c", "n"))
            .map_err(msg("get"))?;
        let got = row.and_then(|r| r.counter("c", "n"));
        ensure(got == Some(*want), || {
            format!("{when}: counter {counter} is {got:?}, expected {want}")
        })?;
    }
    Ok(())
}

fn main() {
    run("counter", || {
        let dir = DataDir::from_args()?;
        let db = Db::open(dir.path()).map_err(msg("open"))?;
        let table = fresh_table(
            &db,
            TableBuilder::new(TABLE).family(Family::new("c")),
            TABLE,
        )?;
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let table = table.clone();
                thread::spawn(move || -> Result<(), String> {
                    for i in 0..INCREMENTS_PER_THREAD {
                        let (counter, amount) = increment(t, i);
                        table
                            .increment(counter, "c", "n", amount)
                            .map_err(msg("increment"))?;
                    }
                    Ok(())
                })
            })
            .collect();
        for worker in workers {
            worker
                .join()
                .map_err(|_| "a worker panicked".to_string())??;
        }
        let expected = expected_totals();
        check_totals(&db, &expected, "after the threads")?;
        drop(table);
        db.close().map_err(msg("close"))?;

        let db = Db::open(dir.path()).map_err(msg("reopen"))?;
        check_totals(&db, &expected, "after reopening")?;
        let table = db.table(TABLE).map_err(msg("open table"))?;
        let next = table
            .increment(COUNTERS[0], "c", "n", 1)
            .map_err(msg("increment"))?;
        ensure(next == expected[0] + 1, || {
            format!(
                "incrementing after reopen gave {next}, expected {}",
                expected[0] + 1
            )
        })?;
        println!(
            "counter: {} increments by {THREADS} threads; totals {:?} survived a reopen",
            THREADS * INCREMENTS_PER_THREAD,
            expected
        );
        db.close().map_err(msg("close"))
    });
}
