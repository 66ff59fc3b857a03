//! The background threads: each serves one lane of one tier of the scheduler (`lanes/`),
//! running the region flushes or compactions queued there.

use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use super::host::EngineHost;
use super::lanes::{Lane, Queue, Scheduler};
use super::options::LaneThreads;
use crate::error::{Error, Result};
use crate::util::thread;

/// Starts every lane's threads, `threads` of each lane in every tier. They hold only a weak
/// reference to the host, so they never keep a closed engine alive. If a thread cannot be
/// started, the ones started are stopped.
pub fn spawn(
    host: &Weak<EngineHost>,
    scheduler: &Arc<Scheduler>,
    threads: LaneThreads,
) -> Result<Vec<JoinHandle<()>>> {
    let mut handles = Vec::new();
    let queues = (0..scheduler.tiers()).flat_map(|tier| Lane::ALL.map(|lane| Queue { lane, tier }));
    for queue in queues {
        for n in 0..threads.of(queue.lane) {
            let (weak, lanes) = (Weak::clone(host), Arc::clone(scheduler));
            let name = thread_name(queue, n);
            let started = thread::spawn(name, move || serve(&weak, &lanes, queue));
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

/// Short enough for the 15 bytes Linux keeps of a thread name: `strata-compL-0` in the
/// first tier, `strata-compL1-0` in the second.
fn thread_name(queue: Queue, n: usize) -> String {
    let lane = match queue.lane {
        Lane::Flush => "flush",
        Lane::SmallCompaction => "compS",
        Lane::LargeCompaction => "compL",
    };
    match queue.tier {
        0 => format!("strata-{lane}-{n}"),
        tier => format!("strata-{lane}{tier}-{n}"),
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

fn serve(host: &Weak<EngineHost>, scheduler: &Scheduler, queue: Queue) {
    let lane = queue.lane;
    while let Some(task) = scheduler.next(queue) {
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
