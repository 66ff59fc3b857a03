//! One test per configurable limit of the service (`strata_server::Limits`): a request over
//! the limit fails with `LimitExceeded` naming its config key, nothing of it is written, and
//! the service keeps serving (a request within the limit succeeds right after).
#![allow(clippy::disallowed_methods)] // these tests race real threads in real time
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::{Cell, Durability, FamilyOptions, Get, Scan, LATEST_TIMESTAMP};
use strata_server::TableName;
use strata_server::{Check, CompareOp, Dialect, Limits, Service, ServiceError, ServiceOptions};

fn open(dir: &std::path::Path, limits: Limits) -> (Arc<Service>, TableName) {
    let mut options = ServiceOptions::new(dir);
    options.limits = limits;
    let svc = Service::open(options).unwrap();
    let table = TableName::parse("t").unwrap();
    svc.admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    (svc, table)
}

fn put(row: impl Into<Bytes>, qualifier: impl Into<Bytes>, value: impl Into<Bytes>) -> Cell {
    Cell::put(row, Bytes::from_static(b"cf"), qualifier, 1, value)
}

/// Asserts `result` is `LimitExceeded` for `key`, with a message naming `limits.<key>`.
fn assert_limit<T: std::fmt::Debug>(result: Result<T, ServiceError>, key: &str) {
    match result {
        Err(e @ ServiceError::LimitExceeded { limit, .. }) => {
            assert_eq!(limit, key);
            assert!(e.to_string().contains(&format!("limits.{key}")), "{e}");
        }
        other => panic!("expected LimitExceeded({key}), got {other:?}"),
    }
}

fn row_exists(svc: &Service, table: &TableName, row: &str) -> bool {
    svc.rows()
        .get(table, &Get::new(row.to_string()))
        .unwrap()
        .is_some()
}

/// A small write that must still succeed after a refusal.
fn still_serving(svc: &Service, table: &TableName) {
    svc.rows()
        .mutate(table, vec![put("ok", "q", "v")], Durability::SyncWal)
        .unwrap();
    assert!(row_exists(svc, table, "ok"));
}

fn mutate(svc: &Service, table: &TableName, cells: Vec<Cell>) -> Result<(), ServiceError> {
    svc.rows().mutate(table, cells, Durability::SyncWal)
}

#[test]
fn row_key_over_max_row_key_bytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_row_key_bytes: 8,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    mutate(&svc, &table, vec![put("12345678", "q", "v")]).unwrap();
    assert_limit(
        mutate(&svc, &table, vec![put("123456789", "q", "v")]),
        "max_row_key_bytes",
    );
    assert!(!row_exists(&svc, &table, "123456789"));
    still_serving(&svc, &table);
}

#[test]
fn qualifier_over_max_qualifier_bytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_qualifier_bytes: 4,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    assert_limit(
        mutate(&svc, &table, vec![put("r", "qqqqq", "v")]),
        "max_qualifier_bytes",
    );
    assert!(!row_exists(&svc, &table, "r"));
    still_serving(&svc, &table);
}

#[test]
fn value_over_max_value_bytes_is_refused_and_the_grpc_limit_is_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_value_bytes: 16,
        grpc_max_value_bytes: 32,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    let value = vec![7u8; 20];
    assert_limit(
        mutate(&svc, &table, vec![put("r", "q", value.clone())]),
        "max_value_bytes",
    );
    assert!(!row_exists(&svc, &table, "r"));
    // The Bigtable dialect allows it, and has its own key.
    svc.rows()
        .mutate_in(
            Dialect::Bigtable,
            &table,
            vec![put("r", "q", value)],
            Durability::SyncWal,
        )
        .unwrap();
    assert_limit(
        svc.rows().mutate_in(
            Dialect::Bigtable,
            &table,
            vec![put("r2", "q", vec![0u8; 33])],
            Durability::SyncWal,
        ),
        "grpc_max_value_bytes",
    );
    still_serving(&svc, &table);
}

