#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Every PE workload and YCSB A–F against the embedded target, with tiny sizes: the
//! operation counts must come out exactly and reads must find the rows written before them.

use strata_bench::client::embedded::EmbeddedTarget;
use strata_bench::client::TableSpec;
use strata_bench::driver::PhaseReport;
use strata_bench::pe::{self, PeOptions, PeWorkload};
use strata_bench::ycsb::{self, CoreWorkload, YcsbOptions};

fn target(
    table: &str,
    family: &str,
    split_keys: Vec<Vec<u8>>,
) -> (tempfile::TempDir, EmbeddedTarget) {
    let dir = tempfile::tempdir().unwrap();
    let spec = TableSpec {
        table: table.into(),
        family: family.into(),
        split_keys,
        durability: None,
    };
    let target = EmbeddedTarget::open(Some(dir.path().to_path_buf()), spec, 0).unwrap();
    (dir, target)
}

fn pe_options() -> PeOptions {
    PeOptions {
        rows: 60,
        key_rows: None,
        threads: 2,
        value_size: 64,
        batch_size: 7,
        multi_get: 4,
        seed: 1,
        quiet: true,
    }
}

fn op_counts(r: &PhaseReport, op: &str) -> (u64, u64, u64) {
    let o = r
        .op(op)
        .unwrap_or_else(|| panic!("{} has no {op}: {r:?}", r.phase));
    (o.ops, o.misses, o.rows)
}

#[test]
fn every_pe_workload_counts_its_operations_and_finds_its_rows() {
    let opts = pe_options();
    let (_dir, t) = target("TestTable", "info", pe::run::split_keys(120, 3));
    let total = opts.total_rows();

    // Reading an empty table must count misses, or the checks below prove nothing.
    let empty = pe::run(&t, PeWorkload::RandomRead, &opts).unwrap();
    assert_eq!(op_counts(&empty, "read"), (total, total, 0));

    let write = pe::run(&t, PeWorkload::SequentialWrite, &opts).unwrap();
    assert_eq!(op_counts(&write, "write"), (total, 0, 0));
    // Batches of 7 rows: ceil(60 / 7) = 9 calls per thread.
    assert_eq!(write.op("write").unwrap().calls, 18);

    let read = pe::run(&t, PeWorkload::RandomRead, &opts).unwrap();
    assert_eq!(op_counts(&read, "read"), (total, 0, 0));

    let multi = pe::run(&t, PeWorkload::MultiGet, &opts).unwrap();
    assert_eq!(op_counts(&multi, "multiGet"), (total, 0, 0));

    let scan = pe::run(&t, PeWorkload::Scan, &opts).unwrap();
    assert_eq!(op_counts(&scan, "scan"), (total, 0, total));

    let r10 = pe::run(&t, PeWorkload::ScanRange10, &opts).unwrap();
    assert_eq!(op_counts(&r10, "scanRange10"), (total, 0, total * 10));

    let r100 = pe::run(&t, PeWorkload::ScanRange100, &opts).unwrap();
    assert_eq!(op_counts(&r100, "scanRange100"), (total, 0, total * 100));

    let random_write = pe::run(&t, PeWorkload::RandomWrite, &opts).unwrap();
    assert_eq!(op_counts(&random_write, "write"), (total, 0, 0));

    let inc = pe::run(&t, PeWorkload::Increment, &opts).unwrap();
    assert_eq!(op_counts(&inc, "increment"), (total, 0, 0));

    let cap = pe::run(&t, PeWorkload::CheckAndPut, &opts).unwrap();
    assert_eq!(op_counts(&cap, "checkAndPut"), (total, 0, 0));
    use strata_bench::client::Target;
    t.finish().unwrap();
}

fn ycsb_options() -> YcsbOptions {
    YcsbOptions {
        records: 300,
        operations: 600,
        field_count: 10,
        field_length: 20,
        max_scan_length: 100,
        distribution: None,
        batch_size: 16,
        threads: 3,
        seed: 9,
        quiet: true,
    }
}

#[test]
fn ycsb_a_to_f_run_their_mix_and_find_every_record() {
    let opts = ycsb_options();
    let (_dir, t) = target("usertable", "family", Vec::new());
    let load = ycsb::load(&t, &opts).unwrap();
    assert_eq!(op_counts(&load, "insert"), (300, 0, 0));

    for letter in ["a", "b", "c", "d", "e", "f"] {
        let workload: CoreWorkload = letter.parse().unwrap();
        let report = ycsb::run(&t, &workload, &opts).unwrap();
        assert_eq!(report.ops, 600, "workload {letter}");
        assert_eq!(report.misses(), 0, "workload {letter}: {report:?}");
        let ops: Vec<&str> = report.per_op.iter().map(|o| o.op.as_str()).collect();
        let expected: &[&str] = match letter {
            "a" | "b" => &["read", "update"],
            "c" => &["read"],
            "d" => &["insert", "read"],
            "e" => &["insert", "scan"],
            _ => &["read", "read-modify-write"],
        };
        assert_eq!(ops, expected, "workload {letter}");
        if letter == "e" {
            let scan = report.op("scan").unwrap();
            assert!(
                scan.rows >= scan.ops,
                "every scan starts at an existing key"
            );
        }
        if letter == "b" {
            let reads = report.op("read").unwrap().ops;
            assert!((540..=595).contains(&reads), "95% reads, got {reads}");
        }
    }
}

#[test]
fn ycsb_run_on_an_empty_table_counts_misses() {
    let opts = ycsb_options();
    let (_dir, t) = target("usertable", "family", Vec::new());
    use strata_bench::client::Target;
    t.prepare_table().unwrap();
    let report = ycsb::run(&t, &"c".parse().unwrap(), &opts).unwrap();
    assert_eq!(op_counts(&report, "read"), (600, 600, 0));
}

#[test]
fn random_reads_over_key_rows_cover_a_table_written_with_other_threads() {
    // 2 threads × 60 rows written; then 3 threads read 25 rows each over those 120.
    let load = pe_options();
    let (_dir, t) = target("TestTable", "info", Vec::new());
    pe::run(&t, PeWorkload::SequentialWrite, &load).unwrap();
    let reads = PeOptions {
        rows: 25,
        threads: 3,
        key_rows: Some(120),
        ..pe_options()
    };
    assert_eq!(reads.key_space(), 120);
    let report = pe::run(&t, PeWorkload::RandomRead, &reads).unwrap();
    assert_eq!(op_counts(&report, "read"), (75, 0, 0));
    // Without key_rows, 3 × 25 = 75 rows would be the key space; with more rows than
    // were written, some reads must miss (the count proves the key space is used).
    let wider = PeOptions {
        key_rows: Some(100_000),
        ..reads.clone()
    };
    let report = pe::run(&t, PeWorkload::RandomRead, &wider).unwrap();
    assert!(report.misses() > 60, "{report:?}");
    let zero = PeOptions {
        key_rows: Some(0),
        ..reads
    };
    assert!(pe::run(&t, PeWorkload::RandomRead, &zero).is_err());
    use strata_bench::client::Target;
    t.finish().unwrap();
}
