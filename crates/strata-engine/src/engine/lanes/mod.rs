//! The queues of background work: a flush lane and two compaction lanes, each served by its
//! own threads (`worker.rs`). A flush therefore never waits behind a compaction, and a small
//! compaction never waits behind a large one: HBase's flusher threads and its small and large
//! compaction pools (`hbase.regionserver.thread.compaction.small` / `.large`), leveldb's
//! "flush the immutable memtable first".
//!
//! Every lane exists once per *tier*: a storage type the volumes have (`host.rs` picks a
//! task's tier from where its files will be written). Work writing to a slow device then
//! occupies only that device's threads, and a flush to the SSD never waits for a thread
//! stuck behind an HDD (seed 000: one slow HDD operation held up work on fast storage).
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

    /// The lanes holding the same kind of work (a region is queued once per kind).
    fn same_kind(self) -> &'static [Lane] {
        match self {
            Lane::Flush => &[Lane::Flush],
            Lane::SmallCompaction | Lane::LargeCompaction => {
                &[Lane::SmallCompaction, Lane::LargeCompaction]
            }
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

/// Which queue a task waits in: its lane, in one tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queue {
    pub lane: Lane,
    /// Index of the tier (storage type) among the scheduler's tiers.
    pub tier: usize,
}

#[cfg(test)]
impl Queue {
    /// `lane` of tier 0, the only tier with one storage type.
    pub fn first(lane: Lane) -> Self {
        Queue { lane, tier: 0 }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Per tier, one queue per lane, in [`Lane::ALL`] order.
    queues: Vec<[VecDeque<u64>; 3]>,
    running: Vec<[u64; 3]>,
    /// Regions with a flush running, in any tier.
    flushing: HashSet<u64>,
    /// Regions with a compaction running, in either compaction lane of any tier.
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

    /// Whether the same kind of work on `region` waits already, in any tier.
    fn is_queued(&self, lane: Lane, region: u64) -> bool {
        self.queues.iter().any(|tier| {
            lane.same_kind()
                .iter()
                .any(|l| tier[l.index()].contains(&region))
        })
    }

    /// Takes the queue's first task whose region is not busy with the same kind of work.
    fn take(&mut self, queue: Queue) -> Option<u64> {
        let lane = queue.lane.index();
        let waiting = &self.queues.get(queue.tier)?[lane];
        let busy = match queue.lane {
            Lane::Flush => &self.flushing,
            Lane::SmallCompaction | Lane::LargeCompaction => &self.compacting,
        };
        let at = waiting.iter().position(|r| !busy.contains(r))?;
        let region = self.queues[queue.tier][lane].remove(at)?;
        self.busy(queue.lane).insert(region);
        self.running[queue.tier][lane] += 1;
        Some(region)
    }
}

/// The lanes' queues, shared by the requesters and the background threads.
#[derive(Debug)]
pub struct Scheduler {
    state: Mutex<State>,
    /// Signalled on every new task, finished task and stop; every waiting thread re-checks
    /// its own queue (tasks are rare, threads few).
    changed: Condvar,
    enabled: bool,
}

impl Scheduler {
    /// Empty lanes for `tiers` tiers (at least one); disabled ones drop every task (no
    /// background work).
    pub fn new(enabled: bool, tiers: usize) -> Self {
        let tiers = tiers.max(1);
        let state = State {
            queues: (0..tiers).map(|_| Default::default()).collect(),
            running: vec![[0; 3]; tiers],
            ..State::default()
        };
        Scheduler {
            state: Mutex::new(state),
            changed: Condvar::new(),
            enabled,
        }
    }

    /// How many tiers the lanes exist in.
    pub fn tiers(&self) -> usize {
        self.state.lock().queues.len()
    }

    /// True if a compaction of `region` would be queued now (not one waiting already):
    /// lets the caller skip working out which compaction queue it belongs to.
    pub fn wants_compaction(&self, region: u64) -> bool {
        let state = self.state.lock();
        self.enabled && !state.stopped && !state.is_queued(Lane::SmallCompaction, region)
    }

    /// Queues work on `region` in `queue`, unless the same kind of work on it is waiting
    /// already (in any tier, and in either compaction lane for a compaction). A tier out
    /// of range is the last one.
    pub fn push(&self, queue: Queue, region: u64) {
        if !self.enabled {
            return;
        }
        let mut state = self.state.lock();
        let tier = queue.tier.min(state.queues.len().saturating_sub(1));
        if !state.stopped && !state.is_queued(queue.lane, region) {
            state.queues[tier][queue.lane.index()].push_back(region);
            self.changed.notify_all();
        }
    }

    /// Waits for the next task of `queue`; `None` once stopped. The region stays busy in
    /// that kind of work until the returned task is dropped.
    pub fn next(&self, queue: Queue) -> Option<RunningTask<'_>> {
        let mut state = self.state.lock();
        loop {
            if state.stopped {
                return None;
            }
            if let Some(region) = state.take(queue) {
                return Some(RunningTask {
                    scheduler: self,
                    queue,
                    region,
                });
            }
            self.changed.wait(&mut state);
        }
    }

    fn finish(&self, queue: Queue, region: u64) {
        let mut state = self.state.lock();
        state.busy(queue.lane).remove(&region);
        if let Some(running) = state.running.get_mut(queue.tier) {
            running[queue.lane.index()] -= 1;
        }
        // A task of the same region may have been held back while this one ran.
        self.changed.notify_all();
    }

    /// Waiting and running tasks of every queue: tier by tier, lanes in [`Lane::ALL`] order.
    pub fn load(&self) -> Vec<(Queue, LaneLoad)> {
        let state = self.state.lock();
        let mut loads = Vec::new();
        for (tier, queues) in state.queues.iter().enumerate() {
            for lane in Lane::ALL {
                let load = LaneLoad {
                    queued: queues[lane.index()].len() as u64,
                    running: state.running[tier][lane.index()],
                };
                loads.push((Queue { lane, tier }, load));
            }
        }
        loads
    }

    /// Stops every lane: waiting tasks are dropped, threads exit after their current task.
    pub fn stop(&self) {
        let mut state = self.state.lock();
        state.stopped = true;
        for tier in state.queues.iter_mut() {
            tier.iter_mut().for_each(VecDeque::clear);
        }
        self.changed.notify_all();
    }
}

/// A task taken from a queue; its region counts as busy until this is dropped (even if the
/// task panicked).
#[derive(Debug)]
pub struct RunningTask<'a> {
    scheduler: &'a Scheduler,
    pub queue: Queue,
    pub region: u64,
}

impl Drop for RunningTask<'_> {
    fn drop(&mut self) {
        self.scheduler.finish(self.queue, self.region);
    }
}

#[cfg(test)]
mod tests;
