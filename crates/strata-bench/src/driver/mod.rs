//! Runs one phase of a PE or YCSB workload: one connection per worker thread, the clock
//! started once every thread is connected, latencies recorded per operation type.

pub mod progress;
pub mod recorder;
pub mod report;

use crate::client::{Client, Target};
use crate::error::{BenchError, BenchResult};
use crate::workers::run_workers;
pub use recorder::Recorder;
pub use report::{OpReport, PhaseReport};

/// What a phase is called and how much it does.
#[derive(Debug, Clone)]
pub struct PhasePlan {
    /// e.g. `randomRead` or `ycsb-a run`.
    pub name: String,
    pub threads: usize,
    /// Operations over all threads, for the progress bar.
    pub total_ops: u64,
    /// No progress bar.
    pub quiet: bool,
}

/// Runs `work(thread_index, client, recorder)` on `plan.threads` threads and merges what
/// they recorded.
pub fn run_phase<F>(target: &dyn Target, plan: &PhasePlan, work: F) -> BenchResult<PhaseReport>
where
    F: Fn(usize, &mut dyn Client, &mut Recorder) -> BenchResult<()> + Sync,
{
    if plan.threads == 0 {
        return Err(BenchError::Config("--threads must be at least 1".into()));
    }
    let bar = progress::bar(&plan.name, plan.total_ops, plan.quiet);
    let (outcomes, secs) = run_workers(plan.threads, |index, line| {
        let client = target.connect();
        // Ready even after a failed connect, or the phase would never start; the error
        // is this worker's outcome.
        line.ready()?;
        let mut client = client?;
        let mut recorder = Recorder::new(bar.clone())?;
        work(index, client.as_mut(), &mut recorder)?;
        recorder.flush_progress();
        Ok(recorder)
    })?;
    bar.finish_and_clear();
    let mut total = Recorder::new(progress::hidden())?;
    for outcome in outcomes {
        total.merge(&outcome?)?;
    }
    Ok(PhaseReport::new(target.name(), plan, secs, &total))
}
