//! One open scanner's position: the regions still to scan, the current one, and the results
//! cut from a row but not handed out yet. HBase's batching lives here: with a batch of `b`
//! cells, a row of more than `b` cells comes back as several partial results of at most `b`
//! cells each (Thrift's `batchSize`, REST's `batch`).

use std::collections::VecDeque;

use strata_engine::{Cell, RowResult, Scan};

use crate::error::Result;
use crate::filter::{Filter, RowOutcome};
use crate::serving::{RegionRows, RegionSource};

/// What a scanner reads, fixed when it is opened.
pub(crate) struct CursorPlan {
    /// What each region is asked for; its `limit` bounds one region's rows (a hint).
    pub scan: Scan,
    /// Most rows the scanner returns, counted after the filter (HBase's `Scan.setLimit`).
    pub limit: Option<usize>,
    pub filter: Option<Filter>,
    /// With a filter, the engine reads every stored version and this many per column are
    /// kept after the filter (HBase filters among the stored versions first).
    pub versions_after_filter: u32,
    /// The table's regions in scan order.
    pub regions: VecDeque<RegionSource>,
    /// Most cells per result; `None` returns whole rows.
    pub batch: Option<usize>,
}

/// How many rows the filter may skip between two reads of the clock in
/// `take_results_within` (a clock read costs more than skipping a row).
const SKIPS_PER_CLOCK_READ: u32 = 64;

/// What `fill` found.
enum Fill {
    Ready,
    End,
    OutOfTime,
}

/// What `next_row` found.
enum Next {
    Row(RowResult),
    End,
    OutOfTime,
}

/// A scanner's position in its table.
pub(super) struct Cursor {
    plan: CursorPlan,
    current: Option<RegionRows>,
    /// Rows read so far, for the scan's row limit.
    rows_read: usize,
    /// Results cut from rows by the batch (or a result handed out in part, by cells), in
    /// order, before any further row is read.
    ready: VecDeque<RowResult>,
}

impl Cursor {
    pub fn new(plan: CursorPlan) -> Cursor {
        Cursor {
            plan,
            current: None,
            rows_read: 0,
            ready: VecDeque::new(),
        }
    }

    /// Up to `max_results` further results (rows, or parts of rows with a batch), stopping
    /// early once `out_of_time` says so while the filter skips rows (checked every [`SKIPS_PER_CLOCK_READ`] skipped rows); the flag says it
    /// stopped for time, not because the scan ended. HBase answers such a fetch as a
    /// heartbeat, so a scan whose filter drops most rows does not run into the client's
    /// timeout.
    pub fn take_results_within(
        &mut self,
        max_results: usize,
        out_of_time: &dyn Fn() -> bool,
    ) -> Result<(Vec<RowResult>, bool)> {
        let mut results = Vec::with_capacity(max_results.min(1024));
        while results.len() < max_results {
            match self.fill(out_of_time)? {
                Fill::Ready => {}
                Fill::End => break,
                Fill::OutOfTime => return Ok((results, true)),
            }
            if let Some(result) = self.ready.pop_front() {
                results.push(result);
            }
        }
        Ok((results, false))
    }

    /// Up to `max_cells` further cells, from at most `max_rows` rows (0: any number). A
    /// result is split wherever `max_cells` ends; the rest of it comes first next time.
    pub fn take_cells(&mut self, max_cells: usize, max_rows: usize) -> Result<Vec<Cell>> {
        let mut cells: Vec<Cell> = Vec::new();
        let mut rows = 0usize;
        while cells.len() < max_cells && matches!(self.fill(&|| false)?, Fill::Ready) {
            let Some(front) = self.ready.front_mut() else {
                break;
            };
            if cells.last().is_none_or(|c| c.row != front.row) {
                if max_rows > 0 && rows == max_rows {
                    break;
                }
                rows += 1;
            }
            let room = max_cells - cells.len();
            if front.cells.len() <= room {
                cells.append(&mut front.cells);
                self.ready.pop_front();
            } else {
                cells.extend(front.cells.drain(..room));
            }
        }
        Ok(cells)
    }

