//! Model-based randomized test: random puts, all four delete kinds, gets and scans with
//! explicit timestamps and several versions, interleaved with flushes, compactions, clock
//! moves and restarts (clean and after a simulated `kill -9`). Every read is compared with
//! a naive reference model. A failing seed is printed; keep it as a named regression test.
//!
//! The same workload runs again with every family's row cache on (and gets often repeated,
//! so they hit it): the cache must never change an answer. And again with WAL groups: a
//! new group count (1 to 4) at every restart and small segments, so the region's edits
//! move between groups and leftover directories across crashes.
//!
//! And with snapshots taken and restored now and then: a restored region must read exactly
//! as the model did when its snapshot was taken, across flushes, compactions and crashes.
//!
//! `STRATA_MODEL_SEEDS=N STRATA_MODEL_OPS=M` run more (the defaults keep CI fast).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::harness::Harness;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs every seed's workload on a harness from `new`; returns the harnesses' engines'
/// row-cache hits and invalidations, summed.
fn run_seeds(new: fn(u64) -> Harness) -> (u64, u64) {
    let seeds = env_or("STRATA_MODEL_SEEDS", 24);
    let ops = env_or("STRATA_MODEL_OPS", 400);
    let base = env_or("STRATA_MODEL_BASE_SEED", 0xC0FFEE);
    let (mut hits, mut invalidations) = (0, 0);
    for seed in base..base + seeds {
        let mut h = new(seed);
        for _ in 0..ops {
            h.step();
        }
        let stats = h.engine.as_ref().unwrap().row_cache_stats();
        hits += stats.hits;
        invalidations += stats.invalidations;
    }
    (hits, invalidations)
}

#[test]
fn randomized_operations_match_the_model() {
    run_seeds(Harness::new);
}

#[test]
fn randomized_operations_match_the_model_with_the_row_cache_on() {
    let (hits, invalidations) = run_seeds(Harness::with_row_cache);
    // Else the run would not have tested the cache at all.
    assert!(
        hits > 0 && invalidations > 0,
        "hits {hits}, invalidations {invalidations}"
    );
    eprintln!("row cache: {hits} hits, {invalidations} invalidations");
}

#[test]
fn randomized_operations_match_the_model_with_wal_groups_changing_at_each_restart() {
    run_seeds(Harness::with_wal_groups);
}

#[test]
fn randomized_operations_match_the_model_with_snapshots_taken_and_restored() {
    run_seeds(Harness::with_snapshots);
    let restores = common::snapshots::RESTORES.load(std::sync::atomic::Ordering::Relaxed);
    assert!(restores > 0, "no snapshot was restored");
    eprintln!("snapshots: {restores} restores");
}
