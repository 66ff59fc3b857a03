//! Bigtable's `RowFilter`, evaluated on one row at a time.
//!
//! The reader (ReadRows, CheckAndMutateRow's predicate) fetches every stored version of a
//! row's requested columns from the service layer, converts them to [`FilterCell`]s in
//! Bigtable's order, and keeps what [`RowFilter::apply`] returns. An empty result means the
//! row is filtered out.
//!
//! # Row filters
//!
//! A filter takes a row (cells in Bigtable order: family, then qualifier ascending, then
//! timestamp descending) and produces a row in the same order. [`RowFilter::compile`]
//! checks every argument once per request; a bad one is INVALID_ARGUMENT naming the field
//! path, for example `filter.chain.filters[1].value_regex_filter: ...`.
//!
//! Composition ([`compose`]):
//! - `chain`: sub-filters in sequence, each on the previous one's output; an empty chain
//!   passes everything. At most one sub-filter of a chain may contain an
//!   `apply_label_transformer` (Bigtable's rule, so a cell never carries two labels).
//! - `interleave`: every sub-filter runs on a copy of the input; the outputs are pooled
//!   and merged back into Bigtable order. Duplicates are kept (an interleave of two
//!   `pass_all_filter`s returns every cell twice). An empty interleave outputs nothing.
//! - `condition`: if `predicate_filter` outputs any cell (an unset predicate passes
//!   everything), `true_filter` runs on the input row, else `false_filter`; a missing
//!   branch outputs nothing. The predicate's own output (labels included) is discarded.
//! - `sink`: a copy of its input goes straight to the final result, bypassing everything
//!   after it; it outputs nothing to its parent. Not allowed inside a condition.
//!
//! True filters ([`cell_predicate`], [`regex`], [`re2`], [`ranges`]):
//! - `row_key_regex_filter`, `family_name_regex_filter`, `column_qualifier_regex_filter`,
//!   `value_regex_filter`: RE2 syntax over raw bytes (Latin-1), matching the WHOLE
//!   key/family/qualifier/value. `.` does not match `\n`; `\C` matches any byte;
//!   Unicode classes (`\pL`) and backreferences are rejected. The family
//!   regex may not contain `:`. A compiled regex may take 16 MiB divided by the number of
//!   regexes in the filter, at least 16 KiB and at most 1 MiB ([`regex::RegexBudget`]).
//! - `column_range_filter`: cells of `family_name` (required) whose qualifier lies in the
//!   range (closed, open or unbounded ends, bytewise).
//! - `timestamp_range_filter`: start inclusive, end exclusive, end 0 = unbounded; both in
//!   microseconds, non-negative, multiples of 1000 (Strata stores milliseconds, and
//!   Bigtable rejects finer precision on such tables).
//! - `value_range_filter`: values in the range (closed, open or unbounded ends, bytewise).
//! - `pass_all_filter` / `block_all_filter` (must be `true`), unset filter = pass all.
//!
//! Per-row filters ([`per_row`]), counting every copy of duplicated cells:
//! - `cells_per_row_offset_filter(n)`: skips the row's first n cells.
//! - `cells_per_row_limit_filter(n)`: keeps the row's first n cells.
//! - `cells_per_column_limit_filter(n)`: keeps the first (newest) n cells of each column.
//! - `row_sample_filter(p)`: keeps the whole row with probability p, 0 < p < 1.
//!   Negative counts and p outside (0, 1) are INVALID_ARGUMENT.
//!
//! Transformers ([`transform`]):
//! - `strip_value_transformer` (must be `true`): values become empty.
//! - `apply_label_transformer(l)`: adds label l; l matches `[a-z0-9-]{1,15}`.
//!
//! Limits ([`limits`]), as Bigtable documents them: sub-filters nest at most
//! [`limits::MAX_NESTING`] (20) levels below the top filter, and the serialized filter is at
//! most [`limits::MAX_FILTER_BYTES`] (20480) bytes. The nesting is checked without
//! recursion before anything else, so a hostile deeply nested filter is rejected cleanly.
//! Strata's own limit: one evaluation copies at most [`compose::COPY_ALLOWANCE`] cells plus
//! [`compose::COPIES_PER_CELL`] per input cell (a chain of n `interleave(pass_all,
//! pass_all)` makes 2^n copies); beyond it [`RowFilter::try_apply`] is INVALID_ARGUMENT and
//! [`RowFilter::apply`] returns nothing.

