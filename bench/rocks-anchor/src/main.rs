//! `engine-compare`: runs the engine benchmark against Strata and RocksDB one after the other,
//! with the same flags, and prints both plus the Strata/RocksDB ratios.

mod rocks;

use std::process::ExitCode;

use clap::Parser;
use strata_bench::{run_benchmark, Backend, BenchArgs, MemoryBackend, Sinks};

/// A system the comparison can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum System {
    Strata,
    Rocksdb,
    /// The in-memory self-test target.
    Memory,
}

#[derive(Debug, Parser)]
#[command(name = "engine-compare", about = "Strata vs RocksDB, db_bench style")]
struct Cli {
    /// Systems to run, in order; ratios compare the first two.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [System::Strata, System::Rocksdb])]
    systems: Vec<System>,
    #[command(flatten)]
    bench: BenchArgs,
}

fn backend(system: System) -> Box<dyn Backend> {
    match system {
        System::Strata => Box::new(strata_bench::StrataBackend::new()),
        System::Rocksdb => Box::new(rocks::RocksBackend),
        System::Memory => Box::new(MemoryBackend::new()),
    }
}

/// The allocator the `strata` binary ships with, so Strata runs here as it does there.
/// RocksDB's C++ code allocates with its own malloc either way.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let backends: Vec<Box<dyn Backend>> = cli.systems.iter().map(|&s| backend(s)).collect();
    let refs: Vec<&dyn Backend> = backends.iter().map(|b| b.as_ref()).collect();
    let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
    // With --json, stdout carries only JSON lines and the table moves to stderr.
    let mut sinks = if cli.bench.json {
        Sinks {
            table: &mut stderr,
            json: &mut stdout,
        }
    } else {
        Sinks {
            table: &mut stdout,
            json: &mut stderr,
        }
    };
    match run_benchmark(&refs, &cli.bench, &mut sinks) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("engine-compare: {e}");
            ExitCode::FAILURE
        }
    }
}
