//! Dropping every row with a key prefix (Bigtable's DropRowRange).
//!
//! The rows must be gone whatever their cells' timestamps (future ones included), and a
//! later write to one of those rows, at any timestamp, must be visible again. HBase's delete
//! markers alone cannot give both: a marker masks every put at or below its timestamp, also
//! puts written after it (until a major compaction removes the marker), so a family marker
//! at LATEST_TIMESTAMP would hide later writes for good.
//!
//! So, in two steps:
//! 1. scan the rows with the prefix, newest version of each column only, and write one
//!    DeleteFamily marker per (row, family) at the newest timestamp seen in that family. It
//!    masks every version of the family's columns (older versions too, even those beyond
//!    VERSIONS that no read shows yet), and nothing newer. From here on reads see the rows
//!    as gone;
//! 2. flush and major-compact the regions holding the prefix: the markers and everything
//!    they mask are physically dropped, so later writes at old timestamps are visible too.
//!
//! Cost: one read of the matching rows plus one small marker per row and family, then a
//! rewrite of the regions overlapping the prefix (their whole size, as any major
//! compaction). The drop is not atomic across rows (neither is Bigtable's): a write racing
//! with it survives if its timestamp is newer than the markers. A family with
//! KEEP_DELETED_CELLS (only settable through HBase's APIs) keeps the markers at compaction,
//! so in such a family later writes at timestamps at or below the dropped cells' stay
//! hidden, as HBase's own deletes behave there.

use std::collections::BTreeMap;

use bytes::Bytes;
use strata_engine::{Cell, CellType, Durability, RowResult, Scan};

use super::rows::Rows;
use crate::error::Result;
use crate::names::TableName;
use crate::remote::{Origin, RegionWork, RowSpan};
use crate::row_stream::RowStream;

/// Rows read per batch; one batch's markers go out in one mutation.
const BATCH_ROWS: usize = 512;

// On `Rows` rather than `Admin`: it writes rows (markers, then a compaction of the regions
// they went to) and reads them through an unregistered row stream, so it needs the row
// writer and the directory, and nothing of the catalog or of the scanner registry.
impl Rows {
    /// Deletes every cell of every row whose key starts with `prefix` (see the module
    /// documentation for how later writes stay visible). An empty prefix means every row.
    pub fn drop_rows_with_prefix(&self, table: &TableName, prefix: &[u8]) -> Result<()> {
        // Bigtable's DropRowRange is table administration: it asks what a truncate does.
        let scope = crate::access::scope_of(table);
        self.access.require_admin(
            strata_access::AdminOp::TruncateTable,
            strata_access::Target::Table(&scope),
        )?;
        let stop = prefix_end(prefix);
        let scan = Scan::new().range(Bytes::copy_from_slice(prefix), stop.clone());
        let stream = crate::row_stream::RowStream::open(&self.directory, table, scan)?;
        let rows = self.mark_rows(table, stream)?;
        self.compact_range(table, prefix, &stop)?;
        tracing::info!(table = %table, rows, "rows dropped by prefix");
        Ok(())
    }

    /// Writes the markers for every row of `stream`; answers how many rows.
    fn mark_rows(&self, table: &TableName, mut stream: RowStream) -> Result<usize> {
        let mut rows = 0;
        loop {
            let batch = next_batch(&mut stream)?;
            if batch.is_empty() {
                return Ok(rows);
            }
            rows += batch.len();
            let markers: Vec<Cell> = batch.iter().flat_map(family_markers).collect();
            if !markers.is_empty() {
                self.mutate(table, markers, Durability::SyncWal)?;
            }
        }
    }

    /// Flushes and major-compacts the regions overlapping `[start, stop)`, wherever they
    /// are served. A region being split or merged is skipped: its files are rewritten into
    /// the new regions, whose compactions drop the markers in turn (reads see the rows as
    /// gone already).
    fn compact_range(&self, table: &TableName, start: &[u8], stop: &[u8]) -> Result<()> {
        let span = RowSpan {
            start: Bytes::copy_from_slice(start),
            end: Bytes::copy_from_slice(stop),
        };
        self.directory
            .maintenance()
            .on_span(table, &span, RegionWork::MajorCompact, Origin::Client)
            .map(|_| ())
    }
}

/// Up to [`BATCH_ROWS`] further rows of `stream` (empty at its end).
fn next_batch(stream: &mut RowStream) -> Result<Vec<RowResult>> {
    let mut batch = Vec::new();
    while batch.len() < BATCH_ROWS {
        match stream.next_row()? {
            Some(row) => batch.push(row),
            None => break,
        }
    }
    Ok(batch)
}

/// One DeleteFamily marker per family of `row`, at the newest timestamp in that family.
fn family_markers(row: &RowResult) -> Vec<Cell> {
    let mut newest: BTreeMap<&Bytes, i64> = BTreeMap::new();
    for cell in &row.cells {
        let ts = newest.entry(&cell.family).or_insert(cell.timestamp);
        *ts = (*ts).max(cell.timestamp);
    }
    newest
        .into_iter()
        .map(|(family, ts)| {
            Cell::delete(
                row.row.clone(),
                family.clone(),
                Bytes::new(),
                ts,
                CellType::DeleteFamily,
            )
        })
        .collect()
}

/// The first key after every key starting with `prefix` (empty: no end).
pub(crate) fn prefix_end(prefix: &[u8]) -> Bytes {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Bytes::from(end);
        }
    }
    Bytes::new()
}

#[cfg(test)]
mod tests;
