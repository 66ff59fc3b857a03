//! The parsed form of a filter string, and its canonical printed form.
//!
//! Printing gives a filter string that parses back to an equal [`Expr`]. Defaults are left
//! out (`KeyOnlyFilter(false)` prints as `KeyOnlyFilter()`), and AND/OR operands that are
//! themselves AND/OR lists are parenthesized. Byte strings that are not UTF-8 print lossily.

use std::fmt;

use bytes::Bytes;

use super::compare::{Comparator, CompareOp};

/// A filter expression: one filter, or filters combined with AND / OR / SKIP / WHILE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// One filter call.
    Filter(FilterSpec),
    /// HBase's FilterList with MUST_PASS_ALL (two or more operands).
    And(Vec<Expr>),
    /// HBase's FilterList with MUST_PASS_ONE (two or more operands).
    Or(Vec<Expr>),
    /// HBase's SkipFilter: a row passes only if every one of its cells passes the operand.
    Skip(Box<Expr>),
    /// HBase's WhileMatchFilter: the scan ends at the first row the operand does not pass.
    While(Box<Expr>),
}

/// A column-value test: the column, operator and comparator of SingleColumnValueFilter and
/// its Exclude variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnTest {
    pub family: Bytes,
    pub qualifier: Bytes,
    pub op: CompareOp,
    pub comparator: Comparator,
    /// Drop the row when it has no cell in the column (HBase default false).
    pub filter_if_missing: bool,
    /// Test only the newest version of the column (HBase default true).
    pub latest_version_only: bool,
}

/// One filter call with its arguments, in HBase's argument order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterSpec {
    /// `KeyOnlyFilter([lenAsValue])`: values become empty, or their 4-byte big-endian length.
    KeyOnly { len_as_value: bool },
    /// `FirstKeyOnlyFilter()`: only the first cell of each row.
    FirstKeyOnly,
    /// `PrefixFilter('p')`: rows whose key starts with p.
    Prefix(Bytes),
    /// `ColumnPrefixFilter('p')`: cells whose qualifier starts with p.
    ColumnPrefix(Bytes),
    /// `MultipleColumnPrefixFilter('a', 'b', …)`: cells whose qualifier starts with any (every
    /// cell when there is no prefix, as in HBase). The prefixes are distinct.
    MultipleColumnPrefix(Vec<Bytes>),
    /// `ColumnCountGetFilter(n)`: the newest version of the first n columns of each row.
    ColumnCountGet(i32),
    /// `PageFilter(n)`: at most n rows, then the scan ends.
    Page(i64),
    /// `ColumnPaginationFilter(limit, offset)`: the newest version of columns
    /// offset..offset+limit of each row.
    ColumnPagination { limit: i32, offset: i32 },
    /// `InclusiveStopFilter('r')`: rows up to and including r, then the scan ends.
    InclusiveStop(Bytes),
    /// `TimestampsFilter(t, …)`: cells with one of these timestamps.
    Timestamps(Vec<i64>),
    /// `RowFilter(op, 'cmp')`.
    Row(CompareOp, Comparator),
    /// `FamilyFilter(op, 'cmp')`.
    Family(CompareOp, Comparator),
    /// `QualifierFilter(op, 'cmp')`.
    Qualifier(CompareOp, Comparator),
    /// `ValueFilter(op, 'cmp')`.
    Value(CompareOp, Comparator),
    /// `ColumnRangeFilter('min', minInclusive, 'max', maxInclusive)`; an empty bound is open.
    ColumnRange {
        min: Bytes,
        min_inclusive: bool,
        max: Bytes,
        max_inclusive: bool,
    },
    /// `SingleColumnValueFilter('f', 'q', op, 'cmp'[, filterIfMissing, latestVersionOnly])`.
    SingleColumnValue(ColumnTest),
    /// `SingleColumnValueExcludeFilter(…)`: as SingleColumnValueFilter, and the tested column
    /// is left out of the result.
    SingleColumnValueExclude(ColumnTest),
    /// `DependentColumnFilter('f', 'q'[, dropDependentColumn[, op, 'cmp']])`: keeps cells whose
    /// timestamp matches a (passing) cell of the dependent column.
    DependentColumn {
        family: Bytes,
        qualifier: Bytes,
        drop_dependent: bool,
        test: Option<(CompareOp, Comparator)>,
    },
    /// `ColumnValueFilter('f', 'q', op, 'cmp')`: only the cells of that column whose value
    /// passes.
    ColumnValue {
        family: Bytes,
        qualifier: Bytes,
        op: CompareOp,
        comparator: Comparator,
    },
}

