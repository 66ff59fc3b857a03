//! Runs one phase (one workload) against an open target on `--threads` worker threads.

use crate::config::{BenchArgs, Workload};
use crate::error::BenchResult;
use crate::keys::{format_key, KeyChooser, ValueSource};
use crate::stats::{Latencies, PhaseResult};
use crate::target::KvTarget;
use crate::workers::run_workers;

/// What one worker thread measured.
struct ThreadOutcome {
    latencies: Latencies,
    found: u64,
    rows: u64,
}

/// The slice of a phase's operations given to one thread.
#[derive(Debug, Clone, Copy)]
struct Share {
    /// First key number, for fillseq.
    first: u64,
    count: u64,
    seed: u64,
}

/// Mixes `salt` into `seed` (splitmix64 finaliser), so that phases and threads get
/// unrelated random sequences from one base seed.
pub fn derive_seed(seed: u64, salt: u64) -> u64 {
    let mut z = seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Splits `total` operations between `threads` threads as evenly as possible.
fn shares(total: u64, threads: usize, phase_seed: u64) -> Vec<Share> {
    let n = threads as u64;
    let mut first = 0;
    (0..n)
        .map(|t| {
            let count = total / n + u64::from(t < total % n);
            let share = Share {
                first,
                count,
                seed: derive_seed(phase_seed, t + 1),
            };
            first += count;
            share
        })
        .collect()
}

/// Runs `workload` and returns its measurements. `phase_seed` must differ between phases
/// so that a read phase does not replay the keys of the fill before it.
pub fn run_phase(
    target: &dyn KvTarget,
    target_name: &str,
    args: &BenchArgs,
    workload: Workload,
    phase_seed: u64,
) -> BenchResult<PhaseResult> {
    let total = args.ops_for(workload);
    let shares = shares(total, args.threads, phase_seed);
    let (outcomes, secs) = run_workers(shares.len(), |index, line| {
        line.ready()?;
        run_share(target, args, workload, shares[index])
    })?;
    let mut latencies = Latencies::new()?;
    let (mut found, mut rows) = (0, 0);
    for outcome in outcomes {
        let outcome = outcome?;
        latencies.merge(&outcome.latencies)?;
        found += outcome.found;
        rows += outcome.rows;
    }
    let reads = matches!(
        workload,
        Workload::Readrandom | Workload::ReadrandomUncached
    );
    Ok(PhaseResult {
        target: target_name.to_string(),
        workload: workload.as_str().to_string(),
        run: 0,
        ops: total,
        secs,
        ops_per_sec: if secs > 0.0 { total as f64 / secs } else { 0.0 },
        latency: latencies.summary(),
        found: reads.then_some(found),
        rows: (workload == Workload::Seekrandom).then_some(rows),
        flush_secs: None,
    })
}

/// One worker thread's loop.
fn run_share(
    target: &dyn KvTarget,
    args: &BenchArgs,
    workload: Workload,
    share: Share,
) -> BenchResult<ThreadOutcome> {
    let mut out = ThreadOutcome {
        latencies: Latencies::new()?,
        found: 0,
        rows: 0,
    };
    let mut chooser = KeyChooser::new(share.seed, args.num);
    // A benchmark measures real time: the tool is its own composition root.
    #[allow(clippy::disallowed_methods)]
    let clock = strata_runtime::clock::system();
    match workload {
        Workload::Fillseq | Workload::Fillrandom | Workload::Overwrite => {
            // The value pool is shared by every phase and system; only the keys vary.
            let mut values = ValueSource::new(derive_seed(args.seed, 0xFA11), args.value_size);
            for i in 0..share.count {
                let n = if workload == Workload::Fillseq {
                    share.first + i
                } else {
                    chooser.next_number()
                };
                let key = format_key(n);
                let value = values.next_value();
                let start = clock.now();
                target.put(&key, value)?;
                out.latencies.record(clock.elapsed(start));
            }
        }
        Workload::Readrandom | Workload::ReadrandomUncached => {
            for _ in 0..share.count {
                let key = format_key(chooser.next_number());
                let start = clock.now();
                let hit = target.get(&key)?;
                out.latencies.record(clock.elapsed(start));
                out.found += u64::from(hit.is_some());
            }
        }
        Workload::Seekrandom => {
            for _ in 0..share.count {
                let key = format_key(chooser.next_number());
                let start = clock.now();
                let rows = target.scan(&key, args.seek_nexts)?;
                out.latencies.record(clock.elapsed(start));
                out.rows += rows as u64;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_every_operation_once() {
        let s = shares(10, 3, 1);
        assert_eq!(s.iter().map(|s| s.count).sum::<u64>(), 10);
        assert_eq!(s[0].first, 0);
        assert_eq!(s[1].first, s[0].count);
        assert_eq!(s[2].first, s[0].count + s[1].count);
        assert_ne!(s[0].seed, s[1].seed);
    }

    #[test]
    fn derived_seeds_differ_by_salt() {
        assert_ne!(derive_seed(42, 1), derive_seed(42, 2));
        assert_eq!(derive_seed(42, 1), derive_seed(42, 1));
    }
}
