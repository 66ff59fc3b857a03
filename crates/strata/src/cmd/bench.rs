//! `strata bench ...`: benchmarks.

use clap::{Args, Subcommand};
use strata_bench::cli::{engine_about, pe_about, run_pe, run_ycsb, PeArgs, YcsbArgs};
use strata_bench::{run_benchmark, Backend, BenchArgs, BenchResult, MemoryBackend, Sinks};

#[derive(Debug, Args)]
pub struct BenchCommand {
    #[command(subcommand)]
    kind: BenchKind,
}

// The workload lists in these lines come from the tables the benchmarks dispatch on
// (strata_bench::cli::engine_about, pe_about): a list written here by hand went stale.
#[derive(Debug, Subcommand)]
enum BenchKind {
    #[command(about = engine_about())]
    Engine(EngineArgs),
    #[command(about = pe_about())]
    Pe(PeArgs),
    /// YCSB core workloads a-f: `strata bench ycsb <load|run|both> <a-f>`.
    Ycsb(YcsbArgs),
}

#[derive(Debug, Args)]
struct EngineArgs {
    /// Run the in-memory self-test target instead of the Strata engine.
    #[arg(long)]
    memory: bool,
    #[command(flatten)]
    bench: BenchArgs,
}

/// Runs a `bench` subcommand.
pub fn run(command: BenchCommand) -> BenchResult<()> {
    match command.kind {
        BenchKind::Engine(args) => engine(&args),
        BenchKind::Pe(args) => run_pe(&args).map(|_| ()),
        BenchKind::Ycsb(args) => run_ycsb(&args).map(|_| ()),
    }
}
fn engine(args: &EngineArgs) -> BenchResult<()> {
    let backend: Box<dyn Backend> = if args.memory {
        Box::new(MemoryBackend::new())
    } else {
        Box::new(strata_bench::StrataBackend::new())
    };
    let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
    // With --json, stdout carries only JSON lines and the table moves to stderr.
    let mut sinks = if args.bench.json {
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
    run_benchmark(&[backend.as_ref()], &args.bench, &mut sinks).map(|_| ())
}

#[cfg(test)]
mod tests {
    use clap::{Args, Command};
    use strata_bench::pe::PeWorkload;
    use strata_bench::Workload;

    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn bench_help_names_every_workload_pe_and_engine_run() {
        let mut bench = BenchCommand::augment_args(Command::new("bench"));
        // `strata bench --help`: one line per benchmark, naming its workloads.
        let overview = words(&bench.render_help().to_string());
        let pe = bench.find_subcommand_mut("pe").unwrap();
        let pe_help = words(&pe.render_long_help().to_string());
        for &w in PeWorkload::ALL {
            assert!(
                overview.iter().any(|x| x == w.name()),
                "bench --help lacks {w:?}"
            );
            assert!(
                pe_help.iter().any(|x| x == w.name()),
                "bench pe --help lacks {w:?}"
            );
        }
        for w in Workload::ALL {
            assert!(
                overview.iter().any(|x| x == w.as_str()),
                "bench --help lacks {w:?}"
            );
        }
    }
}
