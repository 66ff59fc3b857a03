//! Compacting a store: merge some (minor) or all (major) of its SSTables into one, dropping
//! what [`crate::compaction::rules`] allows, then swap the inputs for the output.
//!
//! Readers never wait on a compaction: they keep reading the view they started with, and the
//! input files are deleted only when the last such reader lets go.

use std::sync::Arc;

use super::file::StoreFile;
use super::view::StoreView;
use super::Store;
use crate::compaction::policy::{select_minor, CandidateFile, CompactionConfig};
use crate::compaction::rules::{CompactionFilter, CompactionRules};
use crate::error::Result;
use crate::iter::KvIter;
use crate::manifest::FileOrigin;
use crate::read::merge::MergingIter;
use crate::util::rate_limiter::RateLimiter;

/// What a compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionOutcome {
    pub major: bool,
    pub input_files: usize,
    pub input_bytes: u64,
    pub output_bytes: u64,
}

impl Store {
    /// Runs one compaction if there is work: all files when `major`, else the files the
    /// exploring policy picks. Returns `None` when nothing was worth compacting.
    pub fn compact(
        &self,
        major: bool,
        config: &CompactionConfig,
        blocking_files: usize,
        limiter: &RateLimiter,
        now_ms: i64,
        smallest_read_point: u64,
    ) -> Result<Option<CompactionOutcome>> {
        let _guard = self.compaction_lock.lock();
        if self.is_frozen() {
            return Ok(None);
        }
        let view = self.view();
        let Some(inputs) = self.pick_inputs(&view, major, config, blocking_files) else {
            return Ok(None);
        };
        // Compacting every file is a major compaction, whoever asked (as in HBase).
        let effective_major = inputs.len() == view.files.len();
        let output = self.merge_inputs(
            &inputs,
            effective_major,
            limiter,
            now_ms,
            smallest_read_point,
        )?;
        let outcome = CompactionOutcome {
            major: effective_major,
            input_files: inputs.len(),
            input_bytes: inputs.iter().map(|f| f.entry.size).sum(),
            output_bytes: output.as_ref().map_or(0, |f| f.entry.size),
        };
        self.install_compacted(&inputs, output)?;
        Ok(Some(outcome))
    }

    /// Bytes of the files a minor compaction would pick now (0 if none).
    pub fn compaction_input_bytes(&self, config: &CompactionConfig, blocking_files: usize) -> u64 {
        let view = self.view();
        self.pick_inputs(&view, false, config, blocking_files)
            .map_or(0, |inputs| inputs.iter().map(|f| f.entry.size).sum())
    }

    fn pick_inputs(
        &self,
        view: &StoreView,
        major: bool,
        config: &CompactionConfig,
        blocking_files: usize,
    ) -> Option<Vec<Arc<StoreFile>>> {
        if view.files.is_empty() {
            return None;
        }
        // A reference reads a parent's file, which can go only once no region references
        // it: rewriting every file of the store into its own is what frees it (as in HBase,
        // references force a compaction of the whole store).
        if major || view.files.iter().any(|f| f.is_reference()) {
            return Some(view.files.clone());
        }
        // The policy wants files oldest first; the view holds them newest first.
        let oldest_first: Vec<&Arc<StoreFile>> = view.files.iter().rev().collect();
        let candidates: Vec<CandidateFile> = oldest_first
            .iter()
            .enumerate()
            .map(|(i, f)| CandidateFile {
                file_number: i as u64,
                size: f.entry.size,
            })
            .collect();
        let blocking = view.files.len() >= blocking_files;
        let selection = select_minor(&candidates, config, blocking)?;
        Some(
            selection
                .range()
                .filter_map(|i| oldest_first.get(i).map(|f| Arc::clone(f)))
                .collect(),
        )
    }

    fn rules(&self, major: bool, now_ms: i64) -> CompactionRules {
        let family = self.family();
        CompactionRules {
            major,
            max_versions: family.max_versions,
            min_versions: family.min_versions,
            oldest_unexpired_ts: family
                .ttl_millis()
                .map_or(i64::MIN, |ttl| now_ms.saturating_sub(ttl)),
            keep_deleted_cells: family.keep_deleted_cells,
            smallest_read_point: u64::MAX,
        }
    }

    fn merge_inputs(
        &self,
        inputs: &[Arc<StoreFile>],
        major: bool,
        limiter: &RateLimiter,
        now_ms: i64,
        smallest_read_point: u64,
    ) -> Result<Option<Arc<StoreFile>>> {
        let sources: Vec<Box<dyn KvIter>> = inputs.iter().map(|f| f.iter(false)).collect();
        let mut merged = MergingIter::new(sources);
        merged.seek_to_first()?;
        let mut rules = self.rules(major, now_ms);
        rules.smallest_read_point = smallest_read_point;
        let mut filter = CompactionFilter::new(rules);
        let throttle = |bytes: u64| limiter.acquire(bytes);
        self.build_table(
            &mut merged,
            FileOrigin::Compaction,
            now_ms,
            &mut |k| filter.keep(k),
            Some(&throttle),
        )
    }

    fn install_compacted(
        &self,
        inputs: &[Arc<StoreFile>],
        output: Option<Arc<StoreFile>>,
    ) -> Result<()> {
        let is_input = |f: &Arc<StoreFile>| inputs.iter().any(|i| Arc::ptr_eq(i, f));
        let mut manifest = self.manifest.lock();
        let mut state = manifest.state().clone();
        state
            .files
            .retain(|e| !inputs.iter().any(|i| i.entry.file_number == e.file_number));
        if let Some(out) = &output {
            state.files.push(out.entry.clone());
        }
        if let Err(e) = manifest.commit(state) {
            // Deleted only if the commit surely did not land; otherwise the next open
            // finds it listed, or removes it as unlisted.
            match &output {
                Some(out) if !manifest.may_hold_uncommitted_state() => out.mark_obsolete(),
                _ => {}
            }
            return Err(e);
        }
        drop(manifest);
        let mut view = self.view.write();
        let mut next = view.successor();
        next.files.retain(|f| !is_input(f));
        if let Some(out) = output {
            next.files.push(out);
        }
        next.files
            .sort_by_key(|f| std::cmp::Reverse(f.entry.max_seq));
        *view = Arc::new(next);
        drop(view);
        for input in inputs {
            input.mark_obsolete();
        }
        Ok(())
    }
}
