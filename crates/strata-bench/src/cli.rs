//! Command-line options of `strata bench pe` and `strata bench ycsb`, and the code that turns
//! them into a target and runs the phases.

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::client::embedded::EmbeddedTarget;
use crate::client::grpc::GrpcTarget;
use crate::client::thrift::ThriftTarget;
use crate::client::{TableSpec, Target};
use crate::config::Workload;
use crate::driver::PhaseReport;
use crate::error::{BenchError, BenchResult};
use crate::pe::{self, PeWorkload};
use crate::target::DurabilityMode;
use crate::ycsb::{self, CoreWorkload, Distribution};

/// Largest value or field accepted, so a typo cannot ask for gigabytes per thread.
const MAX_VALUE_SIZE: usize = 16 << 20;

/// Which system to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetKind {
    /// Strata in this process (strata-db), on `--data-dir` or a temporary directory.
    Embedded,
    /// An HBase Thrift1 server (Strata or Apache HBase), buffered transport, binary protocol.
    Thrift,
    /// A Cloud Bigtable v2 gRPC server (Strata or the Bigtable emulator).
    Grpc,
}

/// `strata bench --help`'s line for `engine`. The workloads are named from [`Workload::ALL`]
/// (a test checks it holds every workload `--workloads` accepts) rather than by hand.
pub fn engine_about() -> String {
    let names: Vec<_> = Workload::ALL.iter().map(|w| w.as_str()).collect();
    format!(
        "db_bench-style engine benchmark ({}) with latency percentiles",
        names.join(", ")
    )
}

/// `strata bench --help`'s line for `pe`, naming the workloads from [`PeWorkload::ALL`].
pub fn pe_about() -> String {
    format!(
        "HBase PerformanceEvaluation-style workloads ({}) against the embedded, thrift or grpc \
         target",
        PeWorkload::names()
    )
}

/// Options shared by PE and YCSB.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    #[arg(long, value_enum, default_value_t = TargetKind::Embedded)]
    pub target: TargetKind,
    /// Server host (thrift and grpc targets).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Server port; by default 9090 for thrift and 50051 for grpc.
    #[arg(long)]
    pub port: Option<u16>,
    /// Thrift target: send each row's requests to the server `getTableRegions` names for
    /// its region (a cluster without the forwarding hop), as HBase's native client does.
    #[arg(long)]
    pub route_by_region: bool,
    /// Data directory of the embedded target (default: a temporary directory).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Bigtable project name used in table names (grpc target).
    #[arg(long, default_value = "strata")]
    pub project: String,
    /// Client threads, each with its own connection.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Rows per write call.
    #[arg(long, default_value_t = 1)]
    pub batch_size: usize,
    /// Pre-split a table the benchmark creates into this many regions (embedded, grpc).
    #[arg(long, default_value_t = 1)]
    pub presplit: u64,
    /// Write durability (embedded: any; thrift: `skip` turns the WAL off; grpc: not settable).
    #[arg(long, value_enum)]
    pub durability: Option<DurabilityMode>,
    /// Table name (`table` or `namespace:table`).
    #[arg(long)]
    pub table: Option<String>,
    /// Column family.
    #[arg(long)]
    pub family: Option<String>,
    /// Embedded target: a row cache of this many MiB, and ROW_CACHE on the family the
    /// benchmark creates (0, the default: off). `bench/row-cache.sh` runs on and off.
    #[arg(long, default_value_t = 0)]
    pub row_cache_mb: u64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Print one JSON object per phase on stdout (the table goes to stderr).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `strata bench pe`.
