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

mod args;
mod ast;
mod cells;
mod compare;
mod error;
mod eval;
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
pub use parser::{parse_expr, parse_expr_bytes, MAX_DEPTH, MAX_FILTER_LEN};

/// Parses a filter string into a runnable filter. An empty string is an error, as in HBase.
pub fn parse(text: &str) -> Result<Filter, FilterError> {
    parse_expr(text).map(Filter::new)
}

/// Parses a filter string given as bytes (as Thrift carries it).
pub fn parse_bytes(text: &[u8]) -> Result<Filter, FilterError> {
    parse_expr_bytes(text).map(Filter::new)
}