mod cache;
pub mod cell_predicate;
mod compile;
pub mod compose;
pub mod limits;
pub mod per_row;
pub mod ranges;
pub mod re2;
pub mod regex;
pub mod transform;

#[cfg(test)]
mod tests;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use tonic::Status;

use compile::Node;

/// One cell as Bigtable's filters see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterCell {
    /// Bigtable family names are strings (HBase's are bytes; Strata's are checked UTF-8).
    pub family: String,
    pub qualifier: Bytes,
    /// Microseconds, always a multiple of 1000 for Strata's millisecond storage.
    pub timestamp_micros: i64,
    pub value: Bytes,
    /// Labels added by `apply_label_transformer`.
    pub labels: Vec<String>,
}

/// A compiled filter: regexes built and arguments checked once per request.
#[derive(Debug, Clone)]
pub struct RowFilter {
    root: Node,
}

/// The source of randomness for `row_sample_filter` (injected so tests are repeatable).
pub trait Sampler {
    /// True with probability `p`.
    fn sample(&mut self, p: f64) -> bool;
}

/// The production [`Sampler`]: the thread-local generator of the `rand` crate.
#[derive(Debug, Default, Clone, Copy)]
pub struct ThreadRngSampler;

impl Sampler for ThreadRngSampler {
    // Production's sampler (Bigtable's sample filter is random by definition).
    #[allow(clippy::disallowed_methods)]
    fn sample(&mut self, p: f64) -> bool {
        rand::random::<f64>() < p
    }
}

impl RowFilter {
    /// Compiles `filter` (`None`: pass everything). A bad argument is INVALID_ARGUMENT
    /// naming the field, for example `filter.chain.filters[1].value_regex_filter`.
    pub fn compile(filter: Option<&pb::RowFilter>) -> Result<RowFilter, Status> {
        Self::compile_field(filter, "filter")
    }

    /// Like [`RowFilter::compile`], naming the request field `field` in errors (for example
    /// `predicate_filter` for CheckAndMutateRow).
    pub fn compile_field(filter: Option<&pb::RowFilter>, field: &str) -> Result<RowFilter, Status> {
        let Some(filter) = filter else {
            return Ok(RowFilter {
                root: Node::PassAll,
            });
        };
        let shape = limits::check(filter, field)?;
        let budget = regex::RegexBudget::shared_by(shape.regexes);
        let root = compile::compile(filter, field, &budget)?;
        Ok(RowFilter { root })
    }

    /// The cells of row `key` that pass (empty: the row is filtered out). `cells` are in
    /// Bigtable's order: family, then qualifier ascending, then timestamp descending.
    ///
    /// A filter that would copy cells beyond the evaluation budget (see
    /// [`compose::COPY_ALLOWANCE`]) yields nothing here; [`RowFilter::try_apply`] reports it.
    pub fn apply(
        &self,
        key: &[u8],
        cells: Vec<FilterCell>,
        sampler: &mut dyn Sampler,
    ) -> Vec<FilterCell> {
        self.try_apply(key, cells, sampler).unwrap_or_default()
    }

    /// Like [`RowFilter::apply`], but a filter that would copy cells beyond the evaluation
    /// budget (chains of interleaves multiply copies) is INVALID_ARGUMENT instead of an
    /// empty row.
    pub fn try_apply(
        &self,
        key: &[u8],
        cells: Vec<FilterCell>,
        sampler: &mut dyn Sampler,
    ) -> Result<Vec<FilterCell>, Status> {
        let input_cells = cells.len();
        let mut ctx = compose::EvalContext::new(key, input_cells, sampler);
        let mut out = ctx.eval(&self.root, cells);
        if ctx.exhausted() {
            return Err(Status::invalid_argument(format!(
                "filter: on a row of {input_cells} cells the filter makes more copies of cells \
                 than the limit of {} plus {} per cell (interleaves inside chains multiply them)",
                compose::COPY_ALLOWANCE,
                compose::COPIES_PER_CELL
            )));
        }
        let sunk = ctx.into_sunk();
        if !sunk.is_empty() {
            out.extend(sunk);
            compose::sort_bigtable_order(&mut out);
        }
        Ok(out)
    }
}