#[derive(Debug, Clone, Args)]
pub struct PeArgs {
    // No list of names here: clap's possible values come from `PeWorkload::ALL`, so the help
    // cannot leave a workload out (a hand-written list here once missed hotIncrement).
    /// Workloads to run, in order, under HBase PerformanceEvaluation's names (any case).
    #[arg(required = true, value_enum, ignore_case = true)]
    pub workloads: Vec<PeWorkload>,
    /// Rows per client thread (PE's --rows).
    #[arg(long, default_value_t = 1_048_576)]
    pub rows: u64,
    /// Rows the random workloads draw from [default: rows × threads], so reads can cover
    /// a table written with other --rows and --threads.
    #[arg(long)]
    pub key_rows: Option<u64>,
    /// Value size in bytes.
    #[arg(long, default_value_t = 1024)]
    pub value_size: usize,
    /// Keys per multiGet call.
    #[arg(long, default_value_t = 10)]
    pub multi_get: usize,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The phase of `strata bench ycsb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum YcsbPhase {
    /// Insert the records.
    Load,
    /// Run the workload's operation mix.
    Run,
    /// Load, then run.
    Both,
}

/// `strata bench ycsb`.
#[derive(Debug, Clone, Args)]
pub struct YcsbArgs {
    #[arg(value_enum)]
    pub phase: YcsbPhase,
    /// Core workload a, b, c, d, e or f.
    pub workload: String,
    /// recordcount.
    #[arg(long, alias = "records", default_value_t = 1000)]
    pub recordcount: u64,
    /// operationcount (over all threads).
    #[arg(long, alias = "operations", default_value_t = 1000)]
    pub operationcount: u64,
    /// fieldcount.
    #[arg(long, default_value_t = 10)]
    pub field_count: usize,
    /// fieldlength in bytes (`--value-size` is an alias).
    #[arg(long, alias = "value-size", default_value_t = 100)]
    pub field_length: usize,
    /// maxscanlength (workload E's scans are uniform in 1..=this).
    #[arg(long, default_value_t = 100)]
    pub max_scan_length: u64,
    /// Overrides the workload's request distribution.
    #[arg(long, value_enum)]
    pub distribution: Option<Distribution>,
    #[command(flatten)]
    pub common: CommonArgs,
}

fn resolve(common: &CommonArgs, default_port: u16) -> BenchResult<SocketAddr> {
    let port = common.port.unwrap_or(default_port);
    (common.host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| BenchError::Config(format!("cannot resolve {}:{port}: {e}", common.host)))?
        .next()
        .ok_or_else(|| BenchError::Config(format!("{} has no address", common.host)))
}

/// Opens the target that `common` names.
pub fn open_target(common: &CommonArgs, spec: TableSpec) -> BenchResult<Box<dyn Target>> {
    Ok(match common.target {
        TargetKind::Embedded => Box::new(EmbeddedTarget::open(
            common.data_dir.clone(),
            spec,
            common.row_cache_mb << 20,
        )?),
        TargetKind::Thrift => {
            let target = ThriftTarget::new(resolve(common, 9090)?, spec)?;
            match common.route_by_region {
                true => Box::new(target.routing_by_region()),
                false => Box::new(target),
            }
        }
        TargetKind::Grpc => Box::new(GrpcTarget::new(
            resolve(common, 50051)?,
            &common.project,
            spec,
        )?),
    })
}

fn check_common(common: &CommonArgs) -> BenchResult<()> {
    if common.threads == 0 || common.batch_size == 0 || common.presplit == 0 {
        return Err(BenchError::Config(
            "--threads, --batch-size and --presplit must be at least 1".into(),
        ));
    }
    if common.row_cache_mb > 0 && common.target != TargetKind::Embedded {
        return Err(BenchError::Config(
            "--row-cache-mb is for the embedded target (a server has [engine] row_cache_mb \
             and the family's ROW_CACHE)"
                .into(),
        ));
    }
    Ok(())
}

fn check_size(what: &str, size: usize) -> BenchResult<()> {
    if size == 0 || size > MAX_VALUE_SIZE {
        return Err(BenchError::Config(format!(
            "{what} must be between 1 and {MAX_VALUE_SIZE} bytes"
        )));
    }
    Ok(())
}

/// Prints a phase: the table on stdout, or JSON on stdout and the table on stderr.
pub fn print_report(report: &PhaseReport, json: bool) -> BenchResult<()> {
    let io = |e| BenchError::io(std::path::Path::new("<stdout>"), e);
    if json {
        report.write_table(&mut std::io::stderr())?;
        writeln!(std::io::stdout(), "{}", report.to_json()).map_err(io)
    } else {
        report.write_table(&mut std::io::stdout())
    }
}

/// Runs `strata bench pe`; returns the reports in order.
pub fn run_pe(args: &PeArgs) -> BenchResult<Vec<PhaseReport>> {
    check_common(&args.common)?;
    check_size("--value-size", args.value_size)?;
    let opts = pe::PeOptions {
        rows: args.rows,
        key_rows: args.key_rows,
        threads: args.common.threads,
        value_size: args.value_size,
        batch_size: args.common.batch_size,
        multi_get: args.multi_get,
        seed: args.common.seed,
        quiet: args.common.quiet,
    };
    let spec = TableSpec {
        table: args
            .common
            .table
            .clone()
            .unwrap_or_else(|| "TestTable".into()),
        family: args.common.family.clone().unwrap_or_else(|| "info".into()),
        split_keys: pe::run::split_keys(opts.key_space(), args.common.presplit),
        durability: args.common.durability,
    };
    let target = open_target(&args.common, spec)?;
    let mut reports = Vec::new();
    for &workload in &args.workloads {
        let report = pe::run(target.as_ref(), workload, &opts)?;
        print_report(&report, args.common.json)?;
        reports.push(report);
    }
    target.finish()?;
    Ok(reports)
}

/// YCSB's split points: `user` keys are spread evenly over the first digit after `user`.
fn ycsb_split_keys(regions: u64) -> Vec<Vec<u8>> {
    (1..regions.clamp(1, 10))
        .map(|i| format!("user{i}").into_bytes())
        .collect()
}

/// Runs `strata bench ycsb`; returns the reports in order.
pub fn run_ycsb(args: &YcsbArgs) -> BenchResult<Vec<PhaseReport>> {
    check_common(&args.common)?;
    check_size("--field-length", args.field_length)?;
    let workload: CoreWorkload = args.workload.parse()?;
    let opts = ycsb::YcsbOptions {
        records: args.recordcount,
        operations: args.operationcount,
        field_count: args.field_count,
        field_length: args.field_length,
        max_scan_length: args.max_scan_length,
        distribution: args.distribution,
        batch_size: args.common.batch_size,
        threads: args.common.threads,
        seed: args.common.seed,
        quiet: args.common.quiet,
    };
    let spec = TableSpec {
        table: args
            .common
            .table
            .clone()
            .unwrap_or_else(|| "usertable".into()),
        family: args
            .common
            .family
            .clone()
            .unwrap_or_else(|| "family".into()),
        split_keys: ycsb_split_keys(args.common.presplit),
        durability: args.common.durability,
    };
    let target = open_target(&args.common, spec)?;
    let mut reports = Vec::new();
    if args.phase != YcsbPhase::Run {
        reports.push(ycsb::load(target.as_ref(), &opts)?);
        print_report(&reports[reports.len() - 1], args.common.json)?;
    }
    if args.phase != YcsbPhase::Load {
        reports.push(ycsb::run(target.as_ref(), &workload, &opts)?);
        print_report(&reports[reports.len() - 1], args.common.json)?;
    }
    target.finish()?;
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use clap::{Args, Parser, ValueEnum};

    use super::*;

    /// `strata bench pe` on its own, as the strata binary mounts it.
    #[derive(Debug, Parser)]
    #[command(name = "pe")]
    struct Pe {
        #[command(flatten)]
        args: PeArgs,
    }

    /// The words of a help text: a name must appear whole ("scan" is not found in
    /// "scanRange10").
    fn words(text: &str) -> Vec<&str> {
        text.split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .collect()
    }

    #[test]
    fn pe_help_lists_every_workload_the_dispatcher_accepts() {
        let command = || PeArgs::augment_args(clap::Command::new("pe"));
        let short = command().render_help().to_string();
        let long = command().render_long_help().to_string();
        for &w in PeWorkload::ALL {
            // Accepted: clap hands the dispatcher this workload for its name, in any case.
            let parsed =
                Pe::try_parse_from(["pe", w.name().to_ascii_uppercase().as_str()]).unwrap();
            assert_eq!(parsed.args.workloads, vec![w]);
            // And listed: by name in `-h`, with its line of help in `--help`.
            assert!(
                words(&short).contains(&w.name()),
                "{} not in:\n{short}",
                w.name()
            );
            assert!(
                words(&long).contains(&w.name()),
                "{} not in:\n{long}",
                w.name()
            );
            assert!(
                long.contains(w.help()),
                "help of {} not in:\n{long}",
                w.name()
            );
            assert!(words(&pe_about()).contains(&w.name()), "{}", pe_about());
        }
        assert!(words(&long).contains(&"hotIncrement"), "{long}");
    }

    #[test]
    fn pe_refuses_a_name_it_does_not_list() {
        let err = Pe::try_parse_from(["pe", "randomReads"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue);
        assert!(
            Pe::try_parse_from(["pe"]).is_err(),
            "a workload is required"
        );
    }

    #[test]
    fn engine_about_names_every_workload_engine_accepts() {
        // `--workloads` parses with clap's derived ValueEnum; the about line and the
        // default come from Workload::ALL and as_str: the three must agree.
        let accepted: Vec<_> = Workload::value_variants()
            .iter()
            .map(|w| w.to_possible_value().unwrap().get_name().to_string())
            .collect();
        let listed: Vec<_> = Workload::ALL.iter().map(|w| w.as_str()).collect();
        assert_eq!(accepted, listed);
        let about = engine_about();
        for name in listed {
            assert!(words(&about).contains(&name), "{name} not in {about:?}");
        }
    }

    #[test]
    fn docs_bench_md_has_a_row_for_every_pe_workload() {
        let doc = include_str!("../../../docs/bench.md");
        for &w in PeWorkload::ALL {
            let cell = format!("`{}`", w.name());
            assert!(
                doc.lines().any(|l| l.starts_with('|') && l.contains(&cell)),
                "docs/bench.md has no table row for {cell}"
            );
        }
    }
}
