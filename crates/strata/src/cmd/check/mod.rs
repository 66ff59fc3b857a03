//! `strata check --data-dir DIR`: verifies a stopped server's files offline (every WAL
//! segment, every store's manifest, every SSTable a manifest lists, block by block) and
//! prints a summary. Exits non-zero on any corruption, naming the file and offset.
//! Conditions a crash leaves behind and the open repairs (a torn WAL tail, an unfinished
//! manifest commit, SSTables no manifest lists) are notes, not failures.

use std::path::{Path, PathBuf};

use clap::Args;
use strata_engine::fs::{FileSystem, LocalFs};
use strata_engine::wal::format::parse_segment_file_name;
use strata_engine::wal::inspect::inspect_segment;

use super::check_stores::check_store;

/// `println!` that never panics: see [`super::sst::emit`].
macro_rules! out {
    ($($arg:tt)*) => {
        super::sst::emit(format_args!($($arg)*))
    };
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The server's data directory (the `--data-dir` of `strata server`).
    #[arg(long)]
    pub data_dir: PathBuf,
}

/// Everything the check found.
#[derive(Debug, Default)]
pub struct Report {
    pub wal_segments: u64,
    pub wal_records: u64,
    pub manifests: u64,
    pub sstables: u64,
    pub sstable_entries: u64,
    pub sstable_bytes: u64,
    /// Crash leftovers the next open repairs.
    pub notes: Vec<String>,
    /// Corruption or missing files.
    pub errors: Vec<String>,
}

pub fn run(args: CheckArgs) -> Result<(), String> {
    if !LocalFs.exists(&args.data_dir).map_err(|e| e.to_string())? {
        return Err(format!("{} does not exist", args.data_dir.display()));
    }
    let report = check(&LocalFs, &args.data_dir);
    print_report(&report);
    match report.errors.len() {
        0 => Ok(()),
        n => Err(format!(
            "{n} problem(s) found in {}",
            args.data_dir.display()
        )),
    }
}

/// Checks every file under `data_dir`.
pub fn check(fs: &dyn FileSystem, data_dir: &Path) -> Report {
    let mut report = Report::default();
    check_wal(fs, &data_dir.join("wal"), &mut report);
    let regions = data_dir.join("regions");
    for region in list(fs, &regions, &mut report) {
        let region_dir = regions.join(&region);
        for family in list(fs, &region_dir, &mut report) {
            check_store(fs, data_dir, &region_dir.join(family), &mut report);
        }
    }
    report
}

fn check_wal(fs: &dyn FileSystem, dir: &Path, report: &mut Report) {
    for name in list(fs, dir, report) {
        if parse_segment_file_name(&name).is_none() {
            continue;
        }
        let path = dir.join(&name);
        match inspect_segment(fs, &path, &mut |_, _| {}) {
            Ok(summary) => {
                report.wal_segments += 1;
                report.wal_records += summary.records;
                if summary.torn_header {
                    report.notes.push(format!(
                        "{}: torn header (created just before a crash; removed at open)",
                        path.display()
                    ));
                }
                if let Some((offset, reason)) = summary.torn_tail {
                    report.notes.push(format!(
                        "{}: torn tail at offset {offset}: {reason} (cut off at open)",
                        path.display()
                    ));
                }
            }
            Err(e) => report.errors.push(e.to_string()),
        }
    }
}

/// The entries of `dir`; an unreadable directory is an error in the report.
pub fn list(fs: &dyn FileSystem, dir: &Path, report: &mut Report) -> Vec<String> {
    fs.list(dir).unwrap_or_else(|e| {
        report.errors.push(e.to_string());
        Vec::new()
    })
}

fn print_report(r: &Report) {
    out!(
        "WAL: {} segments, {} records",
        r.wal_segments,
        r.wal_records
    );
    out!("manifests: {}", r.manifests);
    out!(
        "SSTables: {} files, {} entries, {} bytes, every block verified",
        r.sstables,
        r.sstable_entries,
        r.sstable_bytes
    );
    for note in &r.notes {
        out!("note: {note}");
    }
    for error in &r.errors {
        out!("CORRUPT: {error}");
    }
    if r.errors.is_empty() {
        out!("OK: no corruption found");
    }
}
