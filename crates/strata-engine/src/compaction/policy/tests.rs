use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;

fn files(sizes: &[u64]) -> Vec<CandidateFile> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| CandidateFile {
            file_number: 100 + i as u64,
            size,
        })
        .collect()
}

/// Ratio applies to every file (nothing is small enough to be exempt).
fn strict(ratio: f64) -> CompactionConfig {
    CompactionConfig {
        ratio,
        min_compact_size: 0,
        ..CompactionConfig::default()
    }
}

fn pick(sizes: &[u64], cfg: &CompactionConfig, stuck: bool) -> Option<(usize, usize, bool)> {
    select_minor(&files(sizes), cfg, stuck).map(|s| (s.start, s.end, s.forced))
}

#[test]
fn too_few_files_or_impossible_bounds_select_nothing() {
    assert_eq!(pick(&[1, 1], &strict(1.2), true), None);
    let cfg = CompactionConfig {
        min_files: 4,
        max_files: 3,
        ..strict(1.2)
    };
    assert_eq!(pick(&[1; 8], &cfg, true), None);
}

#[test]
fn ratio_excludes_files_larger_than_the_rest() {
    // With ratio 1.0 only [23, 12, 12] qualifies: 23 <= 24, while 50 > 23 + 12.
    let sizes = [100, 50, 23, 12, 12];
    assert_eq!(pick(&sizes, &strict(1.0), false), Some((2, 5, false)));
    let s = select_minor(&files(&sizes), &strict(1.0), false).unwrap();
    assert_eq!(
        (s.total_size, s.file_numbers(&files(&sizes))),
        (47, vec![102, 103, 104])
    );
    // At 1.2 every file is within ratio, so all five are taken.
    assert_eq!(pick(&sizes, &strict(1.2), false), Some((0, 5, false)));
}

#[test]
fn more_files_beat_fewer_bytes() {
    let sizes = [10, 10, 10, 10, 1000, 1, 1, 1];
    assert_eq!(pick(&sizes, &strict(1.2), false), Some((0, 4, false)));
}

#[test]
fn equal_counts_prefer_the_smaller_total() {
    let cfg = CompactionConfig {
        max_files: 3,
        ..strict(1.2)
    };
    assert_eq!(
        pick(&[40, 40, 40, 500, 5, 5, 5], &cfg, false),
        Some((4, 7, false))
    );
    // Equal counts and totals keep the older run.
    assert_eq!(
        pick(&[5, 5, 5, 500, 5, 5, 5], &cfg, false),
        Some((0, 3, false))
    );
}

#[test]
fn max_files_caps_the_run() {
    assert_eq!(pick(&[7; 12], &strict(1.2), false), Some((0, 10, false)));
}

#[test]
fn small_files_are_exempt_from_the_ratio() {
    assert_eq!(pick(&[100, 5, 5], &strict(1.2), false), None);
    let cfg = CompactionConfig {
        min_compact_size: 101,
        ..strict(1.2)
    };
    assert_eq!(pick(&[100, 5, 5], &cfg, false), Some((0, 3, false)));
    // Exactly min_compact_size is not "smaller than", so the ratio applies again.
    let cfg = CompactionConfig {
        min_compact_size: 100,
        ..strict(1.2)
    };
    assert_eq!(pick(&[100, 5, 5], &cfg, false), None);
}

#[test]
fn oversized_files_are_never_picked() {
    let cfg = CompactionConfig {
        max_compact_size: 500,
        ..strict(1.2)
    };
    let sizes = [10, 10, 10, 1000, 10, 10];
    assert_eq!(pick(&sizes, &cfg, false), Some((0, 3, false)));
    assert_eq!(pick(&[10, 1000, 10, 10], &cfg, true), None);
}