#[test]
fn append_that_grows_a_value_past_max_value_bytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_value_bytes: 8,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    mutate(&svc, &table, vec![put("r", "q", "123456")]).unwrap();
    let suffix = (
        Bytes::from_static(b"cf"),
        Bytes::from_static(b"q"),
        Bytes::from_static(b"789"),
    );
    assert_limit(
        svc.rows()
            .append(&table, b"r", std::slice::from_ref(&suffix)),
        "max_value_bytes",
    );
    let row = svc.rows().get(&table, &Get::new("r")).unwrap().unwrap();
    assert_eq!(row.cells[0].value, Bytes::from_static(b"123456"));
    still_serving(&svc, &table);
}

#[test]
fn check_and_mutate_and_read_modify_write_obey_the_limits_too() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_value_bytes: 4,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    let check = Check {
        row: Bytes::from_static(b"r"),
        family: Bytes::from_static(b"cf"),
        qualifier: Bytes::from_static(b"q"),
        op: CompareOp::Equal,
        value: None,
    };
    assert_limit(
        svc.rows().check_and_mutate(
            &table,
            &check,
            vec![put("r", "q", "too long")],
            Durability::SyncWal,
        ),
        "max_value_bytes",
    );
    assert_limit(
        svc.rows()
            .read_modify_write_row(&table, &Get::new("r"), |_, _| {
                Ok((vec![put("r", "q", "too long")], ()))
            }),
        "max_value_bytes",
    );
    assert!(!row_exists(&svc, &table, "r"));
    still_serving(&svc, &table);
}

#[test]
fn request_over_max_cells_per_request_is_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_cells_per_request: 3,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    let cells: Vec<Cell> = (0..4).map(|i| put(format!("r{i}"), "q", "v")).collect();
    assert_limit(mutate(&svc, &table, cells), "max_cells_per_request");
    assert!(!row_exists(&svc, &table, "r0"), "nothing of it is written");
    let three: Vec<Cell> = (0..3).map(|i| put("r", format!("q{i}"), "v")).collect();
    mutate(&svc, &table, three).unwrap();
    still_serving(&svc, &table);
}

#[test]
fn batch_over_max_rows_per_request_is_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_rows_per_request: 2,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    let one_row: Vec<Cell> = (0..5).map(|i| put("r", format!("q{i}"), "v")).collect();
    mutate(&svc, &table, one_row).unwrap();
    let three_rows: Vec<Cell> = (0..3).map(|i| put(format!("s{i}"), "q", "v")).collect();
    assert_limit(mutate(&svc, &table, three_rows), "max_rows_per_request");
    assert!(!row_exists(&svc, &table, "s0"));
    still_serving(&svc, &table);
}

#[test]
fn scanners_past_max_open_scanners_are_refused_until_one_closes() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        max_open_scanners: 2,
        ..Limits::default()
    };
    let (svc, table) = open(dir.path(), limits);
    let a = svc.scanners().open_scanner(&table, Scan::new()).unwrap();
    let _b = svc.scanners().open_scanner(&table, Scan::new()).unwrap();
    assert_limit(
        svc.scanners().open_scanner(&table, Scan::new()),
        "max_open_scanners",
    );
    assert_eq!(svc.scanners().open_scanner_count(), 2);
    svc.scanners().close_scanner(a).unwrap();
    let c = svc.scanners().open_scanner(&table, Scan::new()).unwrap();
    assert!(svc.scanners().scanner_next(c, 10).unwrap().is_empty());
    still_serving(&svc, &table);
}

#[test]
fn abandoned_scanners_free_their_slots_when_the_lease_expires() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.limits.max_open_scanners = 1;
    options.scanner_lease = std::time::Duration::from_millis(50);
    let svc = Service::open(options).unwrap();
    let table = TableName::parse("t").unwrap();
    svc.admin()
        .create_table(&table, vec![FamilyOptions::new("cf")], vec![])
        .unwrap();
    let _abandoned = svc.scanners().open_scanner(&table, Scan::new()).unwrap();
    assert_limit(
        svc.scanners().open_scanner(&table, Scan::new()),
        "max_open_scanners",
    );
    std::thread::sleep(std::time::Duration::from_millis(100));
    svc.scanners().open_scanner(&table, Scan::new()).unwrap();
    assert_eq!(svc.scanners().open_scanner_count(), 1);
}

