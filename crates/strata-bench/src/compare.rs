//! The top-level driver: runs one or more systems `--repeat` times, interleaving them run by
//! run so that a change in machine load hits every system alike, then prints medians and
//! ratios.

use std::io::Write;

use crate::config::BenchArgs;
use crate::error::BenchResult;
use crate::report::{medians, write_header, write_json, write_ratios, write_row};
use crate::runner::run_backend;
use crate::stats::PhaseResult;
use crate::target::Backend;

/// Where results go: the table always, JSON lines only with `--json`.
pub struct Sinks<'a> {
    pub table: &'a mut dyn Write,
    pub json: &'a mut dyn Write,
}

/// Everything one invocation measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `runs[system][run]` is one run's results, phase by phase.
    pub runs: Vec<Vec<Vec<PhaseResult>>>,
    /// `medians[system]`, phase by phase (equal to the single run when `--repeat 1`).
    pub medians: Vec<Vec<PhaseResult>>,
}

/// Runs every system in `backends` with the same flags and reports as it goes.
pub fn run_benchmark(
    backends: &[&dyn Backend],
    args: &BenchArgs,
    sinks: &mut Sinks<'_>,
) -> BenchResult<Outcome> {
    args.validate()?;
    write_header(sinks.table)?;
    let mut runs: Vec<Vec<Vec<PhaseResult>>> = vec![Vec::new(); backends.len()];
    for run in 1..=args.repeat {
        for (system, backend) in backends.iter().enumerate() {
            let results = run_backend(*backend, args, run)?;
            emit(sinks, &results, args)?;
            runs[system].push(results);
        }
    }
    let medians: Vec<Vec<PhaseResult>> = runs.iter().map(|r| medians(r)).collect();
    if args.repeat > 1 {
        writeln!(sinks.table, "\nmedians of {} runs:", args.repeat)
            .map_err(|e| crate::error::BenchError::io(std::path::Path::new("<output>"), e))?;
        write_header(sinks.table)?;
        for system in &medians {
            emit(sinks, system, args)?;
        }
    }
    if let [a, b, ..] = medians.as_slice() {
        write_ratios(sinks.table, a, b)?;
    }
    Ok(Outcome { runs, medians })
}

fn emit(sinks: &mut Sinks<'_>, results: &[PhaseResult], args: &BenchArgs) -> BenchResult<()> {
    for r in results {
        write_row(sinks.table, r)?;
        if args.json {
            write_json(sinks.json, r, args)?;
        }
    }
    sinks.table.flush().ok();
    Ok(())
}
