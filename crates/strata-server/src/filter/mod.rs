//! HBase's filter language (the filter strings of Thrift1 scans and the HBase shell), parsed
//! and evaluated over rows the engine has already read.
//!
//! ```text
//! PrefixFilter('row1') AND (QualifierFilter(=, 'binary:a') OR SKIP ValueFilter(!=, 'substring:x'))
//! ```
//!
//! [`parse`] turns a filter string into a [`Filter`]; the read path hands each row, after the
//! engine chose its visible cells and versions, to [`Filter::filter_row`], which keeps some of
//! its cells, skips it, or ends the scan. See `eval` for how AND / OR / SKIP / WHILE combine.
//!
//! Where this differs from HBase 2.6 (docs/compatibility.md, "Differential testing against
//! HBase", has HBase's answers; `tests/differential/cases.py --found` shows them):
//! - `(A OR B AND C)` and `(A AND SKIP B)` parse inside parentheses too (HBase fails on them).
//! - Arguments must be separated by commas (HBase also accepts spaces alone).
//! - `regexstring:` uses Rust's regex syntax: Java-only features (look-around, back-references,
//!   possessive quantifiers) are parse errors; patterns are capped in length and compiled size.
//! - ColumnCountGetFilter limits columns per row on scans too; HBase ends a scan after the
//!   first row with more columns than the limit.
//! - PageFilter counts rows actually returned, wherever it sits (HBase's OR and AND stop asking
//!   their operands at the first decisive one, so a PageFilter after it counts too few or too
//!   many rows).
//! - SKIP and WHILE judge a row-level operand by its row decision (HBase's SkipFilter ignores
//!   an operand's row-key test and row-end decisions), pass the scan direction on, and judge
//!   the cells a ColumnPaginationFilter keeps as kept.
//! - A cell of an OR is kept when an operand keeps it as part of its answer for the row: a
//!   SingleColumnValueFilter or SKIP that rejects the row keeps none of its cells (HBase keeps
//!   those it passed before deciding), and a SingleColumnValueExcludeFilter or
//!   DependentColumnFilter operand does not cut the other operands' cells.
//! - An AND operand sees every cell the operands before it kept (HBase hides from it the cells
//!   a later operand's seek skips).
//! - None of HBase's seek-hint bugs (cells masked by a family delete, lost cells on reverse
//!   scans with hinting filters in a list, the versions of an empty-qualifier column counted as
//!   columns).

mod args;
mod ast;
mod cells;
mod compare;
mod error;
mod eval;
pub(crate) use eval::keep_newest;
mod lexer;
mod parser;
mod rows;
mod selection;

#[cfg(test)]
mod tests;

pub use ast::{ColumnTest, Expr, FilterSpec};
pub use compare::{
    Comparator, ComparatorKind, CompareOp, MAX_REGEX_LEN, MAX_REGEX_MEMORY, MAX_REGEX_NEST,
};
pub use error::FilterError;
pub use eval::{Filter, RowOutcome};
pub use parser::{
    parse_expr, parse_expr_bytes, parse_expr_bytes_with, FilterLimits, MAX_DEPTH, MAX_FILTER_LEN,
};

/// Parses a filter string into a runnable filter. An empty string is an error, as in HBase.
pub fn parse(text: &str) -> Result<Filter, FilterError> {
    parse_expr(text).map(Filter::new)
}

/// Parses a filter string given as bytes (as Thrift carries it).
pub fn parse_bytes(text: &[u8]) -> Result<Filter, FilterError> {
    parse_expr_bytes(text).map(Filter::new)
}

/// [`parse_bytes`] within `limits` (the service's: see `Service::parse_filter`).
pub fn parse_bytes_with(text: &[u8], limits: &FilterLimits) -> Result<Filter, FilterError> {
    parse_expr_bytes_with(text, limits).map(Filter::new)
}
