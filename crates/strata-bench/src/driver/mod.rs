//! Runs one phase of a PE or YCSB workload: one connection per worker thread, the clock
//! started once every thread is connected, latencies recorded per operation type.

pub mod progress;
pub mod recorder;
pub mod report;

use std::sync::Barrier;

use crate::client::{Client, Target};
use crate::error::{BenchError, BenchResult};
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
    let barrier = Barrier::new(plan.threads + 1);
    let (outcomes, secs) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.threads)
            .map(|index| {
                let (barrier, work, bar) = (&barrier, &work, bar.clone());
                scope.spawn(move || {
                    let client = target.connect();
                    // Wait even after a failed connect, so the main thread is not stuck.
                    barrier.wait();
                    let mut client = client?;
                    let mut recorder = Recorder::new(bar)?;
                    work(index, client.as_mut(), &mut recorder)?;
                    recorder.flush_progress();
                    Ok::<_, BenchError>(recorder)
                })
            })
            .collect();
        barrier.wait();
        let clock = strata_engine::util::clock::system();
        let start = clock.now();
        let outcomes: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        (outcomes, clock.elapsed(start).as_secs_f64())
    });
    bar.finish_and_clear();
    let mut total = Recorder::new(progress::hidden())?;
    for outcome in outcomes {
        let recorder = outcome.map_err(|_| BenchError::WorkerPanicked)??;
        total.merge(&recorder)?;
    }
    Ok(PhaseReport::new(target.name(), plan, secs, &total))
}
