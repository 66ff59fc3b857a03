//! Tests of whole filters: Bigtable's documented examples, the argument checks, and a
//! randomized comparison with a naive reference evaluator.

mod errors;
mod examples;
mod random;
mod reference;

use bytes::Bytes;
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::row_filter::{Chain, Condition, Filter, Interleave};

use super::{FilterCell, RowFilter, Sampler};

/// Keeps a row exactly when `p >= 0.5`: a function of `p` alone, so the order in which
/// filters ask does not matter and the reference model can use the same rule.
pub(crate) struct HalfSampler;

impl Sampler for HalfSampler {
    fn sample(&mut self, p: f64) -> bool {
        p >= 0.5
    }
}

pub(crate) fn cell(family: &str, qualifier: &[u8], ts_millis: i64, value: &[u8]) -> FilterCell {
    FilterCell {
        family: family.into(),
        qualifier: Bytes::copy_from_slice(qualifier),
        timestamp_micros: ts_millis * 1000,
        value: Bytes::copy_from_slice(value),
        labels: Vec::new(),
    }
}

pub(crate) fn labelled(mut cell: FilterCell, label: &str) -> FilterCell {
    cell.labels.push(label.into());
    cell
}

pub(crate) fn f(filter: Filter) -> pb::RowFilter {
    pb::RowFilter {
        filter: Some(filter),
    }
}

pub(crate) fn chain(filters: Vec<pb::RowFilter>) -> pb::RowFilter {
    f(Filter::Chain(Chain { filters }))
}

pub(crate) fn interleave(filters: Vec<pb::RowFilter>) -> pb::RowFilter {
    f(Filter::Interleave(Interleave { filters }))
}

pub(crate) fn condition(
    predicate: Option<pb::RowFilter>,
    on_true: Option<pb::RowFilter>,
    on_false: Option<pb::RowFilter>,
) -> pb::RowFilter {
    f(Filter::Condition(Box::new(Condition {
        predicate_filter: predicate.map(Box::new),
        true_filter: on_true.map(Box::new),
        false_filter: on_false.map(Box::new),
    })))
}

pub(crate) fn pass_all() -> pb::RowFilter {
    f(Filter::PassAllFilter(true))
}

pub(crate) fn run(filter: &pb::RowFilter, key: &[u8], cells: Vec<FilterCell>) -> Vec<FilterCell> {
    RowFilter::compile(Some(filter))
        .unwrap_or_else(|e| panic!("{filter:?} did not compile: {e}"))
        .apply(key, cells, &mut HalfSampler)
}
