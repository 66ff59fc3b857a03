//! Strata's benchmarks.
//!
//! - `pe` and `ycsb`: HBase PerformanceEvaluation-style workloads and YCSB's core workloads
//!   A–F against any [`client::Target`]: Strata embedded, any HBase Thrift1 server (Strata or
//!   Apache HBase) or any Cloud Bigtable v2 gRPC server (see docs/bench.md).
//!
//! Engine-level benchmarks with db_bench semantics:
//! The workloads (`fillseq`, `fillrandom`, `overwrite`, `readrandom`, `readrandom-uncached`,
//! `seekrandom`) run against any [`Backend`]: Strata's engine here, RocksDB in the separate
//! `bench/rocks-anchor` crate, and an in-memory map for self-tests. Every system sees the same
//! 16-byte keys, the same values and the same random sequences for the same flags.

pub mod cli;
pub mod client;
pub mod compare;
pub mod config;
pub mod driver;
pub mod error;
pub mod keys;
pub mod memory;
pub mod pe;
pub mod phase;
pub mod report;
pub mod runner;
pub mod stats;
pub mod strata;
pub mod target;
pub mod workers;
pub mod ycsb;

pub use compare::{run_benchmark, Outcome, Sinks};
pub use config::{BenchArgs, Workload};
pub use error::{BenchError, BenchResult};
pub use memory::MemoryBackend;
pub use stats::{LatencySummary, PhaseResult};
pub use strata::StrataBackend;
pub use target::{Backend, CacheMode, DurabilityMode, KvTarget, OpenSpec};
