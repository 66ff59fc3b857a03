//! Which cells a compaction may physically drop.
//!
//! A minor compaction rewrites only some of a store's files, so it may drop only what no
//! read could return whatever the other files hold: duplicates, puts masked by a delete
//! marker in the same input (the marker is kept), overwritten same-timestamp puts, and
//! TTL-expired puts when MIN_VERSIONS is 0. It keeps every marker and every version.
//!
//! A major compaction rewrites every file, so it also drops the markers themselves (unless
//! KEEP_DELETED_CELLS), versions beyond MAX_VERSIONS, and expired versions beyond
//! MIN_VERSIONS. Like HBase, this can change what later reads return (a put written after a
//! delete with an older timestamp becomes visible once the marker is gone).

use crate::cell::CellType;
use crate::key;
use crate::options::KeepDeletedCells;
use crate::read::deletes::DeleteTracker;
use crate::read::matcher::parse_suffix;

/// The settings a compaction applies.
#[derive(Debug, Clone)]
pub struct CompactionRules {
    pub major: bool,
    pub max_versions: u32,
    pub min_versions: u32,
    /// Puts older than this have outlived the TTL (`i64::MIN` without a TTL).
    pub oldest_unexpired_ts: i64,
    pub keep_deleted_cells: KeepDeletedCells,
    /// Every read of this compaction's output sees every cell with a sequence id at or
    /// below this (the region's read point when the compaction starts; reads take their
    /// files before their read point). A newer cell (a write flushed before it became
    /// visible) is kept and shadows nothing: a read that cannot see it must still find
    /// what lies under it. `u64::MAX` in tests that need no such care.
    pub smallest_read_point: u64,
}

/// Decides, cell by cell in key order, whether a compaction keeps each cell.
#[derive(Debug)]
pub struct CompactionFilter {
    rules: CompactionRules,
    row: Vec<u8>,
    deletes: DeleteTracker,
    column: Vec<u8>,
    versions: u32,
    last_put_ts: Option<i64>,
    last_key: Vec<u8>,
}

impl CompactionFilter {
    /// A filter applying `rules`.
    pub fn new(rules: CompactionRules) -> Self {
        CompactionFilter {
            rules,
            row: Vec::new(),
            deletes: DeleteTracker::default(),
            column: Vec::new(),
            versions: 0,
            last_put_ts: None,
            last_key: Vec::new(),
        }
    }

    fn enter(&mut self, key: &[u8]) {
        let row = key::row_prefix_of(key).unwrap_or(&[]);
        if row != self.row.as_slice() {
            self.row = row.to_vec();
            self.deletes.start_row();
            self.column.clear();
        }
        let column = key::column_prefix_of(key).unwrap_or(&[]);
        if column != self.column.as_slice() {
            self.column = column.to_vec();
            self.deletes.start_column();
            self.versions = 0;
            self.last_put_ts = None;
        }
    }

    fn keeps_deleted(&self) -> bool {
        self.rules.keep_deleted_cells != KeepDeletedCells::False
    }

    fn is_expired(&self, ts: i64) -> bool {
        ts < self.rules.oldest_unexpired_ts
    }

    /// True if the cell with internal key `key` is written to the output.
    pub fn keep(&mut self, key: &[u8]) -> bool {
        let Some(suffix) = parse_suffix(key) else {
            return true; // not ours to judge: keep the bytes, a reader reports them
        };
        if key == self.last_key.as_slice() {
            return false;
        }
        self.last_key = key.to_vec();
        self.enter(key);
        if suffix.seq > self.rules.smallest_read_point {
            return true; // not yet seen by every read: kept, and it hides nothing
        }
        match suffix.cell_type {
            CellType::Put => self.keep_put(suffix.timestamp),
            marker => self.keep_marker(marker, suffix.timestamp),
        }
    }

    fn keep_marker(&mut self, marker: CellType, ts: i64) -> bool {
        self.deletes.record(marker, ts);
        if !self.rules.major {
            return true;
        }
        match self.rules.keep_deleted_cells {
            KeepDeletedCells::False => false,
            KeepDeletedCells::True => true,
            KeepDeletedCells::Ttl => !self.is_expired(ts),
        }
    }

