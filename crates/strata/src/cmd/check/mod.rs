//! `strata check --data-dir DIR`: verifies a stopped server's files offline (every WAL
//! segment of every WAL group in it, every store's manifest, every SSTable a manifest lists, block by block,
//! every snapshot's descriptor and the files only a snapshot holds) and
//! prints a summary. Exits non-zero on any corruption, naming the file and offset.
//! Conditions a crash leaves behind and the open repairs (a torn WAL tail, an unfinished
//! manifest commit, SSTables no manifest lists) are notes, not failures.

use std::path::{Path, PathBuf};

use clap::Args;
use strata_engine::fs::{FileSystem, LocalFs};

use report::{list, Report};
use store::check_store;
use wal::check_wal_groups;

mod report;
mod snapshots;
mod store;
mod wal;

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
    check_wal_groups(fs, data_dir, &mut report);
    let regions = data_dir.join("regions");
    for region in list(fs, &regions, &mut report) {
        let region_dir = regions.join(&region);
        for family in list(fs, &region_dir, &mut report) {
            check_store(fs, data_dir, &region_dir.join(family), &mut report);
        }
    }
    snapshots::check_snapshots(fs, data_dir, &mut report);
    report
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
    out!(
        "snapshots: {}, {} file(s) held by a snapshot alone, verified",
        r.snapshots,
        r.snapshot_files_alone
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
