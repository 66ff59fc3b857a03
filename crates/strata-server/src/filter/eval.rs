//! Running a filter over the rows of a read.
//!
//! The engine first picks each row's visible cells (newest `max_versions` versions, time
//! range, deletes); the filter then sees the whole row, as HBase's filters run after version
//! selection. Every filter computes a [`Verdict`] on the row: stop the scan, or keep / drop
//! each cell. The combinators merge their operands' verdicts cell by cell:
//!
//! - AND (MUST_PASS_ALL): a pipeline, as HBase 2 runs it (HBASE-20565): each operand sees
//!   only the cells the operands before it kept, and a cell survives when every operand keeps
//!   it. So `FamilyFilter(=, 'binary:c') AND ColumnPaginationFilter(1, 0)` pages through the
//!   columns of family c, and a SingleColumnValueFilter after a filter that drops its column
//!   finds the column missing. A row-level operand keeps all of the cells it sees or none, so
//!   a rejected row empties the result. If any operand stops the scan, the AND stops it.
//! - OR (MUST_PASS_ONE): a cell survives when any operand keeps it (a row-level operand that
//!   accepts the row keeps all its cells). An operand that has stopped counts as keeping
//!   nothing; the OR stops only when every operand has stopped, as in HBase.
//! - Value rewrites (KeyOnlyFilter) chain in operand order over the operands that kept the
//!   cell.
//! - SKIP: the operand's result if it kept every cell of the row, else nothing.
//! - WHILE: the operand's result if it kept every cell; otherwise the scan stops at the first
//!   cell the operand drops: the cells of the row before it are returned (HBase's
//!   WhileMatchFilter ends the scan as soon as a cell fails), and no later row is. A row the
//!   operand rejects as a whole has no cell before the failure, so nothing of it is returned.
//!
//! With the read's version limit set ([`Filter::set_versions_after_filter`]), a column's
//! versions are judged newest first only until the filter has kept one more than the limit,
//! as HBase moves on to the next column then: the row is judged again without the older ones.
//!
//! A DependentColumnFilter on the top level or in ANDs reaching it matches timestamps at the
//! end of the row, after the scan's version limit (HBase's `filterRowCells`): of each column
//! only the newest versions the filters kept count, and they stay if their timestamp is the
//! dependent column's. A SingleColumnValueExcludeFilter there leaves its column out at the
//! end of the row too, so the operands after it in an AND still see the column. Elsewhere
//! both select cells in one step.
//!
//! A row left without cells is skipped. PageFilter counts the rows actually returned to the
//! client: it lets rows through until it has seen `n` of them returned, then stops the scan.

use std::collections::HashSet;
use std::fmt;

use strata_engine::RowResult;

use super::ast::{ColumnTest, Expr, FilterSpec};
use super::cells::{column_window, each, first_key_only, in_column_range, key_only};
use super::rows::{
    dependent_column, dependent_column_cells, inclusive_stop, prefix, single_column_value,
    single_column_value_exclude,
};
use super::selection::{Tx, Verdict};

/// What to do with one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowOutcome {
    /// Return the row with these cells (the ones the filter kept, values rewritten).
    Keep(RowResult),
    /// Leave the row out and go on with the next.
    Skip,
    /// Leave the row out and end the scan.
    StopScan,
}

/// A runnable filter: the parsed expression plus the state kept across rows.
#[derive(Debug, Clone)]
pub struct Filter {
    expr: Expr,
    root: Node,
    reversed: bool,
    /// The versions per column the read returns after the filter, when the filter applies
    /// that limit itself (see [`Filter::set_versions_after_filter`]).
    versions: Option<u32>,
}

/// What every node of a row's evaluation may need to know.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    reversed: bool,
}

#[derive(Debug, Clone)]
enum Node {
    Leaf(FilterSpec),
    /// A DependentColumnFilter that matches timestamps at the end of the row; `stamps` are
    /// the current row's.
    Dependent {
        spec: FilterSpec,
        stamps: Option<HashSet<i64>>,
    },
    /// A SingleColumnValueExcludeFilter that leaves its column out at the end of the row (the
    /// operands after it in an AND still see the column).
    Exclude {
        test: ColumnTest,
        passed: bool,
    },
    Page {
        size: i64,
        returned: i64,
    },
    And(Vec<Node>),
    Or(Vec<Node>),
    Skip(Box<Node>),
    While {
        inner: Box<Node>,
        done: bool,
    },
}

