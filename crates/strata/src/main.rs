//! The `strata` binary: a small dispatcher with one module per subcommand.
//!
//! `strata bench engine` runs the engine benchmark (Strata only; the RocksDB side-by-side
//! lives in `bench/rocks-anchor` so the default build never links RocksDB). A `server`
//! subcommand will join `bench` here.

mod cmd;

/// mimalloc instead of the system allocator: the engine allocates many small objects from
/// several threads (writers, flush, compaction), where glibc's allocator spent measurable
/// time in arena locking and consolidation (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "strata",
    version,
    about = "Strata: a Bigtable/HBase-style database"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Benchmarks.
    Bench(cmd::bench::BenchCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(bench) => cmd::bench::run(bench),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("strata: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_engine_smoke_run() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().to_str().unwrap();
        let cli = Cli::try_parse_from(["strata", "bench", "engine", "--num", "2000", "--db", db])
            .unwrap();
        let Command::Bench(bench) = cli.command;
        cmd::bench::run(bench).unwrap();
    }

    #[test]
    fn unknown_workloads_are_rejected() {
        let parsed = Cli::try_parse_from(["strata", "bench", "engine", "--workloads", "nope"]);
        assert!(parsed.is_err());
    }
}
