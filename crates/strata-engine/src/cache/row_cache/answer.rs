//! What the row cache keeps per row: the answers to the point reads it served, each keyed by
//! the whole query (like Hypertable's query cache), with what it was computed from.

use bytes::Bytes;

use crate::api::{ColumnSelection, Get, RowResult, TimeRange};
use crate::cell::Cell;

/// A cached row: one region incarnation (see [`super::next_region_id`]) and a row key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RowKey {
    pub region: u64,
    pub row: Bytes,
}

/// The parts of a Get its answer depends on, besides the row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub columns: ColumnSelection,
    pub max_versions: u32,
    pub time_range: TimeRange,
}

impl Query {
    fn matches(&self, get: &Get) -> bool {
        self.max_versions == get.max_versions
            && self.time_range == get.time_range
            && self.columns == get.columns
    }
}

/// One query's answer.
#[derive(Debug, Clone)]
pub struct Answer {
    pub query: Query,
    /// The region's family-settings epoch the answer was read under: an alter (TTL,
    /// versions...) moves it on, and the answer no longer applies.
    pub epoch: u64,
    /// The ids of the store views the answer was read from (see `StoreView::id`): a
    /// flush, compaction or file move installs new views, and a compaction may drop
    /// versions a time-range read still showed, so an answer is only served while the
    /// views are the same.
    pub views: Vec<u64>,
    /// The first clock millisecond at which a returned cell has outlived its family's TTL
    /// (`i64::MAX` when none can expire): the answer is not served from then on.
    pub expires_at_ms: i64,
    pub result: Option<RowResult>,
}

impl Answer {
    /// An answer for `get`, holding copies of the result's bytes: a read's cells may be
    /// slices of a whole data block, which the cache must not keep alive.
    pub fn new(
        get: &Get,
        (epoch, views): (u64, Vec<u64>),
        expires_at_ms: i64,
        result: Option<&RowResult>,
    ) -> Self {
        Answer {
            epoch,
            query: Query {
                columns: owned_columns(&get.columns),
                max_versions: get.max_versions,
                time_range: get.time_range,
            },
            views,
            expires_at_ms,
            result: result.map(compact),
        }
    }

    /// True when this answers `get` read under `epoch` over `views` at clock millisecond
    /// `now_ms`.
    pub fn serves(&self, get: &Get, (epoch, views): (u64, &[u64]), now_ms: i64) -> bool {
        now_ms < self.expires_at_ms
            && self.epoch == epoch
            && self.views == views
            && self.query.matches(get)
    }

    /// Bytes this answer holds, roughly: what the cache's capacity counts.
    pub fn weight(&self) -> u64 {
        let columns: usize = self
            .query
            .columns
            .iter()
            .map(|(family, qualifiers)| {
                family.len()
                    + qualifiers
                        .iter()
                        .flatten()
                        .map(|q| q.len() + 32)
                        .sum::<usize>()
            })
            .sum();
        let cells: usize = self
            .result
            .iter()
            .flat_map(|r| &r.cells)
            .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + CELL_OVERHEAD)
            .sum();
        (ANSWER_OVERHEAD + columns + cells + 8 * self.views.len()) as u64
    }
}

/// Per-cell bookkeeping (the `Cell` struct and its `Bytes` handles).
const CELL_OVERHEAD: usize = 96;
/// Per-answer bookkeeping.
const ANSWER_OVERHEAD: usize = 128;

/// `result` with its bytes in buffers of their own.
fn compact(result: &RowResult) -> RowResult {
    let row = Bytes::copy_from_slice(&result.row);
    let cells = result
        .cells
        .iter()
        .map(|c| Cell {
            row: row.clone(),
            family: Bytes::copy_from_slice(&c.family),
            qualifier: Bytes::copy_from_slice(&c.qualifier),
            timestamp: c.timestamp,
            cell_type: c.cell_type,
            seq: c.seq,
            value: Bytes::copy_from_slice(&c.value),
        })
        .collect();
    RowResult { row, cells }
}

/// `columns` in buffers of their own (a request's names may be slices of its whole frame).
fn owned_columns(columns: &ColumnSelection) -> ColumnSelection {
    let owned = |b: &Bytes| Bytes::copy_from_slice(b);
    columns
        .iter()
        .map(|(family, qualifiers)| {
            let qualifiers = qualifiers.as_ref().map(|qs| qs.iter().map(owned).collect());
            (owned(family), qualifiers)
        })
        .collect()
}