    /// Makes sure a result is ready.
    fn fill(&mut self, out_of_time: &dyn Fn() -> bool) -> Result<Fill> {
        while self.ready.front().is_some_and(|r| r.cells.is_empty()) {
            self.ready.pop_front();
        }
        if !self.ready.is_empty() {
            return Ok(Fill::Ready);
        }
        let row = match self.next_row(out_of_time)? {
            Next::Row(row) => row,
            Next::End => return Ok(Fill::End),
            Next::OutOfTime => return Ok(Fill::OutOfTime),
        };
        match self.plan.batch {
            Some(batch) if row.cells.len() > batch => self.ready.extend(split(row, batch)),
            _ => self.ready.push_back(row),
        }
        Ok(Fill::Ready)
    }

    /// The next row that passes the filter, from whichever region holds it.
    fn next_row(&mut self, out_of_time: &dyn Fn() -> bool) -> Result<Next> {
        if self.plan.limit.is_some_and(|l| self.rows_read >= l) {
            return Ok(Next::End);
        }
        let mut skipped = 0u32;
        loop {
            if let Some(scanner) = &mut self.current {
                if let Some(row) = scanner.next_row()? {
                    let outcome = match self.plan.filter.as_mut() {
                        None => RowOutcome::Keep(row),
                        Some(filter) => filter.filter_row(row),
                    };
                    match outcome {
                        RowOutcome::Keep(row) => {
                            self.rows_read += 1;
                            let row = trim_versions(row, self.plan.versions_after_filter);
                            return Ok(Next::Row(row));
                        }
                        RowOutcome::Skip => {
                            skipped += 1;
                            if skipped % SKIPS_PER_CLOCK_READ == 0 && out_of_time() {
                                return Ok(Next::OutOfTime);
                            }
                            continue;
                        }
                        RowOutcome::StopScan => {
                            self.plan.regions.clear();
                            self.current = None;
                            return Ok(Next::End);
                        }
                    }
                }
            }
            let Some(region) = self.plan.regions.pop_front() else {
                return Ok(Next::End);
            };
            // A region holds only its own rows, so the scan's bounds apply unchanged.
            self.current = Some(region.scan(&self.plan.scan)?);
        }
    }
}

/// Keeps the newest `versions` cells of each column (cells come ordered by column, newest
/// first).
pub(crate) fn trim_versions(mut row: RowResult, versions: u32) -> RowResult {
    crate::filter::keep_newest(&mut row.cells, versions);
    row
}

/// Splits a row into results of at most `batch` cells each, as HBase's `Scan.setBatch` does.
fn split(row: RowResult, batch: usize) -> Vec<RowResult> {
    row.cells
        .chunks(batch.max(1))
        .map(|cells| RowResult {
            row: row.row.clone(),
            cells: cells.to_vec(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn row_of(cells: usize) -> RowResult {
        RowResult {
            row: Bytes::from_static(b"r"),
            cells: (0..cells)
                .map(|i| Cell::put("r", "f", format!("q{i}"), 1, "v"))
                .collect(),
        }
    }

    #[test]
    fn split_cuts_wide_rows() {
        let parts = split(row_of(5), 2);
        let sizes: Vec<usize> = parts.iter().map(|p| p.cells.len()).collect();
        assert_eq!(sizes, [2, 2, 1]);
    }

    #[test]
    fn cells_are_taken_across_results_and_the_rest_waits() {
        let mut cursor = Cursor::new(CursorPlan {
            scan: Scan::new(),
            limit: None,
            filter: None,
            versions_after_filter: 1,
            regions: VecDeque::new(),
            batch: Some(2),
        });
        cursor.ready.extend(split(row_of(5), 2));
        assert_eq!(cursor.take_cells(3, 0).unwrap().len(), 3);
        assert_eq!(
            cursor.take_results_within(5, &|| false).unwrap().0.len(),
            2,
            "one cell, then two"
        );
        assert!(cursor.take_cells(3, 0).unwrap().is_empty());
    }
}