    fn keep_put(&mut self, ts: i64) -> bool {
        if self.last_put_ts.replace(ts) == Some(ts) {
            return false; // overwritten at the same timestamp
        }
        let masked = self.deletes.is_deleted(ts);
        if masked && !self.keeps_deleted() {
            return false;
        }
        if !self.rules.major {
            return !(self.rules.min_versions == 0 && self.is_expired(ts));
        }
        self.versions += 1;
        if self.versions > self.rules.max_versions {
            return false;
        }
        !(self.is_expired(ts) && self.versions > self.rules.min_versions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CellType::*;

    fn rules(major: bool) -> CompactionRules {
        CompactionRules {
            major,
            max_versions: 2,
            min_versions: 0,
            oldest_unexpired_ts: i64::MIN,
            keep_deleted_cells: KeepDeletedCells::False,
            smallest_read_point: u64::MAX,
        }
    }

    fn run(
        rules: CompactionRules,
        cells: &[(&str, &str, i64, CellType, u64)],
    ) -> Vec<(String, i64, CellType)> {
        let mut keys: Vec<Vec<u8>> = cells
            .iter()
            .map(|(r, q, ts, t, s)| key::make_key(r.as_bytes(), q.as_bytes(), *ts, *t, *s))
            .collect();
        keys.sort();
        let mut filter = CompactionFilter::new(rules);
        keys.into_iter()
            .filter(|k| filter.keep(k))
            .map(|k| {
                let p = key::parse_key(&k).unwrap();
                (
                    format!(
                        "{}/{}",
                        String::from_utf8(p.row).unwrap(),
                        String::from_utf8(p.qualifier).unwrap()
                    ),
                    p.timestamp,
                    p.cell_type,
                )
            })
            .collect()
    }

    const CELLS: &[(&str, &str, i64, CellType, u64)] = &[
        ("r", "a", 9, Put, 1),
        ("r", "a", 8, Put, 1),
        ("r", "a", 7, Put, 1),
        ("r", "b", 5, DeleteColumn, 2),
        ("r", "b", 5, Put, 1),
        ("r", "b", 6, Put, 1),
        ("s", "", 3, DeleteFamily, 2),
        ("s", "a", 2, Put, 1),
        ("s", "a", 4, Put, 1),
    ];

    #[test]
    fn minor_keeps_markers_and_versions_but_drops_masked_puts() {
        let got = run(rules(false), CELLS);
        assert_eq!(
            got,
            vec![
                ("r/a".into(), 9, Put),
                ("r/a".into(), 8, Put),
                ("r/a".into(), 7, Put),
                ("r/b".into(), 6, Put),
                ("r/b".into(), 5, DeleteColumn),
                ("s/".into(), 3, DeleteFamily),
                ("s/a".into(), 4, Put),
            ]
        );
    }

    #[test]
    fn major_drops_markers_and_excess_versions() {
        let got = run(rules(true), CELLS);
        assert_eq!(
            got,
            vec![
                ("r/a".into(), 9, Put),
                ("r/a".into(), 8, Put),
                ("r/b".into(), 6, Put),
                ("s/a".into(), 4, Put)
            ]
        );
    }

    #[test]
    fn major_with_keep_deleted_cells_keeps_markers_and_masked_puts() {
        let mut r = rules(true);
        r.keep_deleted_cells = KeepDeletedCells::True;
        let got = run(r, CELLS);
        assert!(got.contains(&("r/b".into(), 5, DeleteColumn)));
        assert!(got.contains(&("r/b".into(), 5, Put)));
        assert!(got.contains(&("s/a".into(), 2, Put)));
    }

    #[test]
    fn ttl_drops_expired_but_min_versions_protects_the_newest() {
        let mut r = rules(true);
        r.oldest_unexpired_ts = 100;
        r.min_versions = 1;
        let got = run(r, &[("r", "a", 9, Put, 1), ("r", "a", 8, Put, 1)]);
        assert_eq!(got, vec![("r/a".into(), 9, Put)]);
        let mut minor = rules(false);
        minor.oldest_unexpired_ts = 100;
        assert!(run(minor, &[("r", "a", 9, Put, 1)]).is_empty());
    }

    #[test]
    fn same_timestamp_overwrite_keeps_only_the_newest_write() {
        let got = run(
            rules(false),
            &[("r", "a", 5, Put, 1), ("r", "a", 5, Put, 7)],
        );
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn cells_newer_than_the_smallest_read_point_hide_nothing() {
        let mut r = rules(true);
        r.max_versions = 1;
        r.smallest_read_point = 5;
        let cells: &[(&str, &str, i64, CellType, u64)] = &[
            ("r", "a", 9, Put, 7),          // newer than every read: kept, hides nothing
            ("r", "a", 8, Put, 4),          // so this is still the newest a read may see
            ("r", "a", 7, Put, 3),          // beyond VERSIONS under it: dropped
            ("r", "b", 6, DeleteColumn, 6), // a marker no read in progress sees: kept
            ("r", "b", 5, Put, 2),          // and the put under it too
            ("r", "c", 4, Put, 9),          // same timestamp, newer than every read
            ("r", "c", 4, Put, 1),          // the overwritten one stays for older reads
        ];
        let got = run(r, cells);
        assert_eq!(
            got,
            vec![
                ("r/a".into(), 9, Put),
                ("r/a".into(), 8, Put),
                ("r/b".into(), 6, DeleteColumn),
                ("r/b".into(), 5, Put),
                ("r/c".into(), 4, Put),
                ("r/c".into(), 4, Put),
            ]
        );
    }
}
