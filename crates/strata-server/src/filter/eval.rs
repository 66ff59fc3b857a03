//! Running a filter over the rows of a read.
//!
//! The engine first picks each row's visible cells (newest `max_versions` versions, time
//! range, deletes); the filter then sees the whole row, as HBase's filters run after version
//! selection. Every filter computes a [`Verdict`] on the row: stop the scan, or keep / drop
//! each cell. The combinators merge their operands' verdicts cell by cell:
//!
//! - AND (MUST_PASS_ALL): a cell survives when every operand keeps it. A row-level operand
//!   keeps all of a row's cells or none, so a rejected row empties the result. If any operand
//!   stops the scan, the AND stops it.
//! - OR (MUST_PASS_ONE): a cell survives when any operand keeps it (a row-level operand that
//!   accepts the row keeps all its cells). An operand that has stopped counts as keeping
//!   nothing; the OR stops only when every operand has stopped, as in HBase.
//! - Value rewrites (KeyOnlyFilter) chain in operand order over the operands that kept the
//!   cell.
//! - SKIP: the operand's result if it kept every cell of the row, else nothing.
//! - WHILE: the operand's result if it kept every cell; otherwise the scan stops at this row,
//!   and stays stopped.
//!
//! A row left without cells is skipped. PageFilter counts the rows actually returned to the
//! client: it lets rows through until it has seen `n` of them returned, then stops the scan.

use std::fmt;

use strata_engine::RowResult;

use super::ast::{Expr, FilterSpec};
use super::cells::{column_window, each, first_key_only, in_column_range, key_only};
use super::rows::{
    dependent_column, inclusive_stop, prefix, single_column_value, single_column_value_exclude,
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
}

#[derive(Debug, Clone)]
enum Node {
    Leaf(FilterSpec),
    Page { size: i64, returned: i64 },
    And(Vec<Node>),
    Or(Vec<Node>),
    Skip(Box<Node>),
    While { inner: Box<Node>, done: bool },
}

impl Node {
    fn build(expr: &Expr) -> Node {
        match expr {
            Expr::Filter(FilterSpec::Page(size)) => Node::Page {
                size: *size,
                returned: 0,
            },
            Expr::Filter(spec) => Node::Leaf(spec.clone()),
            Expr::And(items) => Node::And(items.iter().map(Node::build).collect()),
            Expr::Or(items) => Node::Or(items.iter().map(Node::build).collect()),
            Expr::Skip(inner) => Node::Skip(Box::new(Node::build(inner))),
            Expr::While(inner) => Node::While {
                inner: Box::new(Node::build(inner)),
                done: false,
            },
        }
    }

    fn eval(&mut self, row: &RowResult, reversed: bool) -> Verdict {
        let n = row.cells.len();
        match self {
            Node::Leaf(spec) => eval_leaf(spec, row, reversed),
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
                    let Verdict::Cells(keep) = item.eval(row, reversed) else {
                        return Verdict::Stop;
                    };
                    for (a, k) in acc.iter_mut().zip(keep) {
                        *a = match (*a, k) {
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
                    let Verdict::Cells(keep) = item.eval(row, reversed) else {
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
            Node::Skip(inner) => match inner.eval(row, reversed) {
                Verdict::Cells(keep) if keep.iter().all(Option::is_some) => Verdict::Cells(keep),
                Verdict::Cells(_) => Verdict::none(n),
                Verdict::Stop => Verdict::Stop,
            },
            Node::While { inner, done } => {
                if *done {
                    return Verdict::Stop;
                }
                match inner.eval(row, reversed) {
                    Verdict::Cells(keep) if keep.iter().all(Option::is_some) => {
                        Verdict::Cells(keep)
                    }
                    _ => {
                        *done = true;
                        Verdict::Stop
                    }
                }
            }
        }
    }

    /// Tells the stateful filters that the row they just saw was returned.
    fn returned(&mut self) {
        match self {
            Node::Leaf(_) => {}
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
        let root = Node::build(&expr);
        Filter {
            expr,
            root,
            reversed: false,
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

    /// Applies the filter to the next row of the read (rows in scan order, each already cut
    /// to its visible cells and versions).
    pub fn filter_row(&mut self, row: RowResult) -> RowOutcome {
        let Verdict::Cells(keep) = self.root.eval(&row, self.reversed) else {
            return RowOutcome::StopScan;
        };
        let cells: Vec<_> = row
            .cells
            .into_iter()
            .zip(keep)
            .filter_map(|(mut cell, tx)| {
                let tx = tx?;
                cell.value = tx.apply(cell.value);
                Some(cell)
            })
            .collect();
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

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)
    }
}