fn filter_error(svc: &Service, text: &str) -> String {
    match svc.parse_filter(text.as_bytes()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{text:?} parsed"),
    }
}

#[test]
fn filter_string_over_filter_max_bytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        filter_max_bytes: 32,
        ..Limits::default()
    };
    let (svc, _) = open(dir.path(), limits);
    let long = format!("PrefixFilter('{}')", "a".repeat(32));
    assert!(filter_error(&svc, &long).contains("limits.filter_max_bytes"));
    svc.parse_filter(b"PrefixFilter('a')").unwrap();
}

#[test]
fn filter_nested_past_filter_max_depth_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        filter_max_depth: 3,
        ..Limits::default()
    };
    let (svc, _) = open(dir.path(), limits);
    let nested = |n: usize| format!("{}KeyOnlyFilter(){}", "(".repeat(n), ")".repeat(n));
    svc.parse_filter(nested(3).as_bytes()).unwrap();
    assert!(filter_error(&svc, &nested(4)).contains("limits.filter_max_depth"));
    assert!(filter_error(&svc, "SKIP SKIP SKIP SKIP KeyOnlyFilter()")
        .contains("limits.filter_max_depth"));
}

#[test]
fn regex_over_filter_regex_max_bytes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        filter_regex_max_bytes: 4,
        ..Limits::default()
    };
    let (svc, _) = open(dir.path(), limits);
    svc.parse_filter(b"RowFilter(=, 'regexstring:a.*b')")
        .unwrap();
    let e = filter_error(&svc, "RowFilter(=, 'regexstring:a.*bc')");
    assert!(e.contains("limits.filter_regex_max_bytes"), "{e}");
    // A long binary comparator is no regex.
    svc.parse_filter(b"RowFilter(=, 'binary:abcdefgh')")
        .unwrap();
}

#[test]
fn limits_above_their_ceilings_are_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServiceOptions::new(dir.path());
    options.limits.max_row_key_bytes = 1 << 20;
    let e = Service::open(options).err().expect("opened");
    assert!(e.to_string().contains("limits.max_row_key_bytes"), "{e}");
}

#[test]
fn default_limits_allow_hbase_and_bigtable_sized_writes() {
    let dir = tempfile::tempdir().unwrap();
    let (svc, table) = open(dir.path(), Limits::default());
    let key = vec![b'k'; strata_engine::MAX_ROW_LEN];
    let ten_mib = vec![1u8; 10 << 20];
    mutate(&svc, &table, vec![put(key, "q", ten_mib)]).unwrap();
    assert_limit(
        mutate(&svc, &table, vec![put("r", "q", vec![1u8; (10 << 20) + 1])]),
        "max_value_bytes",
    );
    // Bigtable clients send 12 MiB cells (tests/bigtable/test_large.py).
    svc.rows()
        .mutate_in(
            Dialect::Bigtable,
            &table,
            vec![put("big", "q", vec![2u8; 12 << 20])],
            Durability::SyncWal,
        )
        .unwrap();
    let latest = Cell::put("r", "cf", "q", LATEST_TIMESTAMP, "v");
    mutate(&svc, &table, vec![latest]).unwrap();
}

/// A service whose write budget is 10,000 bytes, with one write of `waiting_bytes` charged
/// and waiting for the lock of row "held" (another thread holds it in a read-modify-write).
/// `finish` releases the lock and checks the waiting write then succeeded.
struct WaitingWrite {
    svc: Arc<Service>,
    table: TableName,
    dir: tempfile::TempDir,
    release: std::sync::mpsc::Sender<()>,
    holder: std::thread::JoinHandle<()>,
    waiter: std::thread::JoinHandle<Result<(), ServiceError>>,
}

