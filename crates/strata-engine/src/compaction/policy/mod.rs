//! Compaction file selection for minor compactions, in the manner of HBase's exploring
//! policy: look at every contiguous run of files that could be compacted together and
//! pick the one that removes the most files for the least rewriting.
//!
//! Runs are contiguous in age order so that the compacted output can take the place of
//! its inputs without reordering the store's files (their relative age decides which of
//! two equal cells is newer).
//!
//! A run is *in ratio* when no file in it is larger than `ratio` times the sum of the
//! others: compacting a big file with a few tiny ones rewrites a lot of bytes to remove few
//! files, which is the write amplification the ratio exists to bound. Files smaller than
//! `min_compact_size` are exempt (they are cheap to rewrite), and files larger than
//! `max_compact_size` are never picked by a minor compaction.

use std::ops::Range;

/// One store file as seen by the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateFile {
    /// The file's number in the manifest, to map a selection back to files.
    pub file_number: u64,
    /// The file's size in bytes.
    pub size: u64,
}

/// Tuning of minor compaction selection. Defaults are HBase's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactionConfig {
    /// Fewest files a minor compaction takes (values below 2 act as 2).
    pub min_files: usize,
    /// Most files a minor compaction takes.
    pub max_files: usize,
    /// Largest allowed size of one file relative to the rest of its run.
    pub ratio: f64,
    /// The ratio used off-peak (see [`CompactionConfig::off_peak`]).
    pub off_peak_ratio: f64,
    /// Files below this size pass the ratio check unconditionally.
    pub min_compact_size: u64,
    /// Files above this size are never picked for a minor compaction.
    pub max_compact_size: u64,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        CompactionConfig {
            min_files: 3,
            max_files: 10,
            ratio: 1.2,
            off_peak_ratio: 5.0,
            min_compact_size: 16 << 20,
            max_compact_size: u64::MAX,
        }
    }
}

impl CompactionConfig {
    /// This configuration with the off-peak ratio in force: during quiet hours the store
    /// can afford to rewrite more bytes per removed file.
    pub fn off_peak(&self) -> Self {
        CompactionConfig {
            ratio: self.off_peak_ratio,
            ..*self
        }
    }

    /// The (min, max) run lengths to consider.
    fn run_lengths(&self) -> (usize, usize) {
        (self.min_files.max(2), self.max_files)
    }
}

/// A contiguous run of files chosen for compaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Index of the first (oldest) selected file in the candidate slice.
    pub start: usize,
    /// One past the index of the last selected file.
    pub end: usize,
    /// Sum of the selected files' sizes.
    pub total_size: u64,
    /// True when no run was in ratio and this run was taken only because the store is at
    /// its blocking file count.
    pub forced: bool,
}

impl Selection {
    /// The selected indices.
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    /// Number of selected files.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// The file numbers of the selected files.
    #[cfg(test)]
    pub fn file_numbers(&self, files: &[CandidateFile]) -> Vec<u64> {
        files[self.range()].iter().map(|f| f.file_number).collect()
    }
}

/// True if no file in `run` (whose sizes sum to `total`) is larger than the ratio allows.
pub fn in_ratio(run: &[CandidateFile], total: u64, cfg: &CompactionConfig) -> bool {
    run.iter().all(|f| {
        f.size < cfg.min_compact_size
            || f.size as f64 <= cfg.ratio * total.saturating_sub(f.size) as f64
    })
}

/// Chooses files for a minor compaction from `files` (oldest first), or `None`.
///
/// Among the in-ratio runs of `min_files..=max_files` files, it prefers more files, then a
/// smaller total size, then older files. If none is in ratio and `mid_flush_blocking`
/// (the store has so many files that flushes are blocked), it falls back to the
/// `min_files`-file run with the smallest total, ratio notwithstanding, so the store can
/// make progress.
pub fn select_minor(
    files: &[CandidateFile],
    cfg: &CompactionConfig,
    mid_flush_blocking: bool,
) -> Option<Selection> {
    let (min_len, max_len) = cfg.run_lengths();
    if files.len() < min_len || max_len < min_len {
        return None;
    }
    let mut best: Option<Selection> = None;
    let mut smallest: Option<Selection> = None;
    for start in 0..files.len() {
        let mut total = 0u64;
        for end in start + 1..=files.len().min(start + max_len) {
            let size = files[end - 1].size;
            if size > cfg.max_compact_size {
                break; // every longer run from `start` contains this file too
            }
            total = total.saturating_add(size);
            let len = end - start;
            if len < min_len {
                continue;
            }
            let run = Selection {
                start,
                end,
                total_size: total,
                forced: false,
            };
            if len == min_len && smallest.as_ref().is_none_or(|s| total < s.total_size) {
                smallest = Some(Selection {
                    forced: true,
                    ..run.clone()
                });
            }
            if in_ratio(&files[start..end], total, cfg) && is_better(&run, best.as_ref()) {
                best = Some(run);
            }
        }
    }
    best.or(if mid_flush_blocking { smallest } else { None })
}

/// More files first, then fewer bytes; ties keep the earlier (older) run.
fn is_better(candidate: &Selection, best: Option<&Selection>) -> bool {
    match best {
        None => true,
        Some(b) => {
            candidate.len() > b.len()
                || (candidate.len() == b.len() && candidate.total_size < b.total_size)
        }
    }
}

#[cfg(test)]
mod tests;
