#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The Thrift target against an in-process Strata Thrift server, a check that it speaks the
//! buffered (unframed) transport real HBase requires, and the gRPC target (run on request).

use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;

use strata_bench::client::grpc::GrpcTarget;
use strata_bench::client::thrift::ThriftTarget;
use strata_bench::client::{TableSpec, Target};
use strata_bench::driver::PhaseReport;
use strata_bench::pe::{self, PeOptions, PeWorkload};
use strata_bench::ycsb::{self, YcsbOptions};
use strata_server::{Service, ServiceOptions};

/// A server running on its own runtime until the value is dropped.
struct InProcessServer {
    addr: SocketAddr,
    _runtime: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

fn thrift_server() -> InProcessServer {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    runtime.spawn(strata_thrift::serve_listener(
        listener,
        Arc::clone(&service),
        std::future::pending(),
    ));
    InProcessServer {
        addr,
        _runtime: runtime,
        _dir: dir,
    }
}

fn spec(table: &str, family: &str) -> TableSpec {
    TableSpec {
        table: table.into(),
        family: family.into(),
        split_keys: Vec::new(),
        durability: None,
    }
}

fn pe_options() -> PeOptions {
    PeOptions {
        rows: 40,
        key_rows: None,
        threads: 2,
        value_size: 100,
        batch_size: 5,
        multi_get: 4,
        seed: 3,
        quiet: true,
    }
}

fn ycsb_options() -> YcsbOptions {
    YcsbOptions {
        records: 100,
        operations: 200,
        field_count: 10,
        field_length: 10,
        max_scan_length: 20,
        distribution: None,
        batch_size: 10,
        threads: 2,
        seed: 5,
        quiet: true,
    }
}

fn assert_all_found(r: &PhaseReport, op: &str, ops: u64) {
    let o = r.op(op).unwrap_or_else(|| panic!("no {op} in {r:?}"));
    assert_eq!((o.ops, o.misses), (ops, 0), "{op}: {r:?}");
}

/// Runs PE and YCSB workloads through `target`; every read must find its row.
fn exercise(target: &dyn Target, with_check_and_put: bool) {
    let opts = pe_options();
    let total = opts.total_rows();
    let empty = pe::run(target, PeWorkload::RandomRead, &opts).unwrap();
    assert_eq!(empty.op("read").unwrap().misses, total);
    assert_all_found(
        &pe::run(target, PeWorkload::SequentialWrite, &opts).unwrap(),
        "write",
        total,
    );
    assert_all_found(
        &pe::run(target, PeWorkload::RandomRead, &opts).unwrap(),
        "read",
        total,
    );
    assert_all_found(
        &pe::run(target, PeWorkload::MultiGet, &opts).unwrap(),
        "multiGet",
        total,
    );
    let r10 = pe::run(target, PeWorkload::ScanRange10, &opts).unwrap();
    assert_all_found(&r10, "scanRange10", total);
    assert_eq!(r10.op("scanRange10").unwrap().rows, total * 10);
    let scan = pe::run(target, PeWorkload::Scan, &opts).unwrap();
    assert_eq!(scan.op("scan").unwrap().rows, total);
    assert_all_found(
        &pe::run(target, PeWorkload::Increment, &opts).unwrap(),
        "increment",
        total,
    );
    if with_check_and_put {
        let cap = pe::run(target, PeWorkload::CheckAndPut, &opts).unwrap();
        assert_all_found(&cap, "checkAndPut", total);
    }
}

fn exercise_ycsb(table: &str, make: impl Fn(TableSpec) -> Box<dyn Target>) {
    let target = make(spec(table, "family"));
    let opts = ycsb_options();
    assert_all_found(&ycsb::load(target.as_ref(), &opts).unwrap(), "insert", 100);
    for letter in ["a", "e", "f"] {
        let report = ycsb::run(target.as_ref(), &letter.parse().unwrap(), &opts).unwrap();
        assert_eq!(report.ops, 200, "{letter}");
        assert_eq!(report.misses(), 0, "{letter}: {report:?}");
    }
}

#[test]
fn thrift_target_runs_pe_and_ycsb_against_strata() {
    let server = thrift_server();
    let target = ThriftTarget::new(server.addr, spec("TestTable", "info")).unwrap();
    exercise(&target, true);
    exercise_ycsb("usertable", |s| {
        Box::new(ThriftTarget::new(server.addr, s).unwrap())
    });
}

#[test]
fn thrift_target_speaks_buffered_binary() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let client = strata_runtime::thread::spawn("thrift-target-client", move || {
        let target = ThriftTarget::new(addr, spec("t", "f")).unwrap();
        target.prepare_table()
    })
    .unwrap();
    let (mut conn, _) = listener.accept().unwrap();
    let mut head = [0u8; 4];
    conn.read_exact(&mut head).unwrap();
    // A strict binary message header (version 1, type CALL) and not a 4-byte frame length.
    assert_eq!(head, [0x80, 0x01, 0x00, 0x01]);
    drop(conn);
    assert!(client.join().unwrap().is_err(), "no server answered");
}

#[test]
fn thrift_target_refuses_presplit() {
    let mut s = spec("t", "f");
    s.split_keys = vec![b"m".to_vec()];
    let addr: SocketAddr = "127.0.0.1:9".parse().unwrap();
    assert!(ThriftTarget::new(addr, s).is_err());
}

/// Tables named after `run`, so that a long-running external server starts each run empty.
fn grpc_exercise(addr: SocketAddr, run: &str) {
    let mut s = spec(&format!("TestTable{run}"), "info");
    s.split_keys = pe::run::split_keys(80, 2);
    let target = GrpcTarget::new(addr, "strata", s).unwrap();
    exercise(&target, true);
    exercise_ycsb(&format!("usertable{run}"), |s| {
        Box::new(GrpcTarget::new(addr, "strata", s).unwrap())
    });
}

#[test]
fn grpc_target_runs_pe_and_ycsb_against_strata() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::open(ServiceOptions::new(dir.path())).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    runtime.spawn(strata_grpc::serve_listener(
        listener,
        service,
        std::future::pending::<()>(),
    ));
    grpc_exercise(addr, "");
}

#[test]
#[ignore = "set STRATA_BENCH_GRPC=host:port (a Bigtable emulator or Strata with fresh tables) and run with --ignored"]
fn grpc_target_runs_pe_and_ycsb_against_an_external_server() {
    let addr = std::env::var("STRATA_BENCH_GRPC").expect("STRATA_BENCH_GRPC=host:port");
    let run = std::time::UNIX_EPOCH
        .elapsed()
        .unwrap()
        .as_nanos()
        .to_string();
    grpc_exercise(addr.parse().unwrap(), &run);
}