impl FilterSpec {
    /// The filter's name in the filter language.
    pub fn name(&self) -> &'static str {
        match self {
            FilterSpec::KeyOnly { .. } => "KeyOnlyFilter",
            FilterSpec::FirstKeyOnly => "FirstKeyOnlyFilter",
            FilterSpec::Prefix(_) => "PrefixFilter",
            FilterSpec::ColumnPrefix(_) => "ColumnPrefixFilter",
            FilterSpec::MultipleColumnPrefix(_) => "MultipleColumnPrefixFilter",
            FilterSpec::ColumnCountGet(_) => "ColumnCountGetFilter",
            FilterSpec::Page(_) => "PageFilter",
            FilterSpec::ColumnPagination { .. } => "ColumnPaginationFilter",
            FilterSpec::InclusiveStop(_) => "InclusiveStopFilter",
            FilterSpec::Timestamps(_) => "TimestampsFilter",
            FilterSpec::Row(..) => "RowFilter",
            FilterSpec::Family(..) => "FamilyFilter",
            FilterSpec::Qualifier(..) => "QualifierFilter",
            FilterSpec::Value(..) => "ValueFilter",
            FilterSpec::ColumnRange { .. } => "ColumnRangeFilter",
            FilterSpec::SingleColumnValue(_) => "SingleColumnValueFilter",
            FilterSpec::SingleColumnValueExclude(_) => "SingleColumnValueExcludeFilter",
            FilterSpec::DependentColumn { .. } => "DependentColumnFilter",
            FilterSpec::ColumnValue { .. } => "ColumnValueFilter",
        }
    }
}

/// Writes `bytes` as a quoted string, doubling quotes.
struct Quoted<'a>(&'a [u8]);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = String::from_utf8_lossy(self.0);
        write!(f, "'{}'", text.replace('\'', "''"))
    }
}

/// Writes a comparator as its quoted `type:value` argument.
struct QuotedCmp<'a>(&'a Comparator);

impl fmt::Display for QuotedCmp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        write!(f, "'{}'", text.replace('\'', "''"))
    }
}

fn write_column_test(f: &mut fmt::Formatter<'_>, t: &ColumnTest) -> fmt::Result {
    write!(
        f,
        "{}, {}, {}, {}",
        Quoted(&t.family),
        Quoted(&t.qualifier),
        t.op,
        QuotedCmp(&t.comparator)
    )?;
    if t.filter_if_missing || !t.latest_version_only {
        write!(f, ", {}, {}", t.filter_if_missing, t.latest_version_only)?;
    }
    Ok(())
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl fmt::Display for FilterSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name())?;
        match self {
            FilterSpec::KeyOnly { len_as_value } => {
                if *len_as_value {
                    f.write_str("true")?;
                }
            }
            FilterSpec::FirstKeyOnly => {}
            FilterSpec::Prefix(p) | FilterSpec::ColumnPrefix(p) | FilterSpec::InclusiveStop(p) => {
                write!(f, "{}", Quoted(p))?
            }
            FilterSpec::MultipleColumnPrefix(ps) => {
                let quoted: Vec<Quoted<'_>> = ps.iter().map(|p| Quoted(p)).collect();
                write_list(f, &quoted)?;
            }
            FilterSpec::ColumnCountGet(n) => write!(f, "{n}")?,
            FilterSpec::Page(n) => write!(f, "{n}")?,
            FilterSpec::ColumnPagination { limit, offset } => write!(f, "{limit}, {offset}")?,
            FilterSpec::Timestamps(ts) => write_list(f, ts)?,
            FilterSpec::Row(op, c)
            | FilterSpec::Family(op, c)
            | FilterSpec::Qualifier(op, c)
            | FilterSpec::Value(op, c) => write!(f, "{op}, {}", QuotedCmp(c))?,
            FilterSpec::ColumnRange {
                min,
                min_inclusive,
                max,
                max_inclusive,
            } => write!(
                f,
                "{}, {min_inclusive}, {}, {max_inclusive}",
                Quoted(min),
                Quoted(max)
            )?,
            FilterSpec::SingleColumnValue(t) | FilterSpec::SingleColumnValueExclude(t) => {
                write_column_test(f, t)?
            }
            FilterSpec::DependentColumn {
                family,
                qualifier,
                drop_dependent,
                test,
            } => {
                write!(f, "{}, {}", Quoted(family), Quoted(qualifier))?;
                match test {
                    Some((op, c)) => write!(f, ", {drop_dependent}, {op}, {}", QuotedCmp(c))?,
                    None if *drop_dependent => f.write_str(", true")?,
                    None => {}
                }
            }
            FilterSpec::ColumnValue {
                family,
                qualifier,
                op,
                comparator,
            } => write!(
                f,
                "{}, {}, {op}, {}",
                Quoted(family),
                Quoted(qualifier),
                QuotedCmp(comparator)
            )?,
        }
        f.write_str(")")
    }
}

/// Writes an operand of AND / OR / SKIP / WHILE, parenthesized when it is a list.
struct Operand<'a>(&'a Expr);

impl fmt::Display for Operand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Expr::And(_) | Expr::Or(_) => write!(f, "({})", self.0),
            other => write!(f, "{other}"),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Filter(spec) => write!(f, "{spec}"),
            Expr::And(items) | Expr::Or(items) => {
                let sep = if matches!(self, Expr::And(_)) {
                    " AND "
                } else {
                    " OR "
                };
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    write!(f, "{}", Operand(item))?;
                }
                Ok(())
            }
            Expr::Skip(inner) => write!(f, "SKIP {}", Operand(inner)),
            Expr::While(inner) => write!(f, "WHILE {}", Operand(inner)),
        }
    }
}
