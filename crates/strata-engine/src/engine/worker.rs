//! The background thread that runs flushes and compactions, in the order they were asked
//! for, without duplicates.

use std::collections::VecDeque;
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use super::shared::Shared;

/// One unit of background work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    Flush(u64),
    Compact(u64),
}

#[derive(Debug, Default)]
struct QueueState {
    tasks: VecDeque<Task>,
    stopped: bool,
}

/// A deduplicating task queue.
#[derive(Debug, Default)]
pub struct WorkQueue {
    state: Mutex<QueueState>,
    ready: Condvar,
    enabled: bool,
}

impl WorkQueue {
    /// A queue; a disabled one drops every task (no background work).
    pub fn new(enabled: bool) -> Self {
        WorkQueue {
            enabled,
            ..WorkQueue::default()
        }
    }

    /// Queues `task` unless it is already waiting.
    pub fn push(&self, task: Task) {
        if !self.enabled {
            return;
        }
        let mut state = self.state.lock();
        if !state.stopped && !state.tasks.contains(&task) {
            state.tasks.push_back(task);
            self.ready.notify_one();
        }
    }

    fn pop(&self) -> Option<Task> {
        let mut state = self.state.lock();
        loop {
            if state.stopped {
                return None;
            }
            if let Some(task) = state.tasks.pop_front() {
                return Some(task);
            }
            self.ready.wait(&mut state);
        }
    }

    /// Waiting (flushes, compactions), for operators.
    pub fn queued(&self) -> (u64, u64) {
        let state = self.state.lock();
        let flushes = state
            .tasks
            .iter()
            .filter(|t| matches!(t, Task::Flush(_)))
            .count();
        (flushes as u64, (state.tasks.len() - flushes) as u64)
    }

    /// Stops the queue; the worker exits after its current task.
    pub fn stop(&self) {
        self.state.lock().stopped = true;
        self.ready.notify_all();
    }
}

/// Starts the worker thread. It holds only a weak reference, so it never keeps a closed
/// engine alive.
pub fn spawn(shared: Weak<Shared>, queue: Arc<WorkQueue>) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("strata-background".into())
        .spawn(move || {
            while let Some(task) = queue.pop() {
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                run(&shared, task);
            }
        })
}

fn run(shared: &Shared, task: Task) {
    let (region, result) = match task {
        Task::Flush(id) => (id, shared.region(id).map(|r| r.flush())),
        Task::Compact(id) => (id, shared.region(id).map(|r| r.compact(false).map(|_| ()))),
    };
    if let Some(Err(e)) = result {
        tracing::error!(region, ?task, error = %e, "background task failed");
    }
}