impl Node {
    /// `whole_row`: the node's row-end steps apply to the final row (the root, and ANDs
    /// reaching it; HBase's FilterList passes `filterRowCells` on, SKIP and WHILE do not,
    /// and in an OR the other operands' cells would be cut too).
    fn build(expr: &Expr, whole_row: bool) -> Node {
        match expr {
            Expr::Filter(FilterSpec::Page(size)) => Node::Page {
                size: *size,
                returned: 0,
            },
            Expr::Filter(spec @ FilterSpec::DependentColumn { .. }) if whole_row => {
                Node::Dependent {
                    spec: spec.clone(),
                    stamps: None,
                }
            }
            Expr::Filter(FilterSpec::SingleColumnValueExclude(test)) if whole_row => {
                Node::Exclude {
                    test: test.clone(),
                    passed: false,
                }
            }
            Expr::Filter(spec) => Node::Leaf(spec.clone()),
            Expr::And(items) => {
                Node::And(items.iter().map(|e| Node::build(e, whole_row)).collect())
            }
            Expr::Or(items) => Node::Or(items.iter().map(|e| Node::build(e, false)).collect()),
            Expr::Skip(inner) => Node::Skip(Box::new(Node::build(inner, false))),
            Expr::While(inner) => Node::While {
                inner: Box::new(Node::build(inner, false)),
                done: false,
            },
        }
    }

    fn eval(&mut self, row: &RowResult, ctx: Ctx) -> Verdict {
        let n = row.cells.len();
        let reversed = ctx.reversed;
        match self {
            Node::Leaf(spec) => eval_leaf(spec, row, reversed),
            Node::Dependent { spec, stamps } => {
                let FilterSpec::DependentColumn {
                    family,
                    qualifier,
                    drop_dependent,
                    test,
                } = spec
                else {
                    unreachable!("built from a DependentColumnFilter");
                };
                let (verdict, found) =
                    dependent_column_cells(row, family, qualifier, *drop_dependent, test.as_ref());
                *stamps = Some(found);
                verdict
            }
            Node::Exclude { test, passed } => {
                let verdict = single_column_value(row, test);
                *passed = matches!(&verdict, Verdict::Cells(k) if k.iter().any(Option::is_some));
                verdict
            }
            Node::Page { size, returned } => {
                if *returned >= *size {
                    Verdict::Stop
                } else {
                    Verdict::all(n)
                }
            }
            Node::And(items) => {
                let mut acc = vec![Some(Tx::Same); n];
                for item in items {
                    // The operand sees the cells kept so far, with their original values
                    // (HBase passes a cell on only while the verdict is an INCLUDE).
                    let seen: Vec<usize> = (0..n).filter(|&i| acc[i].is_some()).collect();
                    let verdict = if seen.len() == n {
                        item.eval(row, ctx)
                    } else {
                        let visible = RowResult {
                            row: row.row.clone(),
                            cells: seen.iter().map(|&i| row.cells[i].clone()).collect(),
                        };
                        item.eval(&visible, ctx)
                    };
                    let Verdict::Cells(keep) = verdict else {
                        return Verdict::Stop;
                    };
                    for (&i, k) in seen.iter().zip(keep) {
                        acc[i] = match (acc[i], k) {
                            (Some(x), Some(y)) => Some(x.then(y)),
                            _ => None,
                        };
                    }
                }
                Verdict::Cells(acc)
            }
            Node::Or(items) => {
                let mut acc: Vec<Option<Tx>> = vec![None; n];
                let mut all_stopped = true;
                for item in items {
                    let Verdict::Cells(keep) = item.eval(row, ctx) else {
                        continue;
                    };
                    all_stopped = false;
                    for (a, k) in acc.iter_mut().zip(keep) {
                        *a = match (*a, k) {
                            (Some(x), Some(y)) => Some(x.then(y)),
                            (None, y) => y,
                            (x, None) => x,
                        };
                    }
                }
                if all_stopped {
                    Verdict::Stop
                } else {
                    Verdict::Cells(acc)
                }
            }
            Node::Skip(inner) => match inner.eval(row, ctx) {
                Verdict::Cells(keep) if keep.iter().all(Option::is_some) => Verdict::Cells(keep),
                Verdict::Cells(_) => Verdict::none(n),
                Verdict::Stop => Verdict::Stop,
            },
            Node::While { inner, done } => {
                if *done {
                    return Verdict::Stop;
                }
                match inner.eval(row, ctx) {
                    Verdict::Cells(keep) if keep.iter().all(Option::is_some) => {
                        Verdict::Cells(keep)
                    }
                    Verdict::Cells(mut keep) => {
                        // The cells before the first failing one pass; the scan then ends.
                        *done = true;
                        let failed = keep.iter().position(Option::is_none).unwrap_or(n);
                        keep[failed..].fill(None);
                        Verdict::Cells(keep)
                    }
                    Verdict::Stop => {
                        *done = true;
                        Verdict::Stop
                    }
                }
            }
        }
    }

