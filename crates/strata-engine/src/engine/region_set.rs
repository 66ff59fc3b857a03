//! The engine's regions: the open ones, the WAL edits of those not yet opened since the
//! restart, the retired ones whose files may still be read, and the references of closed
//! ones. The jobs that look across regions live here, never in a region: how far each
//! shared WAL may be truncated, which region pins it, which holds the most memory, which need a
//! compaction, and which retired directories nothing reads any more.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::wal_flush_policy;
use crate::error::Result;
use crate::fs::Volumes;
use crate::region::{region_dir, Region};
use crate::wal::{WalEdit, WalGroups};

/// Every region the engine knows of, by id.
#[derive(Default)]
pub struct RegionSet {
    /// Open regions. The engine owns them until `close_region` or `close`.
    open: RwLock<HashMap<u64, Arc<Region>>>,
    /// WAL edits of regions not opened since the restart.
    recovered: Mutex<HashMap<u64, Vec<WalEdit>>>,
    /// Regions retired by a split or merge whose files may still be referenced.
    retired: Mutex<HashSet<u64>>,
    /// The references of regions closed but not dropped (a schema change reopens them):
    /// their parents' files must outlive the close.
    closed_refs: Mutex<HashMap<u64, Vec<String>>>,
}

impl RegionSet {
    /// No region open yet; `recovered` holds the replayed WAL's edits by region.
    pub fn new(recovered: HashMap<u64, Vec<WalEdit>>) -> Self {
        RegionSet {
            recovered: Mutex::new(recovered),
            ..RegionSet::default()
        }
    }

    /// The open region `id`, if any.
    pub fn get(&self, id: u64) -> Option<Arc<Region>> {
        self.open.read().get(&id).cloned()
    }

    /// Every open region.
    pub fn all(&self) -> Vec<Arc<Region>> {
        self.open.read().values().cloned().collect()
    }

    /// Takes the recovered WAL edits of region `id`, to replay as it opens.
    pub fn take_recovered(&self, id: u64) -> Vec<WalEdit> {
        self.recovered.lock().remove(&id).unwrap_or_default()
    }

    /// Adds a region just opened: its references count through it from now on. Both sets
    /// change under the `closed_refs` lock, which `collect_retired` holds while it reads
    /// them, so a region is never missing from both.
    pub fn add(&self, region: Arc<Region>) {
        let mut closed = self.closed_refs.lock();
        closed.remove(&region.id());
        self.open.write().insert(region.id(), region);
    }

    /// Takes a region out of the open set; its references move to `closed_refs` in the same
    /// step, so a concurrent `collect_retired` never deletes a parent it still needs (found
    /// by the embedded API's tests: split twice, then alter the table).
    pub fn close(&self, region: &Region) {
        let mut closed = self.closed_refs.lock();
        closed.insert(region.id(), region.referenced_paths());
        self.open.write().remove(&region.id());
        region.forget_cached_rows();
    }

    /// Forgets region `id` entirely (its table was dropped).
    pub fn forget(&self, id: u64) {
        self.recovered.lock().remove(&id);
        let open = self.open.write().remove(&id);
        self.closed_refs.lock().remove(&id);
        if let Some(region) = open {
            region.forget_cached_rows();
        }
    }

    /// Takes region `id` out of service after its split or merge committed; its files stay
    /// until nothing references them.
    pub fn retire(&self, id: u64) {
        let open = self.open.write().remove(&id);
        self.recovered.lock().remove(&id);
        self.retired.lock().insert(id);
        if let Some(region) = open {
            region.forget_cached_rows();
        }
    }

    /// Retires every region of `on_disk` not among `live`, and forgets the recovered edits
    /// of regions not among `live`.
    pub fn retire_all_except(&self, live: &HashSet<u64>, on_disk: &[u64]) {
        self.recovered.lock().retain(|id, _| live.contains(id));
        let mut retired = self.retired.lock();
        retired.extend(on_disk.iter().filter(|id| !live.contains(id)));
    }

