//! Bad arguments: INVALID_ARGUMENT naming the field path.

use super::*;
use tonic::Code;

fn error_of(filter: &pb::RowFilter) -> String {
    match RowFilter::compile(Some(filter)) {
        Ok(_) => panic!("{filter:?} compiled"),
        Err(status) => {
            assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
            status.message().to_string()
        }
    }
}

fn value_regex(p: &'static [u8]) -> pb::RowFilter {
    f(Filter::ValueRegexFilter(Bytes::from_static(p)))
}

#[test]
fn a_bad_regex_names_its_path() {
    let filter = chain(vec![pass_all(), value_regex(b"a(")]);
    let message = error_of(&filter);
    assert!(
        message.starts_with("filter.chain.filters[1].value_regex_filter: "),
        "{message}"
    );
}

#[test]
fn paths_go_through_interleaves_and_conditions() {
    let bad = f(Filter::CellsPerRowLimitFilter(-1));
    let filter = interleave(vec![
        pass_all(),
        condition(None, Some(pass_all()), Some(chain(vec![bad]))),
    ]);
    let message = error_of(&filter);
    let path = "filter.interleave.filters[1].condition.false_filter.chain.filters[0]";
    assert!(
        message.starts_with(&format!("{path}.cells_per_row_limit_filter: ")),
        "{message}"
    );
}

#[test]
fn the_request_field_name_is_used() {
    let status = RowFilter::compile_field(Some(&value_regex(b"[")), "predicate_filter")
        .err()
        .unwrap();
    assert!(status
        .message()
        .starts_with("predicate_filter.value_regex_filter: "));
}

#[test]
fn family_regex_must_not_contain_a_colon() {
    let message = error_of(&f(Filter::FamilyNameRegexFilter("a:b".into())));
    assert!(message.contains("':'"), "{message}");
}

#[test]
fn every_regex_field_is_checked() {
    let cases = [
        (
            f(Filter::RowKeyRegexFilter(Bytes::from_static(b"("))),
            "row_key_regex_filter",
        ),
        (
            f(Filter::FamilyNameRegexFilter("(".into())),
            "family_name_regex_filter",
        ),
        (
            f(Filter::ColumnQualifierRegexFilter(Bytes::from_static(
                br"[\C]",
            ))),
            "column_qualifier_regex_filter",
        ),
        (value_regex(br"(?:\C{1000}){1000}"), "value_regex_filter"),
    ];
    for (filter, field) in cases {
        let message = error_of(&filter);
        assert!(
            message.starts_with(&format!("filter.{field}: ")),
            "{message}"
        );
    }
}

#[test]
fn boolean_filters_must_be_true() {
    for (filter, name) in [
        (Filter::PassAllFilter(false), "pass_all_filter"),
        (Filter::BlockAllFilter(false), "block_all_filter"),
        (Filter::Sink(false), "sink"),
        (
            Filter::StripValueTransformer(false),
            "strip_value_transformer",
        ),
    ] {
        let message = error_of(&f(filter));
        assert!(
            message.starts_with(&format!("filter.{name}: ")),
            "{message}"
        );
    }
}

#[test]
fn row_sample_needs_a_probability_strictly_between_0_and_1() {
    for p in [0.0, 1.0, -0.5, 2.0, f64::NAN] {
        let message = error_of(&f(Filter::RowSampleFilter(p)));
        assert!(
            message.starts_with("filter.row_sample_filter: "),
            "{message}"
        );
    }
}

#[test]
fn negative_counts_are_rejected() {
    for filter in [
        Filter::CellsPerRowOffsetFilter(-1),
        Filter::CellsPerRowLimitFilter(-2),
        Filter::CellsPerColumnLimitFilter(i32::MIN),
    ] {
        assert!(error_of(&f(filter)).contains("negative"));
    }
}

#[test]
fn labels_are_validated() {
    for label in ["", "UPPER", "sixteen-chars-xx", "a b"] {
        let message = error_of(&f(Filter::ApplyLabelTransformer(label.into())));
        assert!(
            message.starts_with("filter.apply_label_transformer: "),
            "{message}"
        );
    }
}

#[test]
fn a_chain_may_hold_only_one_labelling_sub_filter() {
    let label = |l: &str| f(Filter::ApplyLabelTransformer(l.into()));
    let twice = chain(vec![label("a"), interleave(vec![pass_all(), label("b")])]);
    assert!(error_of(&twice).starts_with("filter.chain: "));
    // A label in a condition's predicate never reaches the output, so it does not count.
    let in_predicate = chain(vec![label("a"), condition(Some(label("b")), None, None)]);
    assert!(RowFilter::compile(Some(&in_predicate)).is_ok());
    let in_branch = chain(vec![label("a"), condition(None, Some(label("b")), None)]);
    assert!(error_of(&in_branch).starts_with("filter.chain: "));
}

#[test]
fn sink_is_not_allowed_inside_a_condition() {
    let sink = f(Filter::Sink(true));
    for filter in [
        condition(Some(sink.clone()), None, None),
        condition(None, Some(chain(vec![sink.clone()])), None),
        condition(None, None, Some(interleave(vec![pass_all(), sink]))),
    ] {
        assert!(error_of(&filter).contains("sink: not allowed inside a condition"));
    }
}

#[test]
fn column_and_timestamp_ranges_are_checked() {
    let column = f(Filter::ColumnRangeFilter(pb::ColumnRange::default()));
    assert!(error_of(&column).starts_with("filter.column_range_filter: "));
    let micros = f(Filter::TimestampRangeFilter(pb::TimestampRange {
        start_timestamp_micros: 1,
        end_timestamp_micros: 0,
    }));
    assert!(error_of(&micros).starts_with("filter.timestamp_range_filter: "));
}
