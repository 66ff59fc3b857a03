//! A region scanner: walks rows forward or backward across every selected store, merging
//! the stores' rows by row key and skipping rows with nothing visible.

use std::sync::Arc;

use bytes::Bytes;

use crate::api::RowResult;
use crate::error::{Error, Result};
use crate::iter::KvIter;
use crate::key;
use crate::read::matcher::RowMatcher;
use crate::read::merge::MergingIter;
use crate::read::row::read_row;
use crate::store::StoreView;

/// One store's part of a scan.
pub struct FamilyCursor {
    pub family: Bytes,
    pub iter: MergingIter,
    pub matcher: RowMatcher,
    /// Keeps the files and memstores of the scan's snapshot alive: held, never read.
    pub _view: Arc<StoreView>,
}

/// Greater than every escaped row: rows are at most `MAX_ROW_LEN` bytes, so this many 0xFF
/// bytes compare above any of them (escaping turns a row's end into `00 01`).
fn above_every_row() -> Vec<u8> {
    vec![0xFF; crate::cell::MAX_ROW_LEN + 2]
}

/// Rows of a region in order, as an iterator of results.
pub struct RegionScanner {
    cursors: Vec<FamilyCursor>,
    reversed: bool,
    /// Forward: escaped start row (inclusive) and stop row (exclusive, empty = none).
    /// Reverse: `upper` is the exclusive key bound for the next row, `lower` the escaped stop
    /// row (exclusive, empty = none).
    lower: Vec<u8>,
    upper: Vec<u8>,
    limit: Option<usize>,
    returned: usize,
    started: bool,
    done: bool,
}

impl RegionScanner {
    /// A scanner over `cursors` between `start_row` and `stop_row` (HBase semantics: for a
    /// reversed scan the start row is the high end).
    pub(crate) fn new(
        cursors: Vec<FamilyCursor>,
        start_row: &[u8],
        stop_row: &[u8],
        reversed: bool,
        limit: Option<usize>,
    ) -> Self {
        let (lower, upper) = if reversed {
            let upper = if start_row.is_empty() {
                above_every_row()
            } else {
                key::row_end(start_row)
            };
            (prefix_or_empty(stop_row), upper)
        } else {
            (prefix_or_empty(start_row), prefix_or_empty(stop_row))
        };
        RegionScanner {
            cursors,
            reversed,
            lower,
            upper,
            limit,
            returned: 0,
            started: false,
            done: false,
        }
    }

    fn next_forward_row(&mut self) -> Result<Option<Vec<u8>>> {
        if !self.started {
            self.started = true;
            let start = self.lower.clone();
            for c in &mut self.cursors {
                c.iter.seek(&start)?;
            }
        }
        let mut best: Option<&[u8]> = None;
        for c in &self.cursors {
            if !c.iter.valid() {
                continue;
            }
            let row = key::row_prefix_of(c.iter.key()).ok_or_else(malformed)?;
            if best.is_none_or(|b| row < b) {
                best = Some(row);
            }
        }
        Ok(best
            .filter(|row| self.upper.is_empty() || *row < self.upper.as_slice())
            .map(<[u8]>::to_vec))
    }

    fn next_reverse_row(&mut self) -> Result<Option<Vec<u8>>> {
        let mut best: Option<Vec<u8>> = None;
        for c in &mut self.cursors {
            if let Some(k) = c.iter.last_key_before(&self.upper)? {
                let row = key::row_prefix_of(&k).ok_or_else(malformed)?.to_vec();
                if best.as_ref().is_none_or(|b| row > *b) {
                    best = Some(row);
                }
            }
        }
        let Some(row) = best.filter(|row| self.lower.is_empty() || *row > self.lower) else {
            return Ok(None);
        };
        for c in &mut self.cursors {
            c.iter.seek(&row)?;
        }
        self.upper = row.clone();
        Ok(Some(row))
    }

    /// The next row with at least one visible cell.
    pub fn next_row(&mut self) -> Result<Option<RowResult>> {
        while !self.done && self.limit.is_none_or(|l| self.returned < l) {
            let next = if self.reversed {
                self.next_reverse_row()?
            } else {
                self.next_forward_row()?
            };
            let Some(prefix) = next else {
                self.done = true;
                break;
            };
            let row = Bytes::from(key::unescape_row(&prefix).ok_or_else(malformed)?);
            let mut cells = Vec::new();
            for c in &mut self.cursors {
                if c.iter.valid() && c.iter.key().starts_with(&prefix) {
                    read_row(
                        &mut c.iter,
                        &mut c.matcher,
                        &row,
                        &prefix,
                        &c.family,
                        &mut cells,
                    )?;
                }
            }
            if !cells.is_empty() {
                self.returned += 1;
                return Ok(Some(RowResult { row, cells }));
            }
        }
        Ok(None)
    }
}

impl Iterator for RegionScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_row() {
            Ok(Some(row)) => Some(Ok(row)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

fn prefix_or_empty(row: &[u8]) -> Vec<u8> {
    if row.is_empty() {
        Vec::new()
    } else {
        key::row_prefix(row)
    }
}

fn malformed() -> Error {
    Error::corruption("<merged read>", 0, "malformed internal key")
}
