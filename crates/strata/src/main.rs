//! The `strata` binary: a small dispatcher with one module per subcommand.
//!
//! `strata bench engine` runs the engine benchmark (Strata only; the RocksDB side-by-side
//! lives in `bench/rocks-anchor` so the default build never links RocksDB). A `server`
//! subcommand will join `bench` here.

mod cmd;

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
