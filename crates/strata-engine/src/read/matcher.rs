//! Which cells of one row of one store a read returns: HBase's user-scan semantics.
//!
//! Cells arrive in internal-key order (qualifier ascending, timestamp descending, markers
//! before puts at the same timestamp, newest write first). Per cell, in this order:
//! 1. cells written after the read point (MVCC) are invisible;
//! 2. delete markers are recorded, never returned: DeleteFamily / DeleteColumn mask every put
//!    at or below their timestamp, Delete / DeleteFamilyVersion exactly their timestamp;
//!    with KEEP_DELETED_CELLS only markers inside the read's time range count, so a time-range
//!    read that ends before a delete still sees the deleted cells;
//! 3. masked puts and puts outside the time range are skipped;
//! 4. the newest `max_versions` remaining puts of each column are returned, and of those the
//!    ones older than the TTL are dropped unless they are among the newest `min_versions`.

use std::collections::BTreeSet;

use super::deletes::DeleteTracker;
use crate::api::TimeRange;
use crate::cell::CellType;
use crate::key::{self, KEY_SUFFIX_LEN};

/// What to do with one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Return the cell.
    Include,
    /// Skip the cell and look at the next one.
    Skip,
    /// Skip the rest of this column: nothing further in it can be returned.
    SkipColumn,
}

/// Read settings that hold for a whole read of one store.
#[derive(Debug, Clone)]
pub struct ReadParams {
    /// Highest sequence id visible to this read.
    pub read_point: u64,
    pub time_range: TimeRange,
    /// Versions per column: min(request, family setting).
    pub max_versions: u32,
    pub min_versions: u32,
    /// Puts older than this have outlived the TTL (`i64::MIN` without a TTL).
    pub oldest_unexpired_ts: i64,
    /// KEEP_DELETED_CELLS is TRUE or TTL.
    pub keep_deleted_cells: bool,
    /// Escaped qualifiers (see [`key::column_start`]) to return; `None` means all.
    pub columns: Option<BTreeSet<Vec<u8>>>,
}

/// The fixed-size tail of an internal key.
#[derive(Debug, Clone, Copy)]
pub struct KeySuffix {
    pub timestamp: i64,
    pub cell_type: CellType,
    pub seq: u64,
}

/// Reads timestamp, type and sequence id from the end of an internal key.
pub fn parse_suffix(key: &[u8]) -> Option<KeySuffix> {
    let suffix = key.get(key.len().checked_sub(KEY_SUFFIX_LEN)?..)?;
    let ts = !u64::from_be_bytes(suffix.get(0..8)?.try_into().ok()?);
    let cell_type = CellType::from_code(!*suffix.get(8)?)?;
    let seq = !u64::from_be_bytes(suffix.get(9..17)?.try_into().ok()?);
    Some(KeySuffix {
        timestamp: ts as i64,
        cell_type,
        seq,
    })
}

/// Applies [`ReadParams`] to the cells of one row, one cell at a time.
#[derive(Debug)]
pub struct RowMatcher {
    params: ReadParams,
    row_prefix_len: usize,
    deletes: DeleteTracker,
    column: Vec<u8>,
    versions: u32,
    /// Timestamp of the last put considered in this column: an older write at the same
    /// timestamp was overwritten and is not a version of its own.
    last_put_ts: Option<i64>,
    last_key: Vec<u8>,
}

impl RowMatcher {
    /// A matcher for reads with `params`.
    pub fn new(params: ReadParams) -> Self {
        RowMatcher {
            params,
            row_prefix_len: 0,
            deletes: DeleteTracker::default(),
            column: Vec::new(),
            versions: 0,
            last_put_ts: None,
            last_key: Vec::new(),
        }
    }

    /// The read settings.
    pub fn params(&self) -> &ReadParams {
        &self.params
    }

    /// Forgets all per-row state; call before the first cell of each row.
    pub fn start_row(&mut self, row_prefix_len: usize) {
        self.row_prefix_len = row_prefix_len;
        self.deletes.start_row();
        self.start_column(&[]);
        self.last_key.clear();
    }

    fn start_column(&mut self, column: &[u8]) {
        self.column.clear();
        self.column.extend_from_slice(column);
        self.deletes.start_column();
        self.versions = 0;
        self.last_put_ts = None;
    }

    /// The escaped qualifier of the current column.
    fn qualifier(&self) -> &[u8] {
        self.column.get(self.row_prefix_len..).unwrap_or(&[])
    }

    /// True when the current column is the empty qualifier, which also holds the family
    /// markers: it must never be skipped wholesale, or a family delete could be missed.
    fn in_marker_column(&self) -> bool {
        self.qualifier() == key::ESCAPED_EMPTY
    }

    fn is_selected(&self) -> bool {
        match &self.params.columns {
            None => true,
            Some(set) => set.contains(self.qualifier()),
        }
    }

    fn marker_applies(&self, ts: i64) -> bool {
        !self.params.keep_deleted_cells || self.params.time_range.contains(ts)
    }

    fn skip_rest(&self) -> Decision {
        if self.in_marker_column() {
            Decision::Skip
        } else {
            Decision::SkipColumn
        }
    }

    /// Decides about one cell of the current row. Malformed keys are skipped; the readers
    /// that produce keys verify checksums, so a malformed key here is a bug, not bad disk.
    pub fn decide(&mut self, key: &[u8]) -> Decision {
        let Some(suffix) = parse_suffix(key) else {
            return Decision::Skip;
        };
        if suffix.seq > self.params.read_point || key == self.last_key.as_slice() {
            return Decision::Skip;
        }
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        let column = key::column_prefix_of(key).unwrap_or(&[]);
        if column != self.column.as_slice() {
            self.start_column(column);
        }
        let ts = suffix.timestamp;
        match suffix.cell_type {
            CellType::Put => self.decide_put(ts),
            marker => {
                if self.marker_applies(ts) {
                    self.deletes.record(marker, ts);
                }
                Decision::Skip
            }
        }
    }

    fn decide_put(&mut self, ts: i64) -> Decision {
        if !self.is_selected() {
            return self.skip_rest();
        }
        if self.last_put_ts.replace(ts) == Some(ts) {
            return Decision::Skip; // overwritten by a later write at the same timestamp
        }
        if self.deletes.is_deleted(ts) {
            return Decision::Skip;
        }
        if ts < self.params.time_range.min {
            return self.skip_rest(); // every older version is below the range too
        }
        if !self.params.time_range.contains(ts) {
            return Decision::Skip; // newer than the range
        }
        self.versions += 1;
        if self.versions > self.params.max_versions {
            return self.skip_rest();
        }
        if ts < self.params.oldest_unexpired_ts && self.versions > self.params.min_versions {
            return self.skip_rest(); // older versions are expired too
        }
        Decision::Include
    }
}
