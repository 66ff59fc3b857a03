//! The WAL part of `strata check`: every segment, record by record.

use std::path::Path;

use strata_engine::fs::FileSystem;
use strata_engine::tools::inspect_segment;
use strata_engine::tools::{parse_group_dir_name, parse_segment_file_name};

use super::report::{list, Report};

/// Checks every WAL group's directory in `data_dir`: `wal` (group 0, the only one without
/// `[engine] wal_groups`) and `wal-group-<N>`.
pub fn check_wal_groups(fs: &dyn FileSystem, data_dir: &Path, report: &mut Report) {
    for name in list(fs, data_dir, report) {
        if parse_group_dir_name(&name).is_some() {
            check_wal(fs, &data_dir.join(name), report);
        }
    }
}

/// Checks every WAL segment in `dir`; a torn header or tail is a note (the open repairs it).
pub fn check_wal(fs: &dyn FileSystem, dir: &Path, report: &mut Report) {
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
