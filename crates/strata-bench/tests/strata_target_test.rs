//! The Strata target against the in-memory reference: with the same flags both must find
//! exactly the same keys and return exactly the same number of scanned rows.

use strata_bench::{run_benchmark, BenchArgs, MemoryBackend, Sinks, StrataBackend, Workload};

#[test]
fn strata_agrees_with_the_in_memory_map() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = BenchArgs::with_num(3000, dir.path().to_path_buf());
    args.workloads = Workload::ALL.to_vec();
    args.threads = 2;
    args.cache_mb = 8;
    let mut sinks = Sinks {
        table: &mut std::io::sink(),
        json: &mut std::io::sink(),
    };
    let (strata, memory) = (StrataBackend::new(), MemoryBackend::new());
    let outcome = run_benchmark(&[&strata, &memory], &args, &mut sinks).unwrap();
    let (s, m) = (&outcome.runs[0][0], &outcome.runs[1][0]);
    assert_eq!(s.len(), 6);
    for (a, b) in s.iter().zip(m) {
        assert_eq!(a.workload, b.workload);
        assert_eq!(a.ops, b.ops);
        assert_eq!(a.found, b.found, "{}", a.workload);
        assert_eq!(a.rows, b.rows, "{}", a.workload);
    }
    assert!(s[3].found_ratio().unwrap() > 0.8);
    assert!(!dir.path().join("strata").exists());
}

#[test]
fn strata_runs_with_every_durability() {
    for durability in [
        strata_bench::DurabilityMode::Skip,
        strata_bench::DurabilityMode::Async,
        strata_bench::DurabilityMode::Fsync,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut args = BenchArgs::with_num(300, dir.path().to_path_buf());
        args.workloads = vec![Workload::Fillseq, Workload::Readrandom];
        args.durability = durability;
        let mut sinks = Sinks {
            table: &mut std::io::sink(),
            json: &mut std::io::sink(),
        };
        let outcome = run_benchmark(&[&StrataBackend::new()], &args, &mut sinks).unwrap();
        assert_eq!(outcome.runs[0][0][1].found, Some(300), "{durability:?}");
    }
}