    /// Applies the row-end steps of the current row to its final cells: the timestamp match
    /// of DependentColumnFilters, the column SingleColumnValueExcludeFilters leave out.
    fn finish_row(&mut self, cells: &mut Vec<strata_engine::Cell>) {
        match self {
            Node::Dependent { stamps, .. } => {
                if let Some(stamps) = stamps.take() {
                    cells.retain(|c| stamps.contains(&c.timestamp));
                }
            }
            Node::Exclude { test, passed } => {
                // A rejected row is dropped anyway; the flag is reset for the next row.
                let row_passed = std::mem::take(passed);
                if row_passed {
                    cells.retain(|c| c.family != test.family || c.qualifier != test.qualifier);
                }
            }
            Node::And(items) => items.iter_mut().for_each(|i| i.finish_row(cells)),
            _ => {}
        }
    }

    /// Tells the stateful filters that the row they just saw was returned.
    fn returned(&mut self) {
        match self {
            Node::Leaf(_) | Node::Dependent { .. } | Node::Exclude { .. } => {}
            Node::Page { returned, .. } => *returned = returned.saturating_add(1),
            Node::And(items) | Node::Or(items) => items.iter_mut().for_each(Node::returned),
            Node::Skip(inner) | Node::While { inner, .. } => inner.returned(),
        }
    }
}

fn eval_leaf(spec: &FilterSpec, row: &RowResult, reversed: bool) -> Verdict {
    let n = row.cells.len();
    match spec {
        FilterSpec::KeyOnly { len_as_value } => key_only(row, *len_as_value),
        FilterSpec::FirstKeyOnly => first_key_only(row),
        FilterSpec::Prefix(p) => prefix(row, p, reversed),
        FilterSpec::ColumnPrefix(p) => each(row, |c| c.qualifier.starts_with(p)),
        // Without prefixes HBase's filter passes every cell.
        FilterSpec::MultipleColumnPrefix(ps) if ps.is_empty() => Verdict::all(n),
        FilterSpec::MultipleColumnPrefix(ps) => {
            each(row, |c| ps.iter().any(|p| c.qualifier.starts_with(p)))
        }
        FilterSpec::ColumnCountGet(limit) => {
            column_window(row, 0, usize::try_from(*limit).unwrap_or(0))
        }
        // Handled by Node::Page; a bare spec here passes everything.
        FilterSpec::Page(_) => Verdict::all(n),
        FilterSpec::ColumnPagination { limit, offset } => column_window(
            row,
            usize::try_from(*offset).unwrap_or(0),
            usize::try_from(*limit).unwrap_or(0),
        ),
        FilterSpec::InclusiveStop(stop) => inclusive_stop(row, stop, reversed),
        FilterSpec::Timestamps(ts) => each(row, |c| ts.contains(&c.timestamp)),
        FilterSpec::Row(op, cmp) => Verdict::row(n, cmp.test(*op, &row.row)),
        FilterSpec::Family(op, cmp) => each(row, |c| cmp.test(*op, &c.family)),
        FilterSpec::Qualifier(op, cmp) => each(row, |c| cmp.test(*op, &c.qualifier)),
        FilterSpec::Value(op, cmp) => each(row, |c| cmp.test(*op, &c.value)),
        FilterSpec::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => each(row, |c| {
            in_column_range(&c.qualifier, min, *min_inclusive, max, *max_inclusive)
        }),
        FilterSpec::SingleColumnValue(t) => single_column_value(row, t),
        FilterSpec::SingleColumnValueExclude(t) => single_column_value_exclude(row, t),
        FilterSpec::DependentColumn {
            family,
            qualifier,
            drop_dependent,
            test,
        } => dependent_column(row, family, qualifier, *drop_dependent, test.as_ref()),
        FilterSpec::ColumnValue {
            family,
            qualifier,
            op,
            comparator,
        } => each(row, |c| {
            c.family == family && c.qualifier == qualifier && comparator.test(*op, &c.value)
        }),
    }
}

