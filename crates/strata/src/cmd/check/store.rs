//! The store part of `strata check`: one store directory's manifests and SSTables.

use std::collections::BTreeSet;
use std::path::Path;

use strata_engine::fs::FileSystem;
use strata_engine::tools::InspectedTable;
use strata_engine::tools::{parse_manifest_file_name, ManifestState, StoreFileEntry};
use strata_engine::tools::{read_manifest, ManifestRead};

use super::report::{list, Report};

/// The volume name of a single-directory server (its data dir); other volumes are not
/// configured for an offline check.
pub(super) const DEFAULT_VOLUME: &str = "default";

/// Checks the store directory `dir`: its newest manifest, every SSTable that manifest
/// lists, and notes SSTables no manifest lists.
pub fn check_store(fs: &dyn FileSystem, data_dir: &Path, dir: &Path, report: &mut Report) {
    let names = list(fs, dir, report);
    let mut numbers: Vec<(u64, &String)> = names
        .iter()
        .filter_map(|n| parse_manifest_file_name(n).map(|num| (num, n)))
        .collect();
    numbers.sort();
    let Some(state) = newest_state(fs, dir, &numbers, report) else {
        return;
    };
    let mut live = BTreeSet::new();
    for file in &state.files {
        if file.range.is_none() {
            live.insert(file.relative_path.clone());
        }
        check_file(fs, data_dir, dir, file, report);
    }
    for name in names.iter().filter(|n| n.ends_with(".sst")) {
        let listed = live
            .iter()
            .any(|p| Path::new(p).file_name() == Some(std::ffi::OsStr::new(name.as_str())));
        if !listed {
            report.notes.push(format!(
                "{}: not listed by the manifest (a crash leftover; deleted by the server)",
                dir.join(name).display()
            ));
        }
    }
}

/// The state of the newest manifest, as the open would load it.
fn newest_state(
    fs: &dyn FileSystem,
    dir: &Path,
    numbers: &[(u64, &String)],
    report: &mut Report,
) -> Option<ManifestState> {
    for (i, (number, name)) in numbers.iter().enumerate().rev() {
        let path = dir.join(name);
        let bytes = match fs.read_all(&path) {
            Ok(b) => b,
            Err(e) => {
                report.errors.push(e.to_string());
                return None;
            }
        };
        report.manifests += 1;
        match read_manifest(&path, &bytes) {
            Ok(ManifestRead::Valid(m)) if m.manifest_number == *number => return Some(m.state),
            Ok(ManifestRead::Valid(m)) => {
                report.errors.push(format!(
                    "corruption in {} at offset 16: header number {} differs from the name",
                    path.display(),
                    m.manifest_number
                ));
                return None;
            }
            Ok(ManifestRead::Torn { offset, reason }) if i > 0 => report.notes.push(format!(
                "{}: unfinished commit (torn at offset {offset}: {reason}); the older manifest is used",
                path.display()
            )),
            Ok(ManifestRead::Torn { offset, reason }) if *number > 1 => {
                report.errors.push(format!(
                    "corruption in {} at offset {offset}: {reason} (the only manifest, so the store's file list is lost)",
                    path.display()
                ));
                return None;
            }
            Ok(ManifestRead::Torn { .. }) => return Some(ManifestState::empty()),
            Err(e) => {
                report.errors.push(e.to_string());
                return None;
            }
        }
    }
    report.notes.push(format!(
        "{}: no manifest (a store never opened)",
        dir.display()
    ));
    None
}

/// Verifies one listed SSTable: present, of the recorded size, every block sound.
pub(super) fn check_file(
    fs: &dyn FileSystem,
    data_dir: &Path,
    store_dir: &Path,
    file: &StoreFileEntry,
    report: &mut Report,
) {
    if file.volume != DEFAULT_VOLUME {
        report.notes.push(format!(
            "{}: file {} is on volume {:?}, not checked",
            store_dir.display(),
            file.relative_path,
            file.volume
        ));
        return;
    }
    let path = data_dir.join(&file.relative_path);
    let size = match fs.file_size(&path) {
        Ok(size) => size,
        Err(e) => {
            let listed = store_dir.display();
            report.errors.push(format!(
                "{listed}: a listed SSTable is missing or unreadable: {e}"
            ));
            return;
        }
    };
    if size != file.size {
        report.errors.push(format!(
            "corruption in {}: {size} bytes, the manifest in {} records {}",
            path.display(),
            store_dir.display(),
            file.size
        ));
        return;
    }
    let verified = InspectedTable::open(fs, &path).and_then(|t| t.verify(&mut |_| {}));
    match verified {
        Ok(check) => {
            report.sstables += 1;
            report.sstable_entries += check.entries;
            report.sstable_bytes += check.file_size;
        }
        Err(e) => report.errors.push(e.to_string()),
    }
}
