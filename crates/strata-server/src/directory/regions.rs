//! How regions are split and merged (when they split by themselves is `splitter.rs`).
//!
//! A split seals the parent (flush, refuse writes, flush the rest, stop compactions), writes
//! two daughter regions whose stores *reference* the parent's SSTables with the row ranges
//! `[start, split)` and `[split, end)`, opens them, and commits by writing the table's
//! catalog record once, listing the daughters instead of the parent. Then the service's
//! table state is swapped and the parent retired. Writes that meet the sealed parent are
//! refused before they touch the WAL and are routed again (see `rows/`), so they wait only
//! for the second flush and a few manifest and WAL syncs. A merge is the same with two
//! sources and one new region referencing both regions' files.
//!
//! Crash safety: the catalog record is the one commit point, written as one WAL record.
//! - Crash before it is durable: the catalog lists the parent, whose manifests the split
//!   never changed; every edit it acknowledged is in its SSTables or the WAL. The daughters'
//!   directories are in no catalog record and referenced by no live region, so the next
//!   open deletes them (`Engine::retire_all_except`).
//! - Crash after: the catalog lists the daughters, whose manifests were durable before the
//!   record was written. The parent took no write after its last flush, so its WAL edits
//!   are all in SSTables and are dropped; its directory stays while a daughter references it.
//!   So exactly one of {parent} and {daughters} is live after any crash.
//! - A failed catalog write may or may not be durable; the parent then stays sealed (writes
//!   refused) until a restart settles which side is live, rather than risk acknowledging
//!   writes on a region the catalog no longer lists.

use std::sync::Arc;

use bytes::Bytes;
use strata_engine::RowRange;
use strata_engine::{Region, RegionSpec};

use super::{same_regions, TableDirectory};
use crate::catalog::{RegionEntry, TableRecord};
use crate::error::{Result, ServiceError};
use crate::names::TableName;
use crate::table::{OpenRegion, RegionLocation, TableState};
use crate::table_changes::SplitAt;

/// Splits and merges of a directory's regions (see [`TableDirectory::region_changes`]).
pub struct RegionChanges<'a> {
    pub(super) dir: &'a TableDirectory,
}

