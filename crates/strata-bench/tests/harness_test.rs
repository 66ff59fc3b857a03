//! The harness run end to end against the in-memory target.
// Test helpers outside #[test] functions panic on failure by design.
#![allow(clippy::unwrap_used)]

use strata_bench::{run_benchmark, BenchArgs, MemoryBackend, Outcome, Sinks, Workload};

fn run(args: &BenchArgs, backend: &MemoryBackend) -> (Outcome, String, String) {
    let (mut table, mut json) = (Vec::new(), Vec::new());
    let mut sinks = Sinks {
        table: &mut table,
        json: &mut json,
    };
    let outcome = run_benchmark(&[backend], args, &mut sinks).unwrap();
    (
        outcome,
        String::from_utf8(table).unwrap(),
        String::from_utf8(json).unwrap(),
    )
}

fn args(dir: &tempfile::TempDir, num: u64, workloads: &[Workload]) -> BenchArgs {
    let mut args = BenchArgs::with_num(num, dir.path().to_path_buf());
    args.workloads = workloads.to_vec();
    args
}

#[test]
fn fillseq_then_reads_find_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let backend = MemoryBackend::new();
    let mut a = args(
        &dir,
        1000,
        &[
            Workload::Fillseq,
            Workload::Readrandom,
            Workload::Seekrandom,
        ],
    );
    a.keep_db = true;
    let (outcome, table, _) = run(&a, &backend);
    let phases = &outcome.runs[0][0];
    assert_eq!(backend.len(), 1000);
    assert_eq!(phases[0].ops, 1000);
    assert_eq!(phases[1].ops, 1000);
    assert_eq!(phases[1].found, Some(1000));
    assert_eq!(phases[2].ops, 100);
    // Seeks near the end of the key space return fewer than 10 rows.
    let rows = phases[2].rows.unwrap();
    assert!(rows > 900 && rows <= 1000, "{rows}");
    assert!(table.contains("readrandom") && table.contains("found 100.0%"));
}

#[test]
fn random_fill_finds_about_63_percent_and_does_not_replay() {
    let dir = tempfile::tempdir().unwrap();
    let backend = MemoryBackend::new();
    let a = args(&dir, 20_000, &[Workload::Fillrandom, Workload::Readrandom]);
    let (outcome, _, _) = run(&a, &backend);
    let ratio = outcome.runs[0][0][1].found_ratio().unwrap();
    // 1 - 1/e of the key space is written; a replay of the fill's keys would give 100 %.
    assert!((0.60..0.67).contains(&ratio), "{ratio}");
    // The database directory is removed afterwards.
    assert!(!a.db.join("memory").exists());
}

#[test]
fn fill_phases_start_from_an_empty_database() {
    let dir = tempfile::tempdir().unwrap();
    let backend = MemoryBackend::new();
    let mut a = args(&dir, 500, &[Workload::Fillseq, Workload::Fillrandom]);
    a.keep_db = true;
    run(&a, &backend);
    assert!(
        backend.len() < 500,
        "fillrandom must not see fillseq's keys"
    );
}

#[test]
fn threads_split_the_operations() {
    let dir = tempfile::tempdir().unwrap();
    let backend = MemoryBackend::new();
    let mut a = args(&dir, 1001, &[Workload::Fillseq, Workload::Readrandom]);
    a.threads = 4;
    a.keep_db = true;
    let (outcome, _, _) = run(&a, &backend);
    assert_eq!(backend.len(), 1001);
    assert_eq!(outcome.runs[0][0][1].found, Some(1001));
}

#[test]
fn json_lines_parse_and_percentiles_are_monotone() {
    let dir = tempfile::tempdir().unwrap();
    let backend = MemoryBackend::new();
    let mut a = args(&dir, 2000, &Workload::ALL);
    a.json = true;
    a.repeat = 3;
    let (outcome, table, json) = run(&a, &backend);
    let lines: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Three runs of six phases, then six medians.
    assert_eq!(lines.len(), 6 * 4);
    for v in &lines {
        let p = |k: &str| v[k].as_f64().unwrap();
        assert!(p("ops_per_sec") > 0.0);
        assert!(p("p50_us") <= p("p95_us") && p("p95_us") <= p("p99_us"));
        assert!(p("p99_us") <= p("p999_us") && p("p999_us") <= p("max_us"));
    }
    assert_eq!(lines.last().unwrap()["run"], "median");
    assert_eq!(lines[4]["workload"], "readrandom-uncached");
    assert_eq!(outcome.medians[0].len(), 6);
    assert!(table.contains("medians of 3 runs"));
}

#[test]
fn two_systems_get_a_ratio_table() {
    let dir = tempfile::tempdir().unwrap();
    let (a_backend, b_backend) = (MemoryBackend::new(), MemoryBackend::new());
    let a = args(&dir, 300, &[Workload::Fillseq]);
    let mut table = Vec::new();
    let mut sinks = Sinks {
        table: &mut table,
        json: &mut std::io::sink(),
    };
    let outcome = run_benchmark(&[&a_backend, &b_backend], &a, &mut sinks).unwrap();
    assert_eq!(outcome.medians.len(), 2);
    assert!(String::from_utf8(table)
        .unwrap()
        .contains("ratio memory/memory"));
}

#[test]
fn invalid_flags_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(&dir, 0, &[Workload::Fillseq]);
    let mut sinks = Sinks {
        table: &mut std::io::sink(),
        json: &mut std::io::sink(),
    };
    assert!(run_benchmark(&[&MemoryBackend::new()], &a, &mut sinks).is_err());
    a.num = 10;
    a.threads = 0;
    assert!(run_benchmark(&[&MemoryBackend::new()], &a, &mut sinks).is_err());
}
