//! Bigtable's documented behaviours, one named test each.

use super::*;

fn regex_family(p: &str) -> pb::RowFilter {
    f(Filter::FamilyNameRegexFilter(p.into()))
}

fn regex_qualifier(p: &'static [u8]) -> pb::RowFilter {
    f(Filter::ColumnQualifierRegexFilter(Bytes::from_static(p)))
}

fn label(l: &str) -> pb::RowFilter {
    f(Filter::ApplyLabelTransformer(l.into()))
}

fn sink() -> pb::RowFilter {
    f(Filter::Sink(true))
}

/// The example in data.proto's documentation of `sink`.
#[test]
fn sink_example_from_the_bigtable_docs() {
    let row = vec![
        cell("A", b"A", 1, b"w"),
        cell("A", b"B", 2, b"x"),
        cell("B", b"B", 4, b"z"),
    ];
    let filter = chain(vec![
        regex_family("A"),
        interleave(vec![pass_all(), chain(vec![label("foo"), sink()])]),
        regex_qualifier(b"B"),
    ]);
    let out = run(&filter, b"r", row);
    let expected = vec![
        labelled(cell("A", b"A", 1, b"w"), "foo"),
        cell("A", b"B", 2, b"x"),
        labelled(cell("A", b"B", 2, b"x"), "foo"),
    ];
    assert_eq!(out, expected);
}

/// The example in data.proto's documentation of `interleave`: duplicates stay.
#[test]
fn interleave_pools_and_sorts_keeping_duplicates() {
    let row = vec![
        cell("far", b"bar", 7, b"a"),
        cell("far", b"blah", 5, b"x"),
        cell("foo", b"bar", 10, b"x"),
        cell("foo", b"blah", 11, b"z"),
    ];
    let keep = |q: &'static [u8], ts: i64| {
        chain(vec![
            regex_qualifier(q),
            f(Filter::TimestampRangeFilter(pb::TimestampRange {
                start_timestamp_micros: ts * 1000,
                end_timestamp_micros: (ts + 1) * 1000,
            })),
        ])
    };
    let filter = interleave(vec![
        interleave(vec![keep(b"bar", 10), keep(b"blah", 11)]),
        keep(b"blah", 5),
        interleave(vec![keep(b"bar", 7), keep(b"blah", 5)]),
    ]);
    let out = run(&filter, b"r", row.clone());
    let expected = vec![
        row[0].clone(),
        row[1].clone(),
        row[1].clone(),
        row[2].clone(),
        row[3].clone(),
    ];
    assert_eq!(out, expected);
}

#[test]
fn interleave_of_two_pass_alls_returns_every_cell_twice() {
    let row = vec![cell("a", b"x", 2, b"1"), cell("a", b"y", 1, b"2")];
    let out = run(&interleave(vec![pass_all(), pass_all()]), b"r", row.clone());
    let expected = vec![
        row[0].clone(),
        row[0].clone(),
        row[1].clone(),
        row[1].clone(),
    ];
    assert_eq!(out, expected);
}

#[test]
fn empty_chain_passes_and_empty_interleave_blocks() {
    let row = vec![cell("a", b"x", 2, b"1")];
    assert_eq!(run(&chain(vec![]), b"r", row.clone()), row);
    assert!(run(&interleave(vec![]), b"r", row).is_empty());
}

#[test]
fn condition_picks_a_branch_and_drops_the_predicate_output() {
    let row = vec![cell("a", b"x", 2, b"1"), cell("b", b"y", 1, b"2")];
    let predicate = chain(vec![regex_family("b"), label("pred")]);
    let on_true = regex_family("a");
    let on_false = f(Filter::StripValueTransformer(true));
    let taken = condition(Some(predicate), Some(on_true), Some(on_false.clone()));
    assert_eq!(run(&taken, b"r", row.clone()), row[..1].to_vec());

    let not_taken = condition(Some(regex_family("c")), Some(pass_all()), Some(on_false));
    let stripped: Vec<_> = run(&not_taken, b"r", row.clone());
    assert_eq!(stripped.len(), 2);
    assert!(stripped
        .iter()
        .all(|c| c.value.is_empty() && c.labels.is_empty()));
}

#[test]
fn condition_with_a_missing_branch_outputs_nothing_for_it() {
    let row = vec![cell("a", b"x", 2, b"1")];
    assert!(run(
        &condition(Some(pass_all()), None, Some(pass_all())),
        b"r",
        row.clone()
    )
    .is_empty());
    let block = f(Filter::BlockAllFilter(true));
    assert!(run(
        &condition(Some(block), Some(pass_all()), None),
        b"r",
        row.clone()
    )
    .is_empty());
    // An unset predicate passes everything, so the true branch runs.
    assert_eq!(
        run(&condition(None, Some(pass_all()), None), b"r", row.clone()),
        row
    );
}

