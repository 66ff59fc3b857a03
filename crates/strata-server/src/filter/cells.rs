//! Cell-level filters: each keeps or drops the cells of a row on their own coordinates or
//! value (and KeyOnlyFilter rewrites values). Positional filters (FirstKeyOnly, ColumnCountGet,
//! ColumnPagination) count over the row's cells in order: family, qualifier, newest first.

use std::cmp::Ordering;

use strata_engine::{Cell, RowResult};

use super::selection::{Tx, Verdict};

/// KeyOnlyFilter: every cell kept, its value emptied or replaced by its length.
pub(crate) fn key_only(row: &RowResult, len_as_value: bool) -> Verdict {
    let tx = if len_as_value { Tx::Length } else { Tx::Empty };
    Verdict::Cells(vec![Some(tx); row.cells.len()])
}

/// FirstKeyOnlyFilter: the first cell only.
pub(crate) fn first_key_only(row: &RowResult) -> Verdict {
    Verdict::select(row.cells.len(), |i| i == 0)
}

/// Keeps cells whose `test` holds.
pub(crate) fn each(row: &RowResult, mut test: impl FnMut(&Cell) -> bool) -> Verdict {
    Verdict::Cells(
        row.cells
            .iter()
            .map(|c| test(c).then_some(Tx::Same))
            .collect(),
    )
}

/// The newest version of the columns numbered `from..from+count` (0-based, across families),
/// as ColumnCountGetFilter and ColumnPaginationFilter select them.
pub(crate) fn column_window(row: &RowResult, from: usize, count: usize) -> Verdict {
    let end = from.saturating_add(count);
    let mut column = 0usize;
    let mut keep = Vec::with_capacity(row.cells.len());
    for (i, cell) in row.cells.iter().enumerate() {
        let first_version = i == 0 || !same_column(&row.cells[i - 1], cell);
        if first_version && i > 0 {
            column += 1;
        }
        keep.push((first_version && column >= from && column < end).then_some(Tx::Same));
    }
    Verdict::Cells(keep)
}

fn same_column(a: &Cell, b: &Cell) -> bool {
    a.family == b.family && a.qualifier == b.qualifier
}

/// ColumnRangeFilter's test on one qualifier; an empty bound is open.
pub(crate) fn in_column_range(
    qualifier: &[u8],
    min: &[u8],
    min_inclusive: bool,
    max: &[u8],
    max_inclusive: bool,
) -> bool {
    let above_min = min.is_empty()
        || match qualifier.cmp(min) {
            Ordering::Greater => true,
            Ordering::Equal => min_inclusive,
            Ordering::Less => false,
        };
    let below_max = max.is_empty()
        || match qualifier.cmp(max) {
            Ordering::Less => true,
            Ordering::Equal => max_inclusive,
            Ordering::Greater => false,
        };
    above_min && below_max
}
