//! Compacting a region: each store merges its files as its policy picks (or all of them).

use bytes::Bytes;

use super::stats::compaction_event;
use super::Region;
use crate::error::Result;
use crate::store::{CompactionOutcome, Store};

impl Region {
    /// Compacts every store: all files when `major`, else what the policy picks. Returns
    /// what ran, per family (a minor compaction that picked every file ran as a major one).
    pub fn compact(&self, major: bool) -> Result<Vec<(Bytes, CompactionOutcome)>> {
        let had_references = self.has_references();
        let mut outcomes = Vec::new();
        for (family, store) in &self.stores {
            let outcome = self.compact_store(store, major);
            // Even a failed compaction may have committed: writers re-check their counts.
            self.files_changed.notify();
            if let Some(outcome) = outcome? {
                outcomes.push((family.clone(), outcome));
            }
        }
        if had_references && !self.has_references() {
            // This region no longer reads its parents' files; the parents may now go.
            self.tell_host(|host| host.references_dropped(self.id));
        }
        Ok(outcomes)
    }

    fn compact_store(&self, store: &Store, major: bool) -> Result<Option<CompactionOutcome>> {
        let (clock, limits) = (&self.ctx.clock, &self.ctx.limits);
        let started = clock.now();
        let outcome = store.compact(
            major,
            &limits.compaction,
            limits.blocking_store_files,
            &self.ctx.rate_limiter,
            clock.now_millis(),
            // Reads take their files' views before their read point (`read.rs`), so
            // every read that can see this compaction's output reads at this point or later.
            self.mvcc.read_point(),
        )?;
        if let Some(outcome) = &outcome {
            let elapsed = clock.now() - started;
            let event = compaction_event(
                self.id,
                store.family_name(),
                outcome,
                elapsed,
                clock.now_millis(),
            );
            self.ctx.events.record(event);
        }
        Ok(outcome)
    }

    /// Bytes the stores' next background compaction would read, as things stand: how the
    /// scheduler tells a small compaction from a large one.
    pub fn compaction_input_bytes(&self) -> u64 {
        let limits = &self.ctx.limits;
        self.stores
            .values()
            .map(|s| s.compaction_input_bytes(&limits.compaction, limits.blocking_store_files))
            .sum()
    }

    /// True if some store has enough files for a minor compaction.
    pub fn needs_compaction(&self) -> bool {
        let min_files = self.ctx.limits.compaction.min_files;
        self.stores
            .values()
            .any(|s| s.file_count() >= min_files || s.has_references())
    }
}
