//! The in-memory form of a store's manifest: its live SSTable set and counters.

use std::collections::HashSet;

use crate::error::{Error, Result};

/// The manifest format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Why an SSTable exists; kept for operators and for compaction heuristics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileOrigin {
    /// Written by a memstore flush.
    Flush,
    /// Written by a (minor or major) compaction.
    Compaction,
}

impl FileOrigin {
    /// The on-disk code of this origin.
    pub(crate) fn code(self) -> u64 {
        match self {
            FileOrigin::Flush => 0,
            FileOrigin::Compaction => 1,
        }
    }

    /// The origin for an on-disk code, if known.
    pub(crate) fn from_code(code: u64) -> Option<Self> {
        match code {
            0 => Some(FileOrigin::Flush),
            1 => Some(FileOrigin::Compaction),
            _ => None,
        }
    }
}

/// One live SSTable of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFileEntry {
    /// Unique within the store; allocated by the store's manifest, never reused.
    pub file_number: u64,
    /// The volume (disk or bucket) holding the file.
    pub volume: String,
    /// The file's path relative to the volume root.
    pub relative_path: String,
    /// File length in bytes.
    pub size: u64,
    /// Number of cells in the file.
    pub entries: u64,
    /// Smallest cell timestamp in the file.
    pub min_ts: i64,
    /// Largest cell timestamp in the file.
    pub max_ts: i64,
    /// Largest sequence number of any cell in the file.
    pub max_seq: u64,
    /// First internal key in the file.
    pub first_key: Vec<u8>,
    /// Last internal key in the file.
    pub last_key: Vec<u8>,
    /// Whether a flush or a compaction wrote the file.
    pub origin: FileOrigin,
    /// Wall-clock creation time, milliseconds since the epoch.
    pub created_at_ms: i64,
    /// Set for a *reference*: a file another region owns (a split or merge parent), read only
    /// within these rows. The store never deletes a referenced file; the parent's directory
    /// goes once no live region references it (see `Engine::collect_retired`).
    pub range: Option<RowRange>,
}

/// Rows `[start, end)`; an empty `end` means unbounded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowRange {
    pub start: Vec<u8>,
    pub end: Vec<u8>,
}

impl RowRange {
    /// Every row.
    pub fn all() -> Self {
        RowRange::default()
    }

    /// True if `row` lies in the range.
    pub fn contains(&self, row: &[u8]) -> bool {
        row >= self.start.as_slice() && (self.end.is_empty() || row < self.end.as_slice())
    }

    /// The rows in both ranges, `None` when they do not overlap.
    pub fn intersect(&self, other: &RowRange) -> Option<RowRange> {
        let start = self.start.clone().max(other.start.clone());
        let end = match (self.end.is_empty(), other.end.is_empty()) {
            (true, _) => other.end.clone(),
            (_, true) => self.end.clone(),
            _ => self.end.clone().min(other.end.clone()),
        };
        (end.is_empty() || start < end).then_some(RowRange { start, end })
    }
}

/// The durable state of one store (one column family of one region).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestState {
    /// The format version the state was read from (or will be written as).
    pub format_version: u32,
    /// Every edit of this store with a sequence number `<=` this is in an SSTable, so WAL
    /// replay may skip it.
    pub flushed_seq: u64,
    /// The lowest file number never handed out. Callers need not maintain it: `commit`
    /// raises it to cover every number `allocate_file_number` returned.
    pub next_file_number: u64,
    /// The live SSTables, in the order the store keeps them (oldest first by convention).
    pub files: Vec<StoreFileEntry>,
}

impl ManifestState {
    /// The state of a store that has never flushed.
    pub fn empty() -> Self {
        ManifestState {
            format_version: FORMAT_VERSION,
            flushed_seq: 0,
            next_file_number: 1,
            files: Vec::new(),
        }
    }

    /// Checks the invariants every committed state must hold, returning a description of
    /// the first violation. Decoding reports it as corruption, `commit` as a bad argument.
    pub(crate) fn invariant_violation(&self) -> Option<String> {
        if self.format_version != FORMAT_VERSION {
            return Some(format!(
                "unsupported format version {}",
                self.format_version
            ));
        }
        let mut seen = HashSet::with_capacity(self.files.len());
        for file in &self.files {
            if !seen.insert(file.file_number) {
                return Some(format!("file number {} listed twice", file.file_number));
            }
            if file.file_number >= self.next_file_number {
                return Some(format!(
                    "file number {} is not below next_file_number {}",
                    file.file_number, self.next_file_number
                ));
            }
        }
        None
    }

    /// `invariant_violation` as an `InvalidArgument` error.
    pub(crate) fn check_invariants(&self) -> Result<()> {
        match self.invariant_violation() {
            Some(reason) => Err(Error::InvalidArgument(format!("manifest state: {reason}"))),
            None => Ok(()),
        }
    }
}

impl Default for ManifestState {
    fn default() -> Self {
        Self::empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file_number: u64) -> StoreFileEntry {
        StoreFileEntry {
            file_number,
            volume: "v0".into(),
            relative_path: format!("t/{file_number}.sst"),
            size: 10,
            entries: 1,
            min_ts: 0,
            max_ts: 0,
            max_seq: 0,
            first_key: vec![],
            last_key: vec![],
            origin: FileOrigin::Flush,
            created_at_ms: 0,
            range: None,
        }
    }

    #[test]
    fn invariants_catch_duplicates_and_unallocated_numbers() {
        let mut s = ManifestState::empty();
        s.next_file_number = 5;
        s.files = vec![entry(1), entry(2)];
        assert!(s.check_invariants().is_ok());
        s.files.push(entry(2));
        assert!(s.invariant_violation().unwrap().contains("twice"));
        s.files.pop();
        s.files.push(entry(5));
        assert!(s
            .invariant_violation()
            .unwrap()
            .contains("next_file_number"));
        s.files.pop();
        s.format_version = 2;
        assert!(s.check_invariants().is_err());
    }

    #[test]
    fn row_ranges_contain_and_intersect() {
        let r = |s: &str, e: &str| RowRange {
            start: s.into(),
            end: e.into(),
        };
        assert!(r("b", "d").contains(b"b") && !r("b", "d").contains(b"d"));
        assert!(r("b", "").contains(b"zzz") && !r("b", "").contains(b"a"));
        assert_eq!(r("", "m").intersect(&r("c", "")), Some(r("c", "m")));
        assert_eq!(r("a", "c").intersect(&r("c", "")), None);
        assert_eq!(RowRange::all().intersect(&RowRange::all()), Some(r("", "")));
    }

    #[test]
    fn origin_codes_round_trip() {
        for o in [FileOrigin::Flush, FileOrigin::Compaction] {
            assert_eq!(FileOrigin::from_code(o.code()), Some(o));
        }
        assert_eq!(FileOrigin::from_code(7), None);
    }
}
