//! Bigtable's size and nesting limits, checked before compiling.
//!
//! The walk is iterative and stops at the first filter nested too deep, so a hostile filter
//! nested a million levels costs a few steps and no stack. Only after the depth is known to
//! be small is anything recursive (prost's `encoded_len`, the compiler) run on it.

use googleapis_tonic_google_bigtable_v2::google::bigtable::v2 as pb;
use pb::row_filter::Filter;
use prost::Message;
use tonic::Status;

/// How many levels sub-filters may nest below the top filter (Bigtable documents 20).
pub const MAX_NESTING: usize = 20;

/// The largest serialized filter Bigtable accepts, in bytes.
pub const MAX_FILTER_BYTES: usize = 20480;

/// What the compiler needs to know about a filter before compiling it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// How many regex filters the tree holds (they share one compiled-size budget).
    pub regexes: usize,
}

/// Checks the nesting depth, then the serialized size, of `filter` (named `field`).
pub fn check(filter: &pb::RowFilter, field: &str) -> Result<Shape, Status> {
    let shape = walk(filter, field)?;
    let bytes = filter.encoded_len();
    if bytes > MAX_FILTER_BYTES {
        return Err(Status::invalid_argument(format!(
            "{field}: the filter is {bytes} bytes serialized, more than the limit of \
             {MAX_FILTER_BYTES}"
        )));
    }
    Ok(shape)
}

fn walk(filter: &pb::RowFilter, field: &str) -> Result<Shape, Status> {
    let mut shape = Shape { regexes: 0 };
    let mut pending: Vec<(&pb::RowFilter, usize)> = vec![(filter, 0)];
    while let Some((node, depth)) = pending.pop() {
        if depth > MAX_NESTING {
            return Err(Status::invalid_argument(format!(
                "{field}: filters are nested more than {MAX_NESTING} levels deep (the limit)"
            )));
        }
        match &node.filter {
            Some(Filter::Chain(chain)) => {
                pending.extend(chain.filters.iter().map(|f| (f, depth + 1)));
            }
            Some(Filter::Interleave(interleave)) => {
                pending.extend(interleave.filters.iter().map(|f| (f, depth + 1)));
            }
            Some(Filter::Condition(condition)) => {
                let branches = [
                    &condition.predicate_filter,
                    &condition.true_filter,
                    &condition.false_filter,
                ];
                pending.extend(branches.into_iter().flatten().map(|f| (&**f, depth + 1)));
            }
            Some(
                Filter::RowKeyRegexFilter(_)
                | Filter::FamilyNameRegexFilter(_)
                | Filter::ColumnQualifierRegexFilter(_)
                | Filter::ValueRegexFilter(_),
            ) => shape.regexes += 1,
            _ => {}
        }
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain nested `levels` deep around a pass_all filter, built without recursion.
    pub(crate) fn nested_chain(levels: usize) -> pb::RowFilter {
        let mut filter = pb::RowFilter {
            filter: Some(Filter::PassAllFilter(true)),
        };
        for _ in 0..levels {
            filter = pb::RowFilter {
                filter: Some(Filter::Chain(pb::row_filter::Chain {
                    filters: vec![filter],
                })),
            };
        }
        filter
    }

    /// Takes a nested chain apart level by level: dropping it whole would recurse once per
    /// level and overflow the test thread's stack.
    pub(crate) fn dismantle(mut filter: pb::RowFilter) {
        while let Some(Filter::Chain(mut chain)) = filter.filter.take() {
            match chain.filters.pop() {
                Some(inner) => filter = inner,
                None => break,
            }
        }
    }

    #[test]
    fn nesting_up_to_the_limit_is_accepted() {
        let filter = nested_chain(MAX_NESTING);
        assert_eq!(check(&filter, "filter").ok(), Some(Shape { regexes: 0 }));
    }

    #[test]
    fn nesting_beyond_the_limit_is_rejected() {
        let filter = nested_chain(MAX_NESTING + 1);
        let err = check(&filter, "filter").unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(err.message().contains("20 levels"), "{}", err.message());
    }

    #[test]
    fn a_hundred_thousand_levels_are_rejected_without_overflowing_the_stack() {
        let filter = nested_chain(100_000);
        let err = crate::row_filter::RowFilter::compile(Some(&filter)).unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(err.message().starts_with("filter: "), "{}", err.message());
        dismantle(filter);
    }

    #[test]
    fn oversized_filters_are_rejected() {
        let big = pb::RowFilter {
            filter: Some(Filter::ValueRegexFilter(
                vec![b'a'; MAX_FILTER_BYTES].into(),
            )),
        };
        let err = check(&big, "predicate_filter").unwrap_err();
        assert_eq!(err.code(), tonic::Code::InvalidArgument);
        assert!(
            err.message().starts_with("predicate_filter: "),
            "{}",
            err.message()
        );
        assert!(err.message().contains("20480"), "{}", err.message());
    }

    #[test]
    fn regex_filters_are_counted() {
        let regex = |p: &'static [u8]| pb::RowFilter {
            filter: Some(Filter::ValueRegexFilter(p.into())),
        };
        let filter = pb::RowFilter {
            filter: Some(Filter::Interleave(pb::row_filter::Interleave {
                filters: vec![regex(b"a"), regex(b"b"), nested_chain(3)],
            })),
        };
        assert_eq!(check(&filter, "filter").ok(), Some(Shape { regexes: 2 }));
    }
}
