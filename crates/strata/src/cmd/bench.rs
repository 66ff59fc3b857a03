//! `strata bench ...`: benchmarks.

use clap::{Args, Subcommand};
use strata_bench::cli::{run_pe, run_ycsb, PeArgs, YcsbArgs};
use strata_bench::{run_benchmark, Backend, BenchArgs, BenchResult, MemoryBackend, Sinks};

#[derive(Debug, Args)]
pub struct BenchCommand {
    #[command(subcommand)]
    kind: BenchKind,
}

#[derive(Debug, Subcommand)]
enum BenchKind {
    /// db_bench-style engine benchmark (fillseq, fillrandom, overwrite, readrandom,
    /// readrandom-uncached, seekrandom) with latency percentiles.
    Engine(EngineArgs),
    /// HBase PerformanceEvaluation-style workloads (sequentialWrite, randomWrite, randomRead,
    /// scan, scanRange10, scanRange100, increment, checkAndPut, multiGet) against the
    /// embedded, thrift or grpc target.
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
