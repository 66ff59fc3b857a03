//! The `strata` binary: a small dispatcher with one module per subcommand.
//!
//! `strata bench engine` runs the engine benchmark (Strata only; the RocksDB side-by-side
//! lives in `bench/rocks-anchor` so the default build never links RocksDB). A `server`
//! subcommand will join `bench` here.

mod allocator;
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
    /// Run the server (standalone; or in a cluster with --cluster, --etcd and --store).
    Server(cmd::server::ServerArgs),
    /// Cluster tools (status).
    #[command(subcommand)]
    Cluster(cmd::cluster::ClusterCommand),
    /// Benchmarks.
    Bench(cmd::bench::BenchCommand),
    /// An HBase-shell-compatible shell talking to a running server over Thrift.
    Shell(cmd::shell::ShellArgs),
    /// Verify a stopped server's data directory offline (WAL, manifests, SSTables).
    Check(cmd::check::CheckArgs),
    /// Inspect an SSTable.
    #[command(subcommand)]
    Sst(cmd::sst::SstCommand),
    /// Inspect a WAL segment.
    #[command(subcommand)]
    Wal(cmd::wal::WalCommand),
}

/// Structured logs on stderr; the level comes from `STRATA_LOG` (e.g. `debug`,
/// `strata_engine=trace`), else for the server from the config file's `log_level`, by
/// default `info` for the server and `warn` for tools (so a benchmark's table is not
/// interleaved with engine events).
fn init_logging(default_level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("STRATA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

fn main() -> ExitCode {
    allocator::tune();
    let cli = Cli::parse();
    init_logging(&match &cli.command {
        Command::Server(args) => cmd::server::log_level(args),
        // The shell reports its own errors; the Thrift client's logs would only repeat them.
        Command::Shell(_) => "off".to_string(),
        _ => "warn".to_string(),
    });
    let result = match cli.command {
        Command::Server(args) => cmd::server::run(args),
        Command::Bench(bench) => cmd::bench::run(bench).map_err(|e| e.to_string()),
        Command::Shell(args) => cmd::shell::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Cluster(command) => cmd::cluster::run(command),
        Command::Sst(command) => cmd::sst::run(command),
        Command::Wal(command) => cmd::wal::run(command),
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
        let Command::Bench(bench) = cli.command else {
            panic!("parsed as another command");
        };
        cmd::bench::run(bench).unwrap();
    }

    #[test]
    fn unknown_workloads_are_rejected() {
        let parsed = Cli::try_parse_from(["strata", "bench", "engine", "--workloads", "nope"]);
        assert!(parsed.is_err());
    }
}
