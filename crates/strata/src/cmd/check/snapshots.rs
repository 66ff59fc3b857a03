//! The snapshot part of `strata check`: every snapshot's descriptor, and each file it
//! names. A file a live store still shares was verified with that store; one the snapshot
//! alone holds is verified here, block by block.

use std::path::Path;

use strata_engine::fs::FileSystem;
use strata_engine::tools::{decode_descriptor, DESCRIPTOR_FILE, SNAPSHOTS_DIR};

use super::report::{list, Report};
use super::store::{check_file, DEFAULT_VOLUME};

/// Checks `data_dir/snapshots/`.
pub fn check_snapshots(fs: &dyn FileSystem, data_dir: &Path, report: &mut Report) {
    let root = data_dir.join(SNAPSHOTS_DIR);
    if !fs.exists(&root).unwrap_or(false) {
        return;
    }
    for name in list(fs, &root, report) {
        let dir = root.join(&name);
        let path = dir.join(DESCRIPTOR_FILE);
        if !fs.exists(&path).unwrap_or(false) {
            report.notes.push(format!(
                "{}: no descriptor (a snapshot taken or deleted when the server stopped); removed at the next start",
                dir.display()
            ));
            continue;
        }
        let descriptor = match fs
            .read_all(&path)
            .and_then(|b| decode_descriptor(&path, &b))
        {
            Ok(d) => d,
            Err(e) => {
                report.errors.push(e.to_string());
                continue;
            }
        };
        report.snapshots += 1;
        for file in descriptor.files() {
            let shared = file.origin_volume == DEFAULT_VOLUME
                && fs
                    .exists(&data_dir.join(&file.origin_path))
                    .unwrap_or(false);
            if shared {
                continue;
            }
            report.snapshot_files_alone += 1;
            check_file(fs, data_dir, &dir, &file.entry, report);
        }
    }
}
