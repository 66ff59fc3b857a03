//! The background threads: each serves one lane of the scheduler (`lanes.rs`), running the
//! region flushes or compactions queued there.

use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use super::host::EngineHost;
use super::lanes::{Lane, Scheduler};
use super::options::LaneThreads;
use crate::error::{Error, Result};
use crate::util::thread;

/// Starts every lane's threads. They hold only a weak reference to the host, so they never
/// keep a closed engine alive. If a thread cannot be started, the ones started are stopped.
pub fn spawn(
    host: &Weak<EngineHost>,
    scheduler: &Arc<Scheduler>,
    threads: LaneThreads,
) -> Result<Vec<JoinHandle<()>>> {
    let mut handles = Vec::new();
    for lane in Lane::ALL {
        for n in 0..threads.of(lane) {
            let (weak, lanes) = (Weak::clone(host), Arc::clone(scheduler));
            let name = format!("strata-{}-{n}", thread_name(lane));
            let started = thread::spawn(name, move || serve(&weak, &lanes, lane));
            match started {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    stop(scheduler, handles);
                    return Err(Error::io("<background thread>", e));
                }
            }
        }
    }
    Ok(handles)
}

/// Short enough for the 15 bytes Linux keeps of a thread name: `strata-compL-0`.
fn thread_name(lane: Lane) -> &'static str {
    match lane {
        Lane::Flush => "flush",
        Lane::SmallCompaction => "compS",
        Lane::LargeCompaction => "compL",
    }
}

/// Stops the lanes and waits for every thread to finish its current task.
pub fn stop(scheduler: &Scheduler, handles: Vec<JoinHandle<()>>) {
    scheduler.stop();
    for handle in handles {
        if handle.join().is_err() {
            tracing::error!("a background thread panicked");
        }
    }
}

fn serve(host: &Weak<EngineHost>, scheduler: &Scheduler, lane: Lane) {
    while let Some(task) = scheduler.next(lane) {
        let Some(host) = host.upgrade() else {
            return;
        };
        let Some(region) = host.regions.get(task.region) else {
            continue; // closed since it was queued
        };
        let result = match lane {
            Lane::Flush => region.flush(),
            Lane::SmallCompaction | Lane::LargeCompaction => region.compact(false).map(|_| ()),
        };
        if let Err(e) = result {
            tracing::error!(region = task.region, lane = lane.label(), error = %e, "background task failed");
        }
    }
}
