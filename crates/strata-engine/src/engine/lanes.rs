//! The queues of background work: a flush lane and two compaction lanes, each served by its
//! own threads (`worker.rs`). A flush therefore never waits behind a compaction, and a small
//! compaction never waits behind a large one: HBase's flusher threads and its small and large
//! compaction pools (`hbase.regionserver.thread.compaction.small` / `.large`), leveldb's
//! "flush the immutable memtable first".
//!
//! A region is queued at most once per kind of work (flush, compaction), and never runs two
//! flushes or two compactions at once: a task whose region is already busy with the same
//! kind of work stays queued, letting other regions' tasks pass, until that work ends.

use std::collections::{HashSet, VecDeque};

use parking_lot::{Condvar, Mutex};

/// A queue of background work and the threads that serve it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Memstore flushes: writers may be waiting for them.
    Flush,
    /// Compactions reading at most the throttle's bytes.
    SmallCompaction,
    /// Compactions reading more.
    LargeCompaction,
}

impl Lane {
    /// Every lane, flush first.
    pub const ALL: [Lane; 3] = [Lane::Flush, Lane::SmallCompaction, Lane::LargeCompaction];

    /// The lane's name in stats, metrics and thread names.
    pub fn label(self) -> &'static str {
        match self {
            Lane::Flush => "flush",
            Lane::SmallCompaction => "small_compaction",
            Lane::LargeCompaction => "large_compaction",
        }
    }

    fn index(self) -> usize {
        match self {
            Lane::Flush => 0,
            Lane::SmallCompaction => 1,
            Lane::LargeCompaction => 2,
        }
    }
}

/// One lane's figures, for operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LaneLoad {
    pub queued: u64,
    pub running: u64,
}

#[derive(Debug, Default)]
struct State {
    queues: [VecDeque<u64>; 3],
    running: [u64; 3],
    /// Regions with a flush running.
    flushing: HashSet<u64>,
    /// Regions with a compaction running, in either compaction lane.
    compacting: HashSet<u64>,
    stopped: bool,
}

impl State {
    fn busy(&mut self, lane: Lane) -> &mut HashSet<u64> {
        match lane {
            Lane::Flush => &mut self.flushing,
            Lane::SmallCompaction | Lane::LargeCompaction => &mut self.compacting,
        }
    }

    fn is_queued(&self, lane: Lane, region: u64) -> bool {
        match lane {
            Lane::Flush => self.queues[0].contains(&region),
            Lane::SmallCompaction | Lane::LargeCompaction => {
                self.queues[1].contains(&region) || self.queues[2].contains(&region)
            }
        }
    }

    /// Takes the lane's first task whose region is not busy with the same kind of work.
    fn take(&mut self, lane: Lane) -> Option<u64> {
        let queue = &self.queues[lane.index()];
        let busy = match lane {
            Lane::Flush => &self.flushing,
            Lane::SmallCompaction | Lane::LargeCompaction => &self.compacting,
        };
        let at = queue.iter().position(|r| !busy.contains(r))?;
        let region = self.queues[lane.index()].remove(at)?;
        self.busy(lane).insert(region);
        self.running[lane.index()] += 1;
        Some(region)
    }
}

/// The lanes' queues, shared by the requesters and the background threads.
#[derive(Debug, Default)]
pub struct Scheduler {
    state: Mutex<State>,
    /// Signalled on every new task, finished task and stop; every waiting thread re-checks
    /// its own lane (tasks are rare, threads few).
    changed: Condvar,
    enabled: bool,
}

impl Scheduler {
    /// Empty lanes; disabled ones drop every task (no background work).
    pub fn new(enabled: bool) -> Self {
        Scheduler {
            enabled,
            ..Scheduler::default()
        }
    }

    /// True if a compaction of `region` would be queued now (not one waiting already):
    /// lets the caller skip working out which compaction lane it belongs to.
    pub fn wants_compaction(&self, region: u64) -> bool {
        let state = self.state.lock();
        self.enabled && !state.stopped && !state.is_queued(Lane::SmallCompaction, region)
    }

    /// Queues work on `region` in `lane`, unless the same kind of work on it is waiting
    /// already (in either compaction lane, for a compaction).
    pub fn push(&self, lane: Lane, region: u64) {
        if !self.enabled {
            return;
        }
        let mut state = self.state.lock();
        if !state.stopped && !state.is_queued(lane, region) {
            state.queues[lane.index()].push_back(region);
            self.changed.notify_all();
        }
    }

