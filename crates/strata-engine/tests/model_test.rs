//! Model-based randomized test: random puts, all four delete kinds, gets and scans with
//! explicit timestamps and several versions, interleaved with flushes, compactions, clock
//! moves and restarts (clean and after a simulated `kill -9`). Every read is compared with
//! a naive reference model. A failing seed is printed; keep it as a named regression test.
//!
//! `STRATA_MODEL_SEEDS=N STRATA_MODEL_OPS=M` run more (the defaults keep CI fast).

mod common;

use common::harness::Harness;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn randomized_operations_match_the_model() {
    let seeds = env_or("STRATA_MODEL_SEEDS", 24);
    let ops = env_or("STRATA_MODEL_OPS", 400);
    let base = env_or("STRATA_MODEL_BASE_SEED", 0xC0FFEE);
    for seed in base..base + seeds {
        let mut h = Harness::new(seed);
        for _ in 0..ops {
            h.step();
        }
    }
}