impl Filter {
    /// A fresh filter (no rows seen yet) for `expr`.
    pub fn new(expr: Expr) -> Filter {
        let root = Node::build(&expr, true);
        Filter {
            expr,
            root,
            reversed: false,
            versions: None,
        }
    }

    /// The parsed expression.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Declares that rows arrive in reverse order (PrefixFilter and InclusiveStopFilter then
    /// stop the scan once rows fall below their range instead of above it).
    pub fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }

    /// Makes the filter keep at most `versions` cells per column of each row itself, after
    /// judging the stored versions and before its row-end steps, as HBase orders them: it
    /// judges a column's versions, newest first, until it has kept `versions + 1` of them (the
    /// older ones it never sees), and a DependentColumnFilter then matches only the versions
    /// the read returns. The read gets every stored version and need not cut them again.
    pub fn set_versions_after_filter(&mut self, versions: u32) {
        self.versions = Some(versions);
    }

    /// Applies the filter to the next row of the read (rows in scan order, each already cut
    /// to its visible cells and versions).
    pub fn filter_row(&mut self, mut row: RowResult) -> RowOutcome {
        let ctx = Ctx {
            reversed: self.reversed,
        };
        // Only a row with a column of more versions than that may be judged again.
        let may_cut = self
            .versions
            .filter(|&v| longest_column(&row) > v.saturating_add(1) as usize);
        let keep = loop {
            let before = may_cut.map(|_| self.root.clone());
            let Verdict::Cells(keep) = self.root.eval(&row, ctx) else {
                return RowOutcome::StopScan;
            };
            // HBase shows the filter a column's versions, newest first, only until it has
            // kept one more than the read returns: it then moves on to the next column. The
            // filter judges the row again without the versions it would not have seen.
            let (Some(versions), Some(before)) = (may_cut, before) else {
                break keep;
            };
            let unseen = unseen_versions(&row, &keep, versions);
            if unseen.is_empty() {
                break keep;
            }
            self.root = before;
            let mut i = 0;
            row.cells.retain(|_| {
                i += 1;
                !unseen.contains(&(i - 1))
            });
        };
        let mut cells: Vec<_> = row
            .cells
            .into_iter()
            .zip(keep)
            .filter_map(|(mut cell, tx)| {
                let tx = tx?;
                cell.value = tx.apply(cell.value);
                Some(cell)
            })
            .collect();
        if let Some(versions) = self.versions {
            keep_newest(&mut cells, versions);
        }
        self.root.finish_row(&mut cells);
        if cells.is_empty() {
            return RowOutcome::Skip;
        }
        self.root.returned();
        RowOutcome::Keep(RowResult {
            row: row.row,
            cells,
        })
    }
}

/// The most cells of one column in `row` (cells come ordered by column).
fn longest_column(row: &RowResult) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for (i, cell) in row.cells.iter().enumerate() {
        let same = i > 0 && {
            let previous = &row.cells[i - 1];
            previous.family == cell.family && previous.qualifier == cell.qualifier
        };
        run = if same { run + 1 } else { 1 };
        longest = longest.max(run);
    }
    longest
}

/// The indexes of the cells of `row` after the `versions + 1`-th kept cell of their column
/// (cells come ordered by column, newest first).
fn unseen_versions(row: &RowResult, keep: &[Option<Tx>], versions: u32) -> HashSet<usize> {
    let mut unseen = HashSet::new();
    let mut kept = 0u32;
    for (i, cell) in row.cells.iter().enumerate() {
        let new_column = i == 0 || {
            let previous = &row.cells[i - 1];
            previous.family != cell.family || previous.qualifier != cell.qualifier
        };
        if new_column {
            kept = 0;
        }
        if kept > versions {
            unseen.insert(i);
        } else if keep[i].is_some() {
            kept += 1;
        }
    }
    unseen
}

/// Keeps the first `versions` cells of each column (cells come ordered by column, newest
/// first).
pub(crate) fn keep_newest(cells: &mut Vec<strata_engine::Cell>, versions: u32) {
    let mut kept = 0u32;
    let mut previous: Option<(bytes::Bytes, bytes::Bytes)> = None;
    cells.retain(|c| {
        let column = (c.family.clone(), c.qualifier.clone());
        if previous.as_ref() != Some(&column) {
            previous = Some(column);
            kept = 0;
        }
        kept += 1;
        kept <= versions
    });
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)
    }
}
