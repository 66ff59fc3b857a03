//! Table snapshots (HBase's `snapshot`, `clone_snapshot`, `restore_snapshot`): a record of
//! which SSTables made up each region of a table at one moment, holding those files by
//! hard links so that compactions and drops can go on without losing them.
//!
//! A snapshot lives in `snapshots/<name>/`: its descriptor on the primary volume, and a
//! hard link to each of its files on that file's own volume (a link cannot cross devices).
//! Taking one copies no data. A snapshot file whose live original is gone (compacted away,
//! moved, or its table dropped) is held by the snapshot alone; the archive pass then moves
//! it to the storage type the placement policy names for the archive category, so old
//! versions kept for a snapshot do not take room on the fast volumes.
//!
//! The descriptor is the commit point: a directory without one is the leftover of a take
//! that did not finish or of a delete, and is removed. Its byte layout is in `format.rs`
//! and `docs/format.md` ("Snapshot descriptor").

mod format;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use format::{decode_descriptor, encode_descriptor};

use crate::error::{Error, Result};
use crate::manifest::{RowRange, StoreFileEntry};

/// Every snapshot's directory, relative to a volume root.
pub const SNAPSHOTS_DIR: &str = "snapshots";
/// The descriptor's file name inside a snapshot's directory on the primary volume.
pub const DESCRIPTOR_FILE: &str = "descriptor";
/// Longest snapshot name accepted.
pub const MAX_NAME_LEN: usize = 200;

/// What a snapshot holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotDescriptor {
    /// The snapshot's name, unique in the engine.
    pub name: String,
    /// The table's schema as its owner (the service's catalog) encodes it; the engine only
    /// keeps the bytes, so a clone can recreate the table.
    pub table: Vec<u8>,
    /// Wall-clock time the snapshot was taken, milliseconds since the epoch.
    pub created_at_ms: i64,
    /// The table's regions in row order.
    pub regions: Vec<SnapshotRegion>,
}

/// One region of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotRegion {
    /// The region's id when the snapshot was taken.
    pub id: u64,
    /// The region's rows.
    pub rows: RowRange,
    /// One entry per column family.
    pub stores: Vec<SnapshotStore>,
}

/// The files of one column family of a snapshot region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotStore {
    pub family: Vec<u8>,
    pub files: Vec<SnapshotFile>,
}

/// One SSTable a snapshot holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotFile {
    /// The file's manifest entry as the store had it, except that `volume` and
    /// `relative_path` say where the snapshot's own link (or archived copy) is. A reference
    /// (`range` set) keeps its range: the snapshot holds the parent file, read in that range.
    pub entry: StoreFileEntry,
    /// The volume of the live file the snapshot linked.
    pub origin_volume: String,
    /// The live file's path relative to that volume: while it exists, the file is shared
    /// with a live store; once it is gone, the snapshot alone holds it.
    pub origin_path: String,
}

impl SnapshotDescriptor {
    /// Bytes of every file the snapshot holds.
    pub fn bytes(&self) -> u64 {
        self.files().map(|f| f.entry.size).sum()
    }

    /// Every file of every region and family.
    pub fn files(&self) -> impl Iterator<Item = &SnapshotFile> {
        self.regions
            .iter()
            .flat_map(|r| r.stores.iter())
            .flat_map(|s| s.files.iter())
    }
}

/// A snapshot as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotSummary {
    pub name: String,
    pub table: Vec<u8>,
    pub created_at_ms: i64,
    pub regions: usize,
    pub files: usize,
    pub bytes: u64,
}

impl From<&SnapshotDescriptor> for SnapshotSummary {
    fn from(d: &SnapshotDescriptor) -> Self {
        SnapshotSummary {
            name: d.name.clone(),
            table: d.table.clone(),
            created_at_ms: d.created_at_ms,
            regions: d.regions.len(),
            files: d.files().count(),
            bytes: d.bytes(),
        }
    }
}

/// Checks a snapshot name as HBase does for table qualifiers: letters, digits, `_`, `-`
/// and `.`, not starting with `.` or `-`. The name becomes a directory, so nothing else
/// may pass.
pub fn check_name(name: &str) -> Result<()> {
    let bad = |why: String| {
        Err(Error::InvalidArgument(format!(
            "snapshot name {name:?}: {why}"
        )))
    };
    if name.is_empty() {
        return bad("must not be empty".into());
    }
    if name.len() > MAX_NAME_LEN {
        return bad(format!("longer than {MAX_NAME_LEN} bytes"));
    }
    for (i, c) in name.chars().enumerate() {
        let allowed = c.is_ascii_alphanumeric() || c == '_' || (i > 0 && matches!(c, '-' | '.'));
        if !allowed {
            return bad(format!(
                "illegal character {c:?} at {i}: names may hold letters, digits, '_', and \
                 '-' or '.' after the first character"
            ));
        }
    }
    Ok(())
}

/// `snapshots/<name>` relative to a volume root.
pub fn snapshot_dir(name: &str) -> PathBuf {
    PathBuf::from(SNAPSHOTS_DIR).join(name)
}

/// Where a snapshot keeps its link to a file: `snapshots/<name>/<region>/<family>/<n>.sst`,
/// `n` being the entry's file number in its store (unique there, even for references).
pub fn file_path(name: &str, region: u64, family: &[u8], file_number: u64) -> PathBuf {
    snapshot_dir(name)
        .join(format!("{region:016x}"))
        .join(crate::store::family_dir_name(family))
        .join(format!("{file_number:016}.sst"))
}
