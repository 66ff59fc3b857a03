//! checkAndMutate whose condition is a filter (HBase 2.4's `CheckAndMutate.ifMatches(Filter)`,
//! optionally with a time range): the mutation applies when the row, read under its lock
//! within the condition's time range, keeps at least one cell through the filter, as
//! HBase's region server decides it.

use bytes::Bytes;
use strata_engine::{Cell, CellType, Get, RowResult, TimeRange, LATEST_TIMESTAMP};
use strata_server::filter::{Filter, RowOutcome};
use strata_server::names::TableName;

use super::{filters, reads};
use crate::context::Context;
use crate::exception::RemoteException;
use crate::pb;

/// Applies `cells` (a put, a delete or a row's mutations, all on `row`) if the row passes
/// `filter`; returns whether it did.
pub fn apply_if_row_passes(
    ctx: &Context,
    table: &TableName,
    condition: &pb::Condition,
    filter: &pb::Filter,
    cells: Vec<Cell>,
) -> Result<bool, RemoteException> {
    let expr = filters::decode_expr(filter)?;
    let range = reads::time_range(condition.time_range.as_ref())?;
    // Every version over all time: the filter judges the newest version of each column
    // within the range, and a latest-version delete aims at the newest version of all.
    let mut read = Get::new(condition.row.clone());
    read.max_versions = u32::MAX;
    let applied = ctx
        .service
        .rows()
        .read_modify_write_row(table, &read, |current, _now| {
            let passes = current.as_ref().is_some_and(|row| {
                let fresh = expr.clone().map(Filter::new);
                row_passes(newest_within(row, range), fresh)
            });
            if !passes {
                return Ok((Vec::new(), false));
            }
            Ok((resolve_latest_deletes(&cells, current.as_ref()), true))
        })?;
    Ok(applied)
}

/// The newest version of each column of `row` within `range`, as a Get with that time
/// range reads it (cells come by column, newest first).
fn newest_within(row: &RowResult, range: TimeRange) -> RowResult {
    let mut cells: Vec<Cell> = Vec::new();
    for c in row.cells.iter().filter(|c| range.contains(c.timestamp)) {
        let same_column = cells
            .last()
            .is_some_and(|l| l.family == c.family && l.qualifier == c.qualifier);
        if !same_column {
            cells.push(c.clone());
        }
    }
    RowResult {
        row: row.row.clone(),
        cells,
    }
}

/// Whether `row` keeps a cell through `filter` (`None` lets every cell through).
fn row_passes(row: RowResult, filter: Option<Filter>) -> bool {
    match filter {
        None => !row.cells.is_empty(),
        Some(mut filter) => {
            matches!(filter.filter_row(row), RowOutcome::Keep(kept) if !kept.cells.is_empty())
        }
    }
}

/// A delete of a column's latest version (`Delete.addColumn` without a timestamp) aims at
/// the newest version the row read holds; a column with none has nothing to delete.
fn resolve_latest_deletes(cells: &[Cell], row: Option<&RowResult>) -> Vec<Cell> {
    let newest = |family: &Bytes, qualifier: &Bytes| {
        row.and_then(|r| {
            r.cells
                .iter()
                .find(|c| c.family == *family && c.qualifier == *qualifier)
                .map(|c| c.timestamp)
        })
    };
    cells
        .iter()
        .filter_map(|c| {
            if c.cell_type != CellType::Delete || c.timestamp != LATEST_TIMESTAMP {
                return Some(c.clone());
            }
            newest(&c.family, &c.qualifier).map(|timestamp| Cell {
                timestamp,
                ..c.clone()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(q: &[u8], ts: i64) -> Cell {
        Cell::put(b"r".to_vec(), b"f".to_vec(), q.to_vec(), ts, b"v".to_vec())
    }

    #[test]
    fn a_latest_version_delete_aims_at_the_newest_version_read() {
        let row = RowResult {
            row: Bytes::from_static(b"r"),
            cells: vec![put(b"a", 30)],
        };
        let delete = |q: &[u8]| {
            Cell::delete(
                b"r".to_vec(),
                b"f".to_vec(),
                q.to_vec(),
                LATEST_TIMESTAMP,
                CellType::Delete,
            )
        };
        let out = resolve_latest_deletes(&[delete(b"a"), delete(b"b"), put(b"c", 5)], Some(&row));
        assert_eq!(
            out.len(),
            2,
            "the delete of a column with no version is dropped"
        );
        assert_eq!(
            (out[0].qualifier.as_ref(), out[0].timestamp),
            (&b"a"[..], 30)
        );
        assert_eq!(out[1].qualifier.as_ref(), b"c");
    }

    #[test]
    fn within_a_time_range_each_column_shows_its_newest_version_there() {
        let row = RowResult {
            row: Bytes::from_static(b"r"),
            cells: vec![put(b"a", 30), put(b"a", 20), put(b"a", 10), put(b"b", 25)],
        };
        let seen = newest_within(&row, TimeRange::new(0, 21));
        let got: Vec<(&[u8], i64)> = seen
            .cells
            .iter()
            .map(|c| (c.qualifier.as_ref(), c.timestamp))
            .collect();
        assert_eq!(got, vec![(&b"a"[..], 20)]);
    }

    #[test]
    fn a_row_passes_when_the_filter_keeps_a_cell() {
        let row = RowResult {
            row: Bytes::from_static(b"r"),
            cells: vec![put(b"a", 1)],
        };
        assert!(row_passes(row.clone(), None));
        let keep = strata_server::filter::parse("QualifierFilter(=, 'binary:a')").unwrap();
        let drop = strata_server::filter::parse("QualifierFilter(=, 'binary:z')").unwrap();
        assert!(row_passes(row.clone(), Some(keep)));
        assert!(!row_passes(row, Some(drop)));
    }
}
