//! A seeded simulation of whole clusters in one process (RFC 0013): 3–5 [`ClusterServer`]s
//! on the in-memory twins (etcd, the object store, the peers), a schedule of crashes,
//! pauses past the lease, etcd and store cuts, lost replies, moves, splits, merges and
//! master changes drawn from the seed, and clients writing, incrementing,
//! checking-and-mutating and reading meanwhile. Afterwards the cluster must settle with
//! each region owned once, and every read must agree with the model.
//!
//! `STRATA_SIM_SEED=N` runs one seed; `STRATA_SIM_SEEDS=K` and `STRATA_SIM_FIRST_SEED`
//! choose a range; `STRATA_SIM_SHAPE=sweep|long` the size of each run ([`Shape`]) and
//! `STRATA_SIM_PARALLEL` how many run at once. The test command runs 200 short seeds, four
//! at a time; `scripts/sim-soak` runs thousands. A failing seed prints itself, its schedule
//! and what happened.
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
mod takeover;
mod world;

use std::sync::atomic::{AtomicUsize, Ordering};

use run::Shape;
use schedule::Profile;

/// Seeds that once failed and pass since their fix, each with what it found. Run in every
/// test command, in the profile that found them.
const REGRESSIONS: &[(u64, Profile, &str)] = &[
    (
        14,
        Profile::NoLoss,
        "a move returned once its target claimed the region, before it opened it; the merge \
         that followed released nothing there, and writes the target took were lost",
    ),
    (
        16,
        Profile::NoLoss,
        "two moves in a row: the second found nothing open to release on the first target, \
         and two servers believed they owned the region",
    ),
    (
        123,
        Profile::Full,
        "a move of a dead server's region assigned it before its WAL stream was sealed, and \
         a release asked while the owner was still opening the region was answered as done: \
         acknowledged writes lost",
    ),
];

/// Seeds of the full profile that fail today, each with what it shows (RFC 0013, "Open
/// findings"). Thread timing decides whether a run hits the race, so each fails in some
/// runs, not all. Run with `cargo test -p strata-cluster --test sim -- --ignored`; a
/// fixed one moves to [`REGRESSIONS`].
const OPEN_FINDINGS: &[(u64, Profile, &str)] = &[
    (
        105,
        Profile::Full,
        "a strong read misses acknowledged puts after moves and kills",
    ),
    (
        110,
        Profile::Full,
        "a scan misses acknowledged puts after a pause, a split and a merge",
    ),
    (
        121,
        Profile::Full,
        "a check-and-mutate is refused with no unknown outcome before it",
    ),
    (
        124,
        Profile::Full,
        "two servers believe they own a moved region once settled",
    ),
];

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn seeds(default_count: u64) -> Vec<u64> {
    if let Some(seed) = env_u64("STRATA_SIM_SEED") {
        return vec![seed];
    }
    let first = env_u64("STRATA_SIM_FIRST_SEED").unwrap_or(1);
    let count = env_u64("STRATA_SIM_SEEDS").unwrap_or(default_count);
    (first..first + count).collect()
}

/// The run size `STRATA_SIM_SHAPE` asks for, or `default`.
fn shape(default: Shape) -> Shape {
    match std::env::var("STRATA_SIM_SHAPE").as_deref() {
        Ok("long") => Shape::LONG,
        Ok("sweep") => Shape::SWEEP,
        _ => default,
    }
}

/// How many seeds run at once: `STRATA_SIM_PARALLEL`, or `default`. One seed alone when
/// replaying one.
fn parallel(default: u64) -> usize {
    if env_u64("STRATA_SIM_SEED").is_some() {
        return 1;
    }
    env_u64("STRATA_SIM_PARALLEL").unwrap_or(default).max(1) as usize
}

/// Runs `seeds` in `profile`, `parallel` at a time (each seed's world is its own); the
/// failing ones, each printed whole, in seed order.
fn run_all(seeds: &[u64], profile: Profile, shape: Shape, parallel: usize) -> Vec<u64> {
    let next = AtomicUsize::new(0);
    let outcomes = parking_lot::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..parallel.min(seeds.len()) {
            scope.spawn(|| {
                while let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let outcome = run::run_seed(seed, profile, shape);
                    outcomes.lock().push((seed, outcome));
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner();
    outcomes.sort_by_key(|(seed, _)| *seed);
    let mut failures = Vec::new();
    for (seed, outcome) in outcomes {
        match outcome {
            Ok(report) => println!("seed {seed} ({profile:?}): {report}"),
            Err(failure) => {
                println!("seed {seed} ({profile:?}) FAILED:\n{failure}");
                failures.push(seed);
            }
        }
    }
    failures
}

#[test]
fn regression_seeds_keep_every_promise() {
    for (seed, profile, found) in REGRESSIONS {
        assert!(
            run_all(&[*seed], *profile, Shape::LONG, 1).is_empty(),
            "regression seed {seed} ({found}) failed"
        );
    }
}

/// The test command's run: 200 short seeds in which no server is lost (see
/// [`Profile::NoLoss`]).
#[test]
fn simulated_clusters_keep_every_promise() {
    let failures = run_all(
        &seeds(200),
        Profile::NoLoss,
        shape(Shape::SWEEP),
        parallel(4),
    );
    assert!(
        failures.is_empty(),
        "failing seeds {failures:?}; replay one with STRATA_SIM_SEED=N cargo test -p \
         strata-cluster --test sim simulated_clusters -- --nocapture"
    );
}

/// Every fault; `scripts/sim-soak` runs it over thousands of seeds.
#[test]
#[ignore = "the full profile finds open bugs (OPEN_FINDINGS); run by scripts/sim-soak"]
fn with_crashes_and_pauses_clusters_keep_every_promise() {
    let failures = run_all(&seeds(6), Profile::Full, shape(Shape::LONG), parallel(1));
    assert!(
        failures.is_empty(),
        "failing seeds {failures:?}; replay one with STRATA_SIM_SEED=N cargo test -p \
         strata-cluster --test sim with_crashes -- --ignored --nocapture"
    );
}

/// The open findings, each run once: shows which still fail.
#[test]
#[ignore = "these fail today (OPEN_FINDINGS)"]
fn open_findings() {
    let mut failing = Vec::new();
    for (seed, profile, what) in OPEN_FINDINGS {
        let fails = !run_all(&[*seed], *profile, Shape::LONG, 1).is_empty();
        let state = if fails { "fails" } else { "passed this time" };
        println!("open finding {seed} ({profile:?}): {what}: {state}");
        if fails {
            failing.push(*seed);
        }
    }
    assert!(failing.is_empty(), "still failing: {failing:?}");
}