impl RegionChanges<'_> {
    /// Splits a region in two; returns the daughters' ids.
    pub fn split(&self, table: &TableName, at: SplitAt) -> Result<(u64, u64)> {
        let started = self.dir.clock.now();
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(table)?;
        let idx = match &at {
            SplitAt::Region(id) => region_index(&state, *id)?,
            SplitAt::Key(key) => state
                .regions
                .partition_point(|r| r.entry.start_key <= *key)
                .saturating_sub(1),
        };
        let parent = &state.regions[idx];
        let parent_region = parent.local_or_unavailable(table)?;
        let split_row = match at {
            SplitAt::Key(key) => key,
            SplitAt::Region(_) => {
                parent_region.flush()?;
                Bytes::from(parent_region.mid_row().unwrap_or_default())
            }
        };
        let inside = split_row > parent.entry.start_key
            && (parent.entry.end_key.is_empty() || split_row < parent.entry.end_key);
        if !inside {
            return Err(ServiceError::InvalidArgument(format!(
                "no split point inside region {} ({:?})",
                parent.entry.id, split_row
            )));
        }
        let left = RegionEntry {
            id: self.dir.region_ids.allocate(),
            start_key: parent.entry.start_key.clone(),
            end_key: split_row.clone(),
        };
        let right = RegionEntry {
            id: self.dir.region_ids.allocate(),
            start_key: split_row,
            end_key: parent.entry.end_key.clone(),
        };
        let sources = [Arc::clone(parent_region)];
        let plan = vec![
            (left.clone(), vec![(0, range_of(&left))]),
            (right.clone(), vec![(0, range_of(&right))]),
        ];
        self.replace_regions(&state, idx..idx + 1, &sources, plan)?;
        tracing::info!(table = %table, parent = parent.entry.id, left = left.id, right = right.id, duration_ms = (self.dir.clock.now() - started).as_secs_f64() * 1e3, "region split");
        Ok((left.id, right.id))
    }

    /// Merges two adjacent regions into one; returns its id.
    pub fn merge(&self, table: &TableName, a: u64, b: u64) -> Result<u64> {
        let _admin = self.dir.lock_admin();
        let state = self.dir.table(table)?;
        let (ia, ib) = (region_index(&state, a)?, region_index(&state, b)?);
        let (first, second) = (ia.min(ib), ia.max(ib));
        if second != first + 1 {
            return Err(ServiceError::InvalidArgument(format!(
                "regions {a} and {b} are not adjacent"
            )));
        }
        let (ra, rb) = (&state.regions[first], &state.regions[second]);
        let merged = RegionEntry {
            id: self.dir.region_ids.allocate(),
            start_key: ra.entry.start_key.clone(),
            end_key: rb.entry.end_key.clone(),
        };
        let sources = [
            Arc::clone(ra.local_or_unavailable(table)?),
            Arc::clone(rb.local_or_unavailable(table)?),
        ];
        let plan = vec![(
            merged.clone(),
            vec![(0, range_of(&ra.entry)), (1, range_of(&rb.entry))],
        )];
        self.replace_regions(&state, first..second + 1, &sources, plan)?;
        tracing::info!(table = %table, a, b, merged = merged.id, "regions merged");
        Ok(merged.id)
    }

    /// Replaces `state.regions[replaced]` (the `sources`) by new regions, each referencing
    /// the listed sources' files within a row range. The caller holds the admin lock.
    fn replace_regions(
        &self,
        state: &TableState,
        replaced: std::ops::Range<usize>,
        sources: &[Arc<Region>],
        plan: Vec<(RegionEntry, Vec<(usize, RowRange)>)>,
    ) -> Result<()> {
        let families = &state.record.families;
        let mut sealed = Vec::new();
        for source in sources {
            if let Err(e) = source.seal() {
                sealed.iter().for_each(|r: &Arc<Region>| r.unseal());
                self.dir.changes.note();
                return Err(e.into());
            }
            sealed.push(Arc::clone(source));
        }
        let new_ids: Vec<u64> = plan.iter().map(|(e, _)| e.id).collect();
        let abandon = |e: ServiceError| {
            for id in &new_ids {
                self.dir.engine.retire_region(*id);
                if let Err(e) = self.dir.engine.remove_region_dirs(*id) {
                    tracing::warn!(region = id, error = %e, "could not remove an abandoned region");
                }
            }
            sources.iter().for_each(|r| r.unseal());
            self.dir.changes.note();
            e
        };
        let mut opened = Vec::new();
        for (entry, refs) in &plan {
            let refs: Vec<(Arc<Region>, RowRange)> = refs
                .iter()
                .map(|(i, range)| (Arc::clone(&sources[*i]), range.clone()))
                .collect();
            let open = self
                .dir
                .opener
                .claim(&state.name.to_string(), entry)
                .and_then(|()| {
                    Ok(self
                        .dir
                        .engine
                        .create_reference_region(entry.id, families, &refs)?)
                })
                .and_then(|()| {
                    Ok(self.dir.engine.open_region(RegionSpec {
                        id: entry.id,
                        families: families.clone(),
                    })?)
                });
            match open {
                Ok(region) => opened.push(OpenRegion {
                    entry: entry.clone(),
                    location: RegionLocation::Here(region),
                }),
                Err(e) => return Err(abandon(e)),
            }
        }
        let mut record: TableRecord = state.record.clone();
        let mut entries: Vec<RegionEntry> = state.regions.iter().map(|r| r.entry.clone()).collect();
        entries.splice(replaced.clone(), plan.iter().map(|(e, _)| e.clone()));
        record.regions = entries;
        crate::failpoints::exit_if_enabled("exit-before-regions-replaced");
        // The commit point. On failure the sources stay sealed: see the module comment.
        self.dir.catalog.put_table(&state.name, &record)?;
        crate::failpoints::exit_if_enabled("exit-after-regions-replaced");
        for (entry, _) in &plan {
            self.dir.opener.opened(&state.name.to_string(), entry);
        }
        let mut regions = same_regions(state);
        regions.splice(replaced, opened);
        self.dir
            .publish(TableState::new(state.name.clone(), record, regions));
        for source in sources {
            self.dir.engine.retire_region(source.id());
        }
        for id in new_ids {
            self.dir.engine.request_compaction(id);
        }
        self.dir.engine.collect_retired()?;
        Ok(())
    }

    /// Whether regions split on this server (cluster mode: only on the master).
    pub(crate) fn splits_here(&self) -> bool {
        self.dir.opener.splits_here()
    }

    /// Asks the server that splits regions to split region `id` of `table`.
    pub(crate) fn request_split(&self, table: &TableName, id: u64) {
        let Ok(state) = self.dir.table(table) else {
            return;
        };
        if let Some(open) = state.regions.iter().find(|r| r.entry.id == id) {
            self.dir
                .opener
                .request_split(&table.to_string(), &open.entry);
        }
    }

    /// The id of the region `at` names in `table`, and whether it is served here.
    pub fn locate_split(&self, table: &TableName, at: &SplitAt) -> Result<(u64, bool)> {
        let state = self.dir.table(table)?;
        let open = match at {
            SplitAt::Region(id) => state.regions.iter().find(|r| r.entry.id == *id),
            SplitAt::Key(key) => state.regions.get(state.region_index_for(key)),
        };
        let open = open.ok_or_else(|| {
            crate::error::ServiceError::InvalidArgument(format!("no such region in {table}"))
        })?;
        Ok((open.entry.id, open.local().is_some()))
    }
}

fn region_index(state: &TableState, id: u64) -> Result<usize> {
    state
        .regions
        .iter()
        .position(|r| r.entry.id == id)
        .ok_or_else(|| ServiceError::InvalidArgument(format!("table has no region {id}")))
}

fn range_of(entry: &RegionEntry) -> RowRange {
    RowRange {
        start: entry.start_key.to_vec(),
        end: entry.end_key.to_vec(),
    }
}
