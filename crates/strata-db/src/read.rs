//! Read requests: [`Get`] for one row and [`Scan`] for a range of rows.

use bytes::Bytes;
use strata_engine::TimeRange;

/// Rows fetched from the service's scanner per round trip unless a scan says otherwise.
pub const DEFAULT_SCAN_BATCH: usize = 256;

/// A point read of one row: every column's newest version unless narrowed.
///
/// ```
/// use strata_db::Get;
/// let get = Get::new("row1").column("cf", "a").versions(3).filter("ValueFilter(=, 'binary:x')");
/// # let _ = get;
/// ```
#[derive(Debug, Clone)]
pub struct Get {
    pub(crate) inner: strata_engine::Get,
    pub(crate) filter: Option<String>,
}

impl Get {
    /// Reads `row`.
    pub fn new(row: impl Into<Bytes>) -> Self {
        Get {
            inner: strata_engine::Get::new(row),
            filter: None,
        }
    }

    /// Adds a whole family to the columns read (default: every family).
    pub fn family(mut self, family: impl Into<Bytes>) -> Self {
        self.inner = self.inner.family(family);
        self
    }

    /// Adds one column to the columns read.
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.inner = self.inner.column(family, qualifier);
        self
    }

    /// Versions per column to return (default 1).
    pub fn versions(mut self, n: u32) -> Self {
        self.inner = self.inner.versions(n);
        self
    }

    /// Only versions with `min <= timestamp < max` (milliseconds).
    pub fn time_range(mut self, min: i64, max: i64) -> Self {
        self.inner = self.inner.time_range(TimeRange::new(min, max));
        self
    }

    /// Only versions at exactly `timestamp`.
    pub fn timestamp(mut self, timestamp: i64) -> Self {
        self.inner = self.inner.time_range(TimeRange::at(timestamp));
        self
    }

    /// An HBase filter-language string applied to the row, e.g.
    /// `"QualifierFilter(=, 'binary:a')"`.
    pub fn filter(mut self, filter: impl Into<String>) -> Self {
        self.filter = Some(filter.into());
        self
    }
}

/// A read of a range of rows, forward or reversed, streamed in batches.
///
/// ```
/// use strata_db::Scan;
/// let scan = Scan::new()
///     .prefix("user#")
///     .column("cf", "name")
///     .filter("SingleColumnValueFilter('cf', 'age', >=, 'binary:30')")
///     .limit(10);
/// # let _ = scan;
/// ```
#[derive(Debug, Clone)]
pub struct Scan {
    pub(crate) inner: strata_engine::Scan,
    pub(crate) prefix: Option<Bytes>,
    pub(crate) filter: Option<String>,
    pub(crate) limit: Option<usize>,
    pub(crate) batch: usize,
}

impl Default for Scan {
    fn default() -> Self {
        Scan::new()
    }
}

impl Scan {
    /// Every row, newest version of every column.
    pub fn new() -> Self {
        Scan {
            inner: strata_engine::Scan::new(),
            prefix: None,
            filter: None,
            limit: None,
            batch: DEFAULT_SCAN_BATCH,
        }
    }

    /// Rows from `start` (inclusive) to `stop` (exclusive); empty means open. For a reversed
    /// scan `start` is the highest row and `stop` the lowest, as in HBase.
    pub fn range(mut self, start: impl Into<Bytes>, stop: impl Into<Bytes>) -> Self {
        self.inner = self.inner.range(start, stop);
        self
    }

    /// The first row (inclusive).
    pub fn start_row(mut self, start: impl Into<Bytes>) -> Self {
        self.inner.start_row = start.into();
        self
    }

    /// The row to stop before (exclusive).
    pub fn stop_row(mut self, stop: impl Into<Bytes>) -> Self {
        self.inner.stop_row = stop.into();
        self
    }

    /// Only rows starting with `prefix` (replaces the start and stop rows).
    pub fn prefix(mut self, prefix: impl Into<Bytes>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Adds a whole family to the columns read (default: every family).
    pub fn family(mut self, family: impl Into<Bytes>) -> Self {
        self.inner = self.inner.family(family);
        self
    }

    /// Adds one column to the columns read.
    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.inner = self.inner.column(family, qualifier);
        self
    }

    /// Versions per column to return (default 1).
    pub fn versions(mut self, n: u32) -> Self {
        self.inner = self.inner.versions(n);
        self
    }

    /// Only versions with `min <= timestamp < max` (milliseconds).
    pub fn time_range(mut self, min: i64, max: i64) -> Self {
        self.inner = self.inner.time_range(TimeRange::new(min, max));
        self
    }

    /// Scans from high rows to low rows.
    pub fn reversed(mut self, reversed: bool) -> Self {
        self.inner = self.inner.reversed(reversed);
        self
    }

    /// Whether the blocks this scan reads enter the block cache (HBase's `cacheBlocks`,
    /// default true): turn it off for a one-off full scan, so it does not push the working
    /// set out of the cache.
    pub fn cache_blocks(mut self, cache_blocks: bool) -> Self {
        self.inner = self.inner.cache_blocks(cache_blocks);
        self
    }

    /// Returns at most `rows` rows.
    pub fn limit(mut self, rows: usize) -> Self {
        self.limit = Some(rows);
        self
    }

    /// An HBase filter-language string applied to every row, e.g.
    /// `"PrefixFilter('a') AND ValueFilter(=, 'substring:x')"`.
    pub fn filter(mut self, filter: impl Into<String>) -> Self {
        self.filter = Some(filter.into());
        self
    }

    /// Rows fetched from the scanner per round trip (default [`DEFAULT_SCAN_BATCH`]; at
    /// least 1).
    pub fn batch_size(mut self, rows: usize) -> Self {
        self.batch = rows.max(1);
        self
    }
}

/// The smallest key greater than every key starting with `prefix`; empty when there is none.
pub(crate) fn prefix_successor(prefix: &[u8]) -> Bytes {
    let mut key = prefix.to_vec();
    while let Some(last) = key.pop() {
        if last < u8::MAX {
            key.push(last + 1);
            return Bytes::from(key);
        }
    }
    Bytes::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_successor_skips_trailing_ff() {
        assert_eq!(prefix_successor(b"ab"), Bytes::from_static(b"ac"));
        assert_eq!(prefix_successor(b"a\xff"), Bytes::from_static(b"b"));
        assert_eq!(prefix_successor(b"\xff\xff"), Bytes::new());
        assert_eq!(prefix_successor(b""), Bytes::new());
    }
}
