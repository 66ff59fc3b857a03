//! Row-level filters: each accepts or drops the whole row (SingleColumnValueExcludeFilter and
//! DependentColumnFilter also drop some cells of an accepted row), and the two that end a scan
//! once it has passed their range (PrefixFilter, InclusiveStopFilter).

use std::collections::HashSet;

use strata_engine::{Cell, RowResult};

use super::ast::ColumnTest;
use super::compare::{Comparator, CompareOp};
use super::selection::Verdict;

fn in_column(cell: &Cell, family: &[u8], qualifier: &[u8]) -> bool {
    cell.family == family && cell.qualifier == qualifier
}

/// PrefixFilter: rows starting with `prefix`. Once a row sorts past every row with the prefix
/// (before them, for a reversed scan), the scan stops, as HBase's `filterAllRemaining` does.
pub(crate) fn prefix(row: &RowResult, prefix: &[u8], reversed: bool) -> Verdict {
    let n = prefix.len().min(row.row.len());
    let order = row.row[..n].cmp(prefix);
    let passed = if reversed {
        order.is_lt()
    } else {
        order.is_gt()
    };
    if passed {
        return Verdict::Stop;
    }
    Verdict::row(row.cells.len(), row.row.starts_with(prefix))
}

/// InclusiveStopFilter: rows up to and including `stop`; the first row beyond it (below it,
/// for a reversed scan) stops the scan.
pub(crate) fn inclusive_stop(row: &RowResult, stop: &[u8], reversed: bool) -> Verdict {
    let order = row.row[..].cmp(stop);
    let done = if reversed {
        order.is_lt()
    } else {
        order.is_gt()
    };
    if done {
        Verdict::Stop
    } else {
        Verdict::all(row.cells.len())
    }
}

/// SingleColumnValueFilter's row decision: the row passes when the column's newest version
/// passes (or, without latestVersionOnly, any version does); a row without the column passes
/// unless filterIfMissing.
pub(crate) fn column_value_passes(row: &RowResult, t: &ColumnTest) -> bool {
    let mut versions = row
        .cells
        .iter()
        .filter(|c| in_column(c, &t.family, &t.qualifier))
        .peekable();
    if versions.peek().is_none() {
        return !t.filter_if_missing;
    }
    if t.latest_version_only {
        versions
            .next()
            .is_some_and(|c| t.comparator.test(t.op, &c.value))
    } else {
        versions.any(|c| t.comparator.test(t.op, &c.value))
    }
}

/// SingleColumnValueFilter.
pub(crate) fn single_column_value(row: &RowResult, t: &ColumnTest) -> Verdict {
    Verdict::row(row.cells.len(), column_value_passes(row, t))
}

/// SingleColumnValueExcludeFilter: as SingleColumnValueFilter, without the tested column.
pub(crate) fn single_column_value_exclude(row: &RowResult, t: &ColumnTest) -> Verdict {
    if !column_value_passes(row, t) {
        return Verdict::none(row.cells.len());
    }
    Verdict::select(row.cells.len(), |i| {
        !in_column(&row.cells[i], &t.family, &t.qualifier)
    })
}

/// DependentColumnFilter's first step (HBase's `filterCell`), where the timestamp match is left
/// to the end of the row (HBase's `filterRowCells`, after the scan's version limit): every cell
/// outside the dependent column passes for now, and the dependent column's cells pass if they
/// pass the value test and are not dropped. Returns the timestamps to match: those of the
/// dependent column's passing versions (of the versions the filter is shown: see
/// `Filter::filter_row`).
pub(crate) fn dependent_column_cells(
    row: &RowResult,
    family: &[u8],
    qualifier: &[u8],
    drop_dependent: bool,
    test: Option<&(CompareOp, Comparator)>,
) -> (Verdict, HashSet<i64>) {
    let passes = |c: &Cell| test.is_none_or(|(op, cmp)| cmp.test(*op, &c.value));
    let stamps = dependent_stamps(row, family, qualifier, &passes);
    let verdict = Verdict::select(row.cells.len(), |i| {
        let cell = &row.cells[i];
        !in_column(cell, family, qualifier) || (!drop_dependent && passes(cell))
    });
    (verdict, stamps)
}

/// DependentColumnFilter in one step, where it cannot wait for the end of the row (under an
/// OR, SKIP or WHILE): the timestamps of the dependent column's cells that pass the value
/// test (every cell, without a test) select the row's cells with those timestamps. The
/// dependent column's own cells are kept only if they pass and `drop_dependent` is false.
pub(crate) fn dependent_column(
    row: &RowResult,
    family: &[u8],
    qualifier: &[u8],
    drop_dependent: bool,
    test: Option<&(CompareOp, Comparator)>,
) -> Verdict {
    let passes = |c: &Cell| test.is_none_or(|(op, cmp)| cmp.test(*op, &c.value));
    let stamps = dependent_stamps(row, family, qualifier, &passes);
    Verdict::select(row.cells.len(), |i| {
        let cell = &row.cells[i];
        if in_column(cell, family, qualifier) {
            !drop_dependent && passes(cell)
        } else {
            stamps.contains(&cell.timestamp)
        }
    })
}

/// The timestamps of the dependent column's cells that pass the value test.
fn dependent_stamps(
    row: &RowResult,
    family: &[u8],
    qualifier: &[u8],
    passes: &dyn Fn(&Cell) -> bool,
) -> HashSet<i64> {
    row.cells
        .iter()
        .filter(|c| in_column(c, family, qualifier) && passes(c))
        .map(|c| c.timestamp)
        .collect()
}
