//! WAL groups (HBase's `multiwal`): the regions of a process split over several WALs, each
//! with its own segment directory, group commit and syncs, so one slow device holding a
//! group does not hold up the writes logged to the others.
//!
//! A region logs to group `region id mod groups` (HBase's "bounded" region grouping:
//! stable across restarts, and consecutive ids, as new regions get, land on different
//! groups). Each region's edits are therefore in one group, in seq order, and a group's
//! segments may be deleted once the regions logging to it have flushed them, whatever the
//! others still need.
//!
//! Besides the live groups, a process keeps *leftover* logs: group directories found at
//! open that no group writes to now (the group count went down, or a group's volume
//! changed). They are replayed like the others and deleted segment by segment once flushed.
//! The group count may therefore change between restarts; a region's edits may then be
//! in two logs, which is why each log remembers the regions replay found in it.
//!
//! Layout: `open` (where each group lives, and the directories found at open).

mod open;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::backend::WalBackend;
use super::local::LocalSegments;
use super::stats::{WalCounters, WalStats};
use super::Wal;
use crate::error::Result;

pub(crate) use open::open_groups;

/// Every WAL of the process: the live groups, then the leftover logs.
pub struct WalGroups {
    /// The live groups (index = group number); never empty.
    groups: Vec<Arc<Wal>>,
    /// Leftover logs: replayed segments only, never written to.
    leftovers: Vec<Leftover>,
    /// Each log's place and replayed regions: the groups', then the leftovers'.
    places: Vec<LogPlace>,
}

/// Where a log is and which regions replay found in it.
struct LogPlace {
    /// For operators; empty for a WAL that is not local segments.
    volume: String,
    dir: PathBuf,
    /// Regions whose edits replay found here.
    replayed: HashSet<u64>,
}

struct Leftover {
    segments: Arc<LocalSegments>,
    counters: Arc<WalCounters>,
}

/// One log's counters and place, for `/api/v1/wal`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WalGroupStats {
    /// The group number; `None` for a leftover directory (replayed, written no more).
    pub group: Option<usize>,
    /// The volume it is on (empty when the WAL is not local segments).
    pub volume: String,
    /// Its directory.
    pub dir: String,
    #[serde(flatten)]
    pub stats: WalStats,
}

impl WalGroups {
    /// One WAL for every region: a WAL backend (cluster mode's object stream), or tests
    /// that build a WAL themselves.
    pub fn single(wal: Arc<Wal>) -> Self {
        let place = LogPlace {
            volume: String::new(),
            dir: PathBuf::new(),
            replayed: HashSet::new(),
        };
        WalGroups {
            groups: vec![wal],
            leftovers: Vec::new(),
            places: vec![place],
        }
    }

    /// The number of live groups.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The group region `region` logs to.
    pub fn group_of(&self, region: u64) -> usize {
        // There is at least one group, and the remainder is below their number.
        (region % self.groups.len() as u64) as usize
    }

    /// The WAL region `region` logs to.
    pub fn for_region(&self, region: u64) -> &Wal {
        &self.groups[self.group_of(region)]
    }

    /// The number of logs (live groups, then leftovers), for the per-log jobs below.
    pub fn log_count(&self) -> usize {
        self.places.len()
    }

    /// True when log `log` may hold edits of region `region`: the group it logs to now,
    /// or a log replay found its edits in.
    pub fn holds(&self, log: usize, region: u64) -> bool {
        let live_group = log < self.groups.len() && self.group_of(region) == log;
        live_group || self.places[log].replayed.contains(&region)
    }

    /// Every edit below `min_unflushed_seq` of the regions log `log` holds is in
    /// SSTables: deletes the segments holding only such edits. Returns how many.
    pub fn mark_flushed(&self, log: usize, min_unflushed_seq: u64) -> Result<usize> {
        match self.groups.get(log) {
            Some(wal) => wal.mark_flushed(min_unflushed_seq),
            None => self.leftovers[log - self.groups.len()]
                .segments
                .mark_flushed(min_unflushed_seq),
        }
    }

    /// The segments log `log` keeps, for the flush policy that bounds replay.
    pub fn segments(&self, log: usize) -> u64 {
        self.log_stats(log).segments
    }

    /// Every log's counters added up: what the WAL reported before groups existed.
    pub fn stats(&self) -> WalStats {
        let mut total = WalStats::default();
        for log in 0..self.log_count() {
            total.add(&self.log_stats(log));
        }
        total
    }

    /// Each log's counters and place.
    pub fn group_stats(&self) -> Vec<WalGroupStats> {
        self.places
            .iter()
            .enumerate()
            .map(|(i, place)| WalGroupStats {
                group: (i < self.groups.len()).then_some(i),
                volume: place.volume.clone(),
                dir: place.dir.display().to_string(),
                stats: self.log_stats(i),
            })
            .collect()
    }

    /// Closes every group (final sync included); the first error is returned, after
    /// every group was closed.
    pub fn close(&self) -> Result<()> {
        let mut first_error = None;
        for wal in &self.groups {
            if let Err(e) = wal.close() {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    fn log_stats(&self, log: usize) -> WalStats {
        match self.groups.get(log) {
            Some(wal) => wal.stats(),
            None => self.leftovers[log - self.groups.len()].counters.snapshot(),
        }
    }
}

impl std::fmt::Debug for WalGroups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalGroups")
            .field("groups", &self.groups.len())
            .field("leftovers", &self.leftovers.len())
            .finish()
    }
}
