//! What `strata check` found, gathered as it walks the data directory.

use std::path::Path;

use strata_engine::fs::FileSystem;

/// Everything the check found.
#[derive(Debug, Default)]
pub struct Report {
    pub wal_segments: u64,
    pub wal_records: u64,
    pub manifests: u64,
    pub sstables: u64,
    pub sstable_entries: u64,
    pub sstable_bytes: u64,
    pub snapshots: u64,
    /// Snapshot files that are the snapshot's alone (no live store shares them).
    pub snapshot_files_alone: u64,
    /// Crash leftovers the next open repairs.
    pub notes: Vec<String>,
    /// Corruption or missing files.
    pub errors: Vec<String>,
}

/// The entries of `dir`; an unreadable directory is an error in the report.
pub fn list(fs: &dyn FileSystem, dir: &Path, report: &mut Report) -> Vec<String> {
    fs.list(dir).unwrap_or_else(|e| {
        report.errors.push(e.to_string());
        Vec::new()
    })
}