#[test]
fn row_key_regex_keeps_or_drops_the_whole_row() {
    let row = vec![cell("a", b"x", 2, b"1"), cell("b", b"y", 1, b"2")];
    let filter = f(Filter::RowKeyRegexFilter(Bytes::from_static(br"user\C\d+")));
    assert_eq!(run(&filter, b"user\n42", row.clone()), row);
    assert!(run(&filter, b"user\n42x", row.clone()).is_empty());
    assert!(run(&filter, b"xuser\n42", row).is_empty());
}

#[test]
fn top_level_sink_outputs_its_input() {
    let row = vec![cell("a", b"x", 2, b"1")];
    assert_eq!(run(&sink(), b"r", row.clone()), row);
    let after = chain(vec![sink(), f(Filter::BlockAllFilter(true))]);
    assert_eq!(run(&after, b"r", row.clone()), row);
}

#[test]
fn labels_from_separate_interleave_branches_are_allowed() {
    let row = vec![cell("a", b"x", 2, b"1")];
    let filter = chain(vec![
        regex_family("a"),
        interleave(vec![label("one"), label("two")]),
    ]);
    let out = run(&filter, b"r", row.clone());
    let mut labels: Vec<_> = out.iter().map(|c| c.labels.clone()).collect();
    labels.sort();
    assert_eq!(labels, [vec!["one".to_string()], vec!["two".to_string()]]);
}

#[test]
fn cells_per_column_limit_after_an_interleave_counts_copies() {
    let row = vec![cell("a", b"x", 2, b"1"), cell("a", b"x", 1, b"0")];
    let filter = chain(vec![
        interleave(vec![pass_all(), pass_all()]),
        f(Filter::CellsPerColumnLimitFilter(2)),
    ]);
    assert_eq!(
        run(&filter, b"r", row.clone()),
        vec![row[0].clone(), row[0].clone()]
    );
}

#[test]
fn no_filter_passes_everything() {
    let row = vec![cell("a", b"x", 2, b"1")];
    let compiled = RowFilter::compile(None).unwrap();
    assert_eq!(compiled.apply(b"r", row.clone(), &mut HalfSampler), row);
    assert_eq!(run(&pb::RowFilter { filter: None }, b"r", row.clone()), row);
}

#[test]
fn row_sample_asks_the_sampler_with_its_probability() {
    let row = vec![cell("a", b"x", 2, b"1")];
    assert_eq!(
        run(&f(Filter::RowSampleFilter(0.75)), b"r", row.clone()),
        row
    );
    assert!(run(&f(Filter::RowSampleFilter(0.25)), b"r", row).is_empty());
}

#[test]
fn a_compiled_filter_can_be_shared_between_tasks() {
    fn shareable<T: Send + Sync + Clone + 'static>(_: &T) {}
    let compiled =
        RowFilter::compile(Some(&f(Filter::ValueRegexFilter(Bytes::from_static(b"a"))))).unwrap();
    shareable(&compiled);
}

#[test]
fn doubling_interleaves_in_a_chain_hit_the_copy_budget() {
    let row: Vec<_> = (0..100)
        .map(|i| cell("a", format!("q{i:03}").as_bytes(), 1, b"v"))
        .collect();
    let doubling = |n| {
        chain(
            (0..n)
                .map(|_| interleave(vec![pass_all(), pass_all()]))
                .collect(),
        )
    };
    let compiled = RowFilter::compile(Some(&doubling(3))).unwrap();
    let eight = compiled
        .try_apply(b"r", row.clone(), &mut HalfSampler)
        .unwrap();
    assert_eq!(eight.len(), 800);

    let compiled = RowFilter::compile(Some(&doubling(40))).unwrap();
    let err = compiled
        .try_apply(b"r", row.clone(), &mut HalfSampler)
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert!(err.message().contains("copies"), "{}", err.message());
    assert!(compiled.apply(b"r", row, &mut HalfSampler).is_empty());
}

#[test]
fn many_sinks_hit_the_copy_budget_too() {
    let row: Vec<_> = (0..1000)
        .map(|i| cell("a", format!("q{i:04}").as_bytes(), 1, b"v"))
        .collect();
    let sinks = interleave((0..2000).map(|_| f(Filter::Sink(true))).collect());
    let compiled = RowFilter::compile(Some(&sinks)).unwrap();
    assert!(compiled.try_apply(b"r", row, &mut HalfSampler).is_err());
}