    /// Ids of the retired regions whose files are still referenced, in order.
    pub fn retired_ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.retired.lock().iter().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// Closes every region at once (the engine closes).
    pub fn clear(&self) {
        self.open.write().clear();
    }

    /// Deletes the WAL segments that no region needs any more, log by log: every edit
    /// below the oldest unflushed one of the regions the log holds, open or still to be
    /// opened. A group's segments thus go as its own regions flush, whatever the regions
    /// of other groups still need.
    pub fn truncate_wal(&self, wal: &WalGroups, last_seq: u64) {
        // `last_seq` was read before the regions: a write that gets its id later is above.
        let mut unflushed: Vec<(u64, u64)> = self
            .all()
            .iter()
            .filter_map(|r| r.min_unflushed_seq().map(|seq| (r.id(), seq)))
            .collect();
        unflushed.extend(
            self.recovered
                .lock()
                .iter()
                .filter_map(|(&id, edits)| edits.iter().map(|e| e.seq).min().map(|seq| (id, seq))),
        );
        for log in 0..wal.log_count() {
            let min_unflushed = unflushed
                .iter()
                .filter(|&&(region, _)| wal.holds(log, region))
                .map(|&(_, seq)| seq)
                .min()
                .unwrap_or(last_seq + 1);
            if let Err(e) = wal.mark_flushed(log, min_unflushed) {
                tracing::warn!(log, error = %e, "could not delete flushed WAL segments");
            }
        }
    }

    /// The regions whose flush would free the oldest WAL segments, one per log that has
    /// too many ([`wal_flush_policy`]).
    pub fn regions_pinning_the_wal(&self, wal: &WalGroups) -> Vec<u64> {
        let regions = self.all();
        let mut pinning: Vec<u64> = (0..wal.log_count())
            .filter_map(|log| {
                let held: Vec<Arc<Region>> = regions
                    .iter()
                    .filter(|r| wal.holds(log, r.id()))
                    .cloned()
                    .collect();
                wal_flush_policy::region_to_flush(wal.segments(log), &held)
            })
            .collect();
        pinning.sort_unstable();
        pinning.dedup();
        pinning
    }

    /// The region holding the most memstore bytes: the one to flush under memory pressure.
    pub fn largest_memstore(&self) -> Option<u64> {
        self.all()
            .iter()
            .max_by_key(|r| r.memstore_bytes())
            .map(|r| r.id())
    }

    /// The open regions with enough files (or references) for a compaction.
    pub fn needing_compaction(&self) -> Vec<u64> {
        let regions = self.all();
        regions
            .iter()
            .filter(|r| r.needs_compaction())
            .map(|r| r.id())
            .collect()
    }

    /// Deletes the directories of retired regions that no open or closed region references.
    pub fn collect_retired(&self, volumes: &Volumes) -> Result<()> {
        // Lock order: retired, then the region sets, as everywhere this runs.
        let mut retired = self.retired.lock();
        let referenced = self.referenced_paths();
        let doomed: Vec<u64> = retired
            .iter()
            .copied()
            .filter(|id| {
                let dir = region_dir(*id);
                !referenced.iter().any(|p| Path::new(p).starts_with(&dir))
            })
            .filter(|id| !self.open.read().contains_key(id))
            .collect();
        for id in doomed {
            remove_region_dirs(volumes, id)?;
            tracing::info!(region = id, "removed a retired region's files");
            retired.remove(&id);
        }
        Ok(())
    }

    /// Every parent file an open or closed region references.
    fn referenced_paths(&self) -> Vec<String> {
        let closed = self.closed_refs.lock();
        let mut referenced: Vec<String> = self
            .all()
            .iter()
            .flat_map(|r| r.referenced_paths())
            .collect();
        referenced.extend(closed.values().flatten().cloned());
        referenced
    }
}

/// Deletes a region's directories on every volume.
pub fn remove_region_dirs(volumes: &Volumes, id: u64) -> Result<()> {
    for volume in volumes.list() {
        let dir = volumes.resolve(&volume.name, &region_dir(id))?;
        volumes.fs().remove_dir_all(&dir)?;
    }
    Ok(())
}