#[test]
fn blocked_store_falls_back_to_the_smallest_min_files_run() {
    let sizes = [100, 10, 1000, 1];
    assert_eq!(pick(&sizes, &strict(1.2), false), None);
    let s = select_minor(&files(&sizes), &strict(1.2), true).unwrap();
    assert_eq!((s.range(), s.total_size, s.forced), (1..4, 1011, true));
    // A valid run wins over the fallback even when blocked.
    assert_eq!(
        pick(&[1000, 9, 9, 9], &strict(1.2), true),
        Some((1, 4, false))
    );
}

#[test]
fn off_peak_ratio_admits_more_skewed_runs() {
    let cfg = strict(1.2);
    assert_eq!(pick(&[100, 30, 10], &cfg, false), None);
    assert_eq!(
        pick(&[100, 30, 10], &cfg.off_peak(), false),
        Some((0, 3, false))
    );
}

/// Straightforward re-statement of the rules, written without sharing code with the policy.
fn model(sizes: &[u64], cfg: &CompactionConfig, stuck: bool) -> Option<(usize, usize, bool)> {
    let min = cfg.min_files.max(2);
    let mut valid = Vec::new();
    let mut eligible_min_runs = Vec::new();
    for start in 0..sizes.len() {
        for end in start + min..=sizes.len() {
            let run = &sizes[start..end];
            if run.len() > cfg.max_files || run.iter().any(|&s| s > cfg.max_compact_size) {
                continue;
            }
            let total: u64 = run.iter().sum();
            if run.len() == min {
                eligible_min_runs.push((total, start, end));
            }
            let ok = run
                .iter()
                .all(|&s| s < cfg.min_compact_size || (s as f64) <= cfg.ratio * (total - s) as f64);
            if ok {
                valid.push((std::cmp::Reverse(run.len()), total, start, end));
            }
        }
    }
    if let Some(&(_, _, start, end)) = valid.iter().min() {
        return Some((start, end, false));
    }
    if !stuck {
        return None;
    }
    eligible_min_runs
        .iter()
        .min()
        .map(|&(_, s, e)| (s, e, true))
}

fn random_case(rng: &mut SmallRng) -> (Vec<u64>, CompactionConfig, bool) {
    let n = rng.random_range(0..20);
    let sizes = (0..n)
        .map(|_| match rng.random_range(0..4) {
            0 => rng.random_range(1..100),
            1 => rng.random_range(100..1_000),
            2 => rng.random_range(1_000..100_000),
            _ => 50, // repeated sizes produce ties
        })
        .collect();
    let min_files = rng.random_range(0..6);
    let cfg = CompactionConfig {
        min_files,
        max_files: rng.random_range(min_files.saturating_sub(1)..12),
        ratio: rng.random_range(0.3..4.0),
        off_peak_ratio: 5.0,
        min_compact_size: [0, 60, 500][rng.random_range(0..3)],
        max_compact_size: [u64::MAX, 5_000, 200][rng.random_range(0..3)],
    };
    (sizes, cfg, rng.random())
}

#[test]
fn randomized_selection_matches_model_and_invariants() {
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    let (mut picked, mut forced) = (0, 0);
    for case in 0..5_000 {
        let (sizes, cfg, stuck) = random_case(&mut rng);
        let got = select_minor(&files(&sizes), &cfg, stuck);
        let expected = model(&sizes, &cfg, stuck);
        assert_eq!(
            got.as_ref().map(|s| (s.start, s.end, s.forced)),
            expected,
            "case {case}: {sizes:?} {cfg:?} stuck={stuck}"
        );
        let Some(s) = got else { continue };
        picked += 1;
        let run = &sizes[s.range()];
        assert!(run.len() >= cfg.min_files.max(2) && run.len() <= cfg.max_files);
        assert!(run.iter().all(|&x| x <= cfg.max_compact_size));
        assert_eq!(s.total_size, run.iter().sum::<u64>());
        if s.forced {
            forced += 1;
            assert!(stuck);
        } else {
            assert!(in_ratio(&files(run), s.total_size, &cfg));
        }
    }
    assert!(
        picked > 1_000,
        "generator too rarely produces selections: {picked}"
    );
    assert!(
        forced > 50,
        "generator too rarely forces a selection: {forced}"
    );
}
