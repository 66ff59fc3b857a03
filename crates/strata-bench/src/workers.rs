//! The worker threads of one phase. Each gets ready on its own (opens its connection, say);
//! the clock starts once every one is ready, so thread start-up is not timed, and stops
//! when the last one ends. Threads are named and started through `util::thread`, so one
//! the OS refuses ends the phase with an error instead of a panic.

use parking_lot::{Condvar, Mutex};
use strata_runtime::{clock, thread};

use crate::error::{BenchError, BenchResult};

/// Where the workers wait for the phase to start.
#[derive(Default)]
pub struct StartLine {
    state: Mutex<LineState>,
    changed: Condvar,
}

#[derive(Default)]
struct LineState {
    ready: usize,
    /// `Some(true)` once the phase started, `Some(false)` once it was called off.
    started: Option<bool>,
}

impl StartLine {
    /// Tells the phase this worker is ready and waits for the start.
    /// `BenchError::CalledOff` when another worker could not be started.
    pub fn ready(&self) -> BenchResult<()> {
        let mut state = self.state.lock();
        state.ready += 1;
        self.changed.notify_all();
        while state.started.is_none() {
            self.changed.wait(&mut state);
        }
        match state.started {
            Some(true) => Ok(()),
            _ => Err(BenchError::CalledOff),
        }
    }

    fn wait_until_ready(&self, workers: usize) {
        let mut state = self.state.lock();
        while state.ready < workers {
            self.changed.wait(&mut state);
        }
    }

    fn start(&self, go: bool) {
        self.state.lock().started = Some(go);
        self.changed.notify_all();
    }
}

/// Runs `work(index, start_line)` on `workers` threads; each calls
/// [`StartLine::ready`] once it is set up, whether or not that went well, or the phase
/// never starts. Returns what each worker returned, and the seconds from the start until
/// the last one ended.
pub fn run_workers<R, F>(workers: usize, work: F) -> BenchResult<(Vec<BenchResult<R>>, f64)>
where
    R: Send,
    F: Fn(usize, &StartLine) -> BenchResult<R> + Sync,
{
    let line = StartLine::default();
    std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(workers);
        for index in 0..workers {
            let (line, work) = (&line, &work);
            let name = format!("strata-bench-{index}");
            match thread::spawn_scoped(scope, name, move || work(index, line)) {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    // The workers already started return at once; the scope joins them.
                    line.start(false);
                    return Err(BenchError::ThreadStart(e));
                }
            }
        }
        line.wait_until_ready(workers);
        // A benchmark measures real time: the tool is its own composition root.
        #[allow(clippy::disallowed_methods)]
        let clock = clock::system();
        line.start(true);
        let started = clock.now();
        let outcomes = handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| BenchError::WorkerPanicked)
                    .and_then(|outcome| outcome)
            })
            .collect();
        Ok((outcomes, clock.elapsed(started).as_secs_f64()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_worker_runs_once_after_all_are_ready() {
        let (outcomes, secs) = run_workers(4, |index, line| {
            line.ready()?;
            Ok(index * 10)
        })
        .unwrap();
        let values: Vec<usize> = outcomes.into_iter().map(Result::unwrap).collect();
        assert_eq!(values, vec![0, 10, 20, 30]);
        assert!(secs >= 0.0);
    }

    #[test]
    fn a_worker_error_is_its_own_outcome() {
        let (outcomes, _) = run_workers(2, |index, line| {
            line.ready()?;
            match index {
                0 => Ok(()),
                _ => Err(BenchError::Config("no".into())),
            }
        })
        .unwrap();
        assert!(outcomes[0].is_ok());
        assert!(matches!(outcomes[1], Err(BenchError::Config(_))));
    }

    #[test]
    fn a_called_off_line_releases_its_waiters() {
        let line = StartLine::default();
        line.start(false);
        assert!(matches!(line.ready(), Err(BenchError::CalledOff)));
    }
}