impl WaitingWrite {
    fn start(waiting_bytes: usize) -> WaitingWrite {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            max_write_bytes_in_flight: 10_000,
            ..Limits::default()
        };
        let (svc, table) = open(dir.path(), limits);
        let (locked_tx, locked_rx) = std::sync::mpsc::channel();
        let (release, release_rx) = std::sync::mpsc::channel::<()>();
        let holder = {
            let (svc, table) = (Arc::clone(&svc), table.clone());
            std::thread::spawn(move || {
                svc.rows()
                    .read_modify_write_row(&table, &Get::new("held"), |_, _| {
                        locked_tx.send(()).unwrap();
                        release_rx.recv().unwrap();
                        Ok((vec![put("held", "q", "x")], ()))
                    })
                    .unwrap();
            })
        };
        locked_rx.recv().unwrap();
        let waiter = {
            let (svc, table) = (Arc::clone(&svc), table.clone());
            let cells = vec![put("held", "w", vec![0u8; waiting_bytes])];
            std::thread::spawn(move || svc.rows().mutate(&table, cells, Durability::SyncWal))
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while svc.rows().write_bytes_in_flight() == 0 {
            assert!(
                !waiter.is_finished(),
                "the write did not wait for the row lock"
            );
            assert!(
                std::time::Instant::now() < deadline,
                "the waiting write was never charged"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        WaitingWrite {
            svc,
            table,
            dir,
            release,
            holder,
            waiter,
        }
    }

    fn finish(self) -> (Arc<Service>, TableName, tempfile::TempDir) {
        self.release.send(()).unwrap();
        self.holder.join().unwrap();
        self.waiter.join().unwrap().unwrap();
        (self.svc, self.table, self.dir)
    }
}

/// A write waiting for its row lock holds its share of `max_write_bytes_in_flight`; another
/// write that does not fit in the rest is refused at once as too busy, naming the key, and
/// fits again once the first one is done.
#[test]
fn writes_in_flight_past_their_budget_are_refused_as_too_busy() {
    let waiting = WaitingWrite::start(6000);
    let (svc, table) = (Arc::clone(&waiting.svc), waiting.table.clone());
    let refused = svc
        .rows()
        .mutate(
            &table,
            vec![put("other", "q", vec![0u8; 6000])],
            Durability::SyncWal,
        )
        .unwrap_err();
    let text = refused.to_string();
    assert!(text.starts_with("too busy"), "{text}");
    assert!(text.contains("limits.max_write_bytes_in_flight"), "{text}");
    let (svc, table, _dir) = waiting.finish();
    svc.rows()
        .mutate(
            &table,
            vec![put("other", "q", vec![0u8; 6000])],
            Durability::SyncWal,
        )
        .unwrap();
    assert!(row_exists(&svc, &table, "other"));
}

/// A multi-row batch is charged as a whole: with another write in flight it is refused
/// before any of its rows is applied; alone it is applied row by row.
#[test]
fn a_multi_row_batch_is_charged_whole_and_refused_whole() {
    let rows = |n: usize| -> Vec<Vec<Cell>> {
        (0..n)
            .map(|i| vec![put(format!("b{i}"), "q", vec![1u8; 1000])])
            .collect()
    };
    let waiting = WaitingWrite::start(5000);
    let (svc, table) = (Arc::clone(&waiting.svc), waiting.table.clone());
    // Six rows of ~1 KiB: 6.4 KB do not fit next to the waiting 5 KB.
    let refused = svc
        .rows()
        .mutate_each_row(&table, rows(6), Durability::SyncWal)
        .unwrap_err();
    assert!(refused.to_string().starts_with("too busy"), "{refused}");
    assert!(
        !row_exists(&svc, &table, "b0"),
        "a refused batch wrote a row"
    );
    let (svc, table, _dir) = waiting.finish();
    let outcomes = svc
        .rows()
        .mutate_each_row(&table, rows(6), Durability::SyncWal)
        .unwrap();
    assert_eq!(outcomes.len(), 6);
    assert!(outcomes.iter().all(|r| r.is_ok()));
    assert!((0..6).all(|i| row_exists(&svc, &table, &format!("b{i}"))));
}
