//! Manifest file names and the durable write of one manifest file.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::fs::FileSystem;

const PREFIX: &str = "MANIFEST-";
/// u64::MAX has 20 decimal digits, so every number fits and names sort numerically.
const DIGITS: usize = 20;

/// The file name of manifest `number`.
pub fn manifest_file_name(number: u64) -> String {
    format!("{PREFIX}{number:0DIGITS$}")
}

/// The manifest number in a file name, or `None` for any other file.
pub fn parse_manifest_file_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?;
    if digits.len() != DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The manifest numbers present in `dir`, ascending.
pub fn list_manifests(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<u64>> {
    let mut numbers: Vec<u64> = fs
        .list(dir)?
        .iter()
        .filter_map(|name| parse_manifest_file_name(name))
        .collect();
    numbers.sort_unstable();
    Ok(numbers)
}

/// The path of manifest `number` in `dir`.
pub fn manifest_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(manifest_file_name(number))
}

/// Writes `bytes` as a new file and makes both its contents and its name durable.
pub fn write_durably(fs: &dyn FileSystem, dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = fs.create(path)?;
    file.append(bytes)?;
    file.sync()?;
    drop(file);
    fs.sync_dir(dir)
}

/// Makes manifest file `path` durable by rewriting it: its bytes are written and synced to
/// `MANIFEST.tmp`, which is then renamed over `path`, and the directory is synced.
///
/// Open uses this when it finds a valid manifest next to an older one: a process crash in
/// the middle of a commit can leave the new file complete in the OS cache but not synced, so
/// removing the older file first could leave an empty manifest as the only one after a
/// power cut. There is no way to fsync a file by name, and rewriting `path` in place would
/// tear it if the power went meanwhile; the rename replaces it atomically.
pub fn rewrite_durably(fs: &dyn FileSystem, dir: &Path, path: &Path) -> Result<()> {
    let bytes = fs.read_all(path)?;
    let tmp = dir.join(REWRITE_TMP);
    let mut file = fs.create(&tmp)?;
    file.append(&bytes)?;
    file.sync()?;
    drop(file);
    fs.rename(&tmp, path)?;
    fs.sync_dir(dir)
}

/// The scratch name of [`rewrite_durably`]; not a manifest name, so open ignores a leftover
/// and the next rewrite truncates it.
const REWRITE_TMP: &str = "MANIFEST.tmp";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sort_numerically() {
        for n in [0, 1, 9, 10, 12345, u64::MAX] {
            let name = manifest_file_name(n);
            assert_eq!(name.len(), PREFIX.len() + DIGITS);
            assert_eq!(parse_manifest_file_name(&name), Some(n));
        }
        assert!(manifest_file_name(9) < manifest_file_name(10));
    }

    #[test]
    fn other_names_are_not_manifests() {
        for name in [
            "MANIFEST-1",
            "MANIFEST-0000000000000000000x",
            "MANIFEST-000000000000000000001",
            "manifest-00000000000000000001",
            "MANIFEST-00000000000000000001.tmp",
            "99999999999999999999",
            "MANIFEST-99999999999999999999", // beyond u64::MAX
        ] {
            assert_eq!(parse_manifest_file_name(name), None, "{name}");
        }
    }
}
