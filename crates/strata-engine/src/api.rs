//! Request types for reads: Get and Scan, as HBase defines them.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use crate::cell::Cell;

/// A half-open timestamp range `[min, max)`, like HBase's TimeRange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub min: i64,
    pub max: i64,
}

impl Default for TimeRange {
    fn default() -> Self {
        TimeRange::ALL
    }
}

impl TimeRange {
    /// Every timestamp.
    pub const ALL: TimeRange = TimeRange {
        min: 0,
        max: i64::MAX,
    };

    /// `[min, max)`.
    pub fn new(min: i64, max: i64) -> Self {
        TimeRange { min, max }
    }

    /// Exactly one timestamp.
    pub fn at(ts: i64) -> Self {
        TimeRange {
            min: ts,
            max: ts.saturating_add(1),
        }
    }

    /// True if `ts` falls in the range. `i64::MAX` is included in the unbounded range.
    pub fn contains(&self, ts: i64) -> bool {
        ts >= self.min && (ts < self.max || (self.max == i64::MAX && ts == i64::MAX))
    }

    /// True if the range covers every timestamp.
    pub fn is_all(&self) -> bool {
        self.min <= 0 && self.max == i64::MAX
    }
}

/// Which columns a read returns: an empty map means every family; a family mapped to `None`
/// means every qualifier of that family.
pub type ColumnSelection = BTreeMap<Bytes, Option<BTreeSet<Bytes>>>;

/// A point read of one row.
#[derive(Debug, Clone)]
pub struct Get {
    pub row: Bytes,
    pub columns: ColumnSelection,
    /// Versions per column to return (HBase's default is 1).
    pub max_versions: u32,
    pub time_range: TimeRange,
}

impl Get {
    /// The newest version of every column of `row`.
    pub fn new(row: impl Into<Bytes>) -> Self {
        Get {
            row: row.into(),
            columns: ColumnSelection::new(),
            max_versions: 1,
            time_range: TimeRange::ALL,
        }
    }

    /// Adds a whole family to the selection.
    pub fn family(mut self, family: impl Into<Bytes>) -> Self {
        self.columns.insert(family.into(), None);
        self
    }

    /// Adds one column to the selection.
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        add_column(&mut self.columns, family.into(), qualifier.into());
        self
    }

    /// Sets the number of versions per column.
    pub fn versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }

    /// Restricts to a time range.
    pub fn time_range(mut self, range: TimeRange) -> Self {
        self.time_range = range;
        self
    }
}

/// A range read over rows. For a reversed scan `start_row` is the highest row (inclusive) and
/// `stop_row` the lowest (exclusive), as in HBase. Empty bounds are open.
#[derive(Debug, Clone)]
pub struct Scan {
    pub start_row: Bytes,
    pub stop_row: Bytes,
    pub reversed: bool,
    pub columns: ColumnSelection,
    pub max_versions: u32,
    pub time_range: TimeRange,
    /// Maximum number of rows returned.
    pub limit: Option<usize>,
    /// HBase's `Scan.setCacheBlocks`: when false, the data blocks this scan reads from disk
    /// are not inserted into the block cache (either level), so a one-off full scan does
    /// not push out the working set. Blocks already cached are still used. Default true.
    pub cache_blocks: bool,
}

impl Default for Scan {
    /// Like a derived default (no versions: callers set them), but caching blocks, as in
    /// HBase.
    fn default() -> Self {
        Scan {
            start_row: Bytes::new(),
            stop_row: Bytes::new(),
            reversed: false,
            columns: ColumnSelection::new(),
            max_versions: 0,
            time_range: TimeRange::ALL,
            limit: None,
            cache_blocks: true,
        }
    }
}

impl Scan {
    /// A forward scan of every row, newest version only.
    pub fn new() -> Self {
        Scan {
            max_versions: 1,
            ..Scan::default()
        }
    }

    /// Sets whether the blocks this scan reads enter the block cache.
    pub fn cache_blocks(mut self, cache_blocks: bool) -> Self {
        self.cache_blocks = cache_blocks;
        self
    }

    /// Sets the row range.
    pub fn range(mut self, start: impl Into<Bytes>, stop: impl Into<Bytes>) -> Self {
        self.start_row = start.into();
        self.stop_row = stop.into();
        self
    }

    /// Makes the scan go from high rows to low rows.
    pub fn reversed(mut self, reversed: bool) -> Self {
        self.reversed = reversed;
        self
    }

    /// Adds a whole family to the selection.
    pub fn family(mut self, family: impl Into<Bytes>) -> Self {
        self.columns.insert(family.into(), None);
        self
    }

    /// Adds one column to the selection.
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        add_column(&mut self.columns, family.into(), qualifier.into());
        self
    }

    /// Sets the number of versions per column.
    pub fn versions(mut self, n: u32) -> Self {
        self.max_versions = n;
        self
    }

    /// Restricts to a time range.
    pub fn time_range(mut self, range: TimeRange) -> Self {
        self.time_range = range;
        self
    }

    /// Caps the number of rows.
    pub fn limit(mut self, rows: usize) -> Self {
        self.limit = Some(rows);
        self
    }
}

fn add_column(columns: &mut ColumnSelection, family: Bytes, qualifier: Bytes) {
    // A family mapped to None already selects every qualifier.
    if let Some(set) = columns
        .entry(family)
        .or_insert_with(|| Some(BTreeSet::new()))
    {
        set.insert(qualifier);
    }
}

/// The cells of one row, ordered by family, qualifier, then timestamp descending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowResult {
    pub row: Bytes,
    pub cells: Vec<Cell>,
}
