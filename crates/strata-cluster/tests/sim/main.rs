//! A seeded simulation of whole clusters in one process (RFC 0013): 3–5 [`ClusterServer`]s
//! on the in-memory twins (etcd, the object store, the peers), a schedule of crashes,
//! pauses past the lease, etcd and store cuts, lost replies, moves, splits, merges and
//! master changes drawn from the seed, and clients writing, incrementing,
//! checking-and-mutating and reading meanwhile. Afterwards the cluster must settle with
//! each region owned once, and every read must agree with the model.
//!
//! `STRATA_SIM_SEED=N` runs one seed; `STRATA_SIM_SEEDS=K` (default 6) and
//! `STRATA_SIM_FIRST_SEED` choose a range; `scripts/sim-soak` runs thousands. A failing
//! seed prints itself, its schedule and what happened.
//!
//! [`ClusterServer`]: strata_cluster::ClusterServer

// The simulation runs on real threads and the system clock (see the RFC for why, and
// what that leaves out): its test threads may block and sleep.
#![allow(clippy::disallowed_methods, clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod model;
mod peers;
mod run;
mod schedule;
mod settle;
mod world;

/// Seeds that once failed, kept as regressions (each with what it found).
const REGRESSIONS: &[(u64, &str)] = &[];

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn seeds() -> Vec<u64> {
    if let Some(seed) = env_u64("STRATA_SIM_SEED") {
        return vec![seed];
    }
    let first = env_u64("STRATA_SIM_FIRST_SEED").unwrap_or(1);
    let count = env_u64("STRATA_SIM_SEEDS").unwrap_or(6);
    (first..first + count).collect()
}

#[test]
fn regression_seeds_keep_every_promise() {
    for (seed, found) in REGRESSIONS {
        if let Err(failure) = run::run_seed(*seed) {
            panic!("regression seed {seed} ({found}) failed:\n{failure}");
        }
    }
}

#[test]
fn simulated_clusters_keep_every_promise() {
    let mut failures = Vec::new();
    for seed in seeds() {
        match run::run_seed(seed) {
            Ok(report) => println!("seed {seed}: {report}"),
            Err(failure) => {
                println!("seed {seed} FAILED:\n{failure}");
                failures.push(seed);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "failing seeds {failures:?}; replay one with \
         STRATA_SIM_SEED=N cargo test -p strata-cluster --test sim -- --nocapture"
    );
}