    /// Waits for the next task of `lane`; `None` once stopped. The region stays busy in
    /// that kind of work until the returned task is dropped.
    pub fn next(&self, lane: Lane) -> Option<RunningTask<'_>> {
        let mut state = self.state.lock();
        loop {
            if state.stopped {
                return None;
            }
            if let Some(region) = state.take(lane) {
                return Some(RunningTask {
                    scheduler: self,
                    lane,
                    region,
                });
            }
            self.changed.wait(&mut state);
        }
    }

    fn finish(&self, lane: Lane, region: u64) {
        let mut state = self.state.lock();
        state.busy(lane).remove(&region);
        state.running[lane.index()] -= 1;
        // A task of the same region may have been held back while this one ran.
        self.changed.notify_all();
    }

    /// Waiting and running tasks of every lane, in [`Lane::ALL`] order.
    pub fn load(&self) -> [LaneLoad; 3] {
        let state = self.state.lock();
        Lane::ALL.map(|lane| LaneLoad {
            queued: state.queues[lane.index()].len() as u64,
            running: state.running[lane.index()],
        })
    }

    /// Stops every lane: waiting tasks are dropped, threads exit after their current task.
    pub fn stop(&self) {
        let mut state = self.state.lock();
        state.stopped = true;
        state.queues.iter_mut().for_each(VecDeque::clear);
        self.changed.notify_all();
    }
}

/// A task taken from a lane; its region counts as busy until this is dropped (even if the
/// task panicked).
#[derive(Debug)]
pub struct RunningTask<'a> {
    scheduler: &'a Scheduler,
    pub lane: Lane,
    pub region: u64,
}

impl Drop for RunningTask<'_> {
    fn drop(&mut self) {
        self.scheduler.finish(self.lane, self.region);
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // these tests race real threads in real time
mod tests {
    use super::*;

    #[test]
    fn tasks_are_deduplicated_per_kind_across_compaction_lanes() {
        let s = Scheduler::new(true);
        s.push(Lane::Flush, 1);
        s.push(Lane::Flush, 1);
        s.push(Lane::SmallCompaction, 1);
        s.push(Lane::LargeCompaction, 1);
        assert!(!s.wants_compaction(1));
        assert!(s.wants_compaction(2));
        let load = s.load();
        assert_eq!((load[0].queued, load[1].queued, load[2].queued), (1, 1, 0));
    }

    #[test]
    fn a_busy_region_waits_while_other_regions_pass() {
        let s = Scheduler::new(true);
        s.push(Lane::SmallCompaction, 1);
        let first = s.next(Lane::SmallCompaction).unwrap();
        assert_eq!(first.region, 1);
        // Region 1 is compacting: its next compaction waits, in the other lane too.
        s.push(Lane::LargeCompaction, 1);
        s.push(Lane::LargeCompaction, 2);
        let other = s.next(Lane::LargeCompaction).unwrap();
        assert_eq!(other.region, 2, "region 2 passed the busy region 1");
        // A flush of the compacting region is not held back.
        s.push(Lane::Flush, 1);
        assert_eq!(s.next(Lane::Flush).unwrap().region, 1);
        assert_eq!(
            s.load()[2],
            LaneLoad {
                queued: 1,
                running: 1
            }
        );
        drop(first);
        drop(other);
        assert_eq!(s.next(Lane::LargeCompaction).unwrap().region, 1);
    }

    #[test]
    fn a_waiting_thread_wakes_for_its_lane_and_for_stop() {
        let s = std::sync::Arc::new(Scheduler::new(true));
        let waiter = {
            let s = std::sync::Arc::clone(&s);
            std::thread::spawn(move || {
                let first = s.next(Lane::Flush).map(|t| t.region);
                (first, s.next(Lane::Flush).is_none())
            })
        };
        s.push(Lane::SmallCompaction, 7); // another lane's task does not take the waiter
        std::thread::sleep(std::time::Duration::from_millis(20));
        s.push(Lane::Flush, 9);
        std::thread::sleep(std::time::Duration::from_millis(20));
        s.stop();
        assert_eq!(waiter.join().unwrap(), (Some(9), true));
        assert_eq!(s.load()[1].queued, 0, "stop drops waiting tasks");
    }

    #[test]
    fn a_disabled_scheduler_queues_nothing() {
        let s = Scheduler::new(false);
        s.push(Lane::Flush, 1);
        assert!(!s.wants_compaction(1));
        assert_eq!(s.load()[0].queued, 0);
    }
}
