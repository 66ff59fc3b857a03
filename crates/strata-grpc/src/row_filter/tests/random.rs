//! Random rows and random filter trees (depth at most 4), checked against the reference
//! model and against algebraic laws every filter must obey.

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::reference::{evaluate, valid, PATTERNS};
use super::*;
use crate::row_filter::compose::bigtable_order;
use pb::column_range::{EndQualifier, StartQualifier};
use pb::value_range::{EndValue, StartValue};

const FAMILIES: &[&str] = &["a", "b", "c"];
const QUALIFIERS: &[&[u8]] = &[b"", b"x", b"xa", b"x\n", b"y", b"\xff", br"\C"];
const VALUES: &[&[u8]] = &[b"", b"v", b"va", b"x\n", b"b", b"\xff", b"k\n7"];
const KEYS: &[&[u8]] = &[b"x", b"k\n1", b"kk2", b"", b"\xff"];
const ITERATIONS: usize = 4000;

fn random_row(rng: &mut SmallRng) -> Vec<FilterCell> {
    let mut row = Vec::new();
    for family in FAMILIES {
        for qualifier in QUALIFIERS {
            for ts in (1..=4).rev() {
                if rng.random_bool(0.2) {
                    let value = VALUES.choose(rng).copied().unwrap_or_default();
                    row.push(cell(family, qualifier, ts, value));
                }
            }
        }
    }
    // Bigtable order sorts qualifiers bytewise, not in the order of QUALIFIERS.
    row.sort_by(bigtable_order);
    row
}

fn bytes_of(rng: &mut SmallRng, choices: &[&[u8]]) -> Bytes {
    Bytes::copy_from_slice(choices.choose(rng).copied().unwrap_or_default())
}

fn pattern(rng: &mut SmallRng) -> Bytes {
    Bytes::copy_from_slice(PATTERNS.choose(rng).map(|(p, _)| *p).unwrap_or_default())
}

fn random_leaf(rng: &mut SmallRng) -> pb::RowFilter {
    let kind = match rng.random_range(0..20) {
        0 => return pb::RowFilter { filter: None },
        1 => Filter::PassAllFilter(true),
        2 => Filter::BlockAllFilter(true),
        3 => Filter::Sink(true),
        4 => Filter::RowKeyRegexFilter(pattern(rng)),
        5 => Filter::FamilyNameRegexFilter(
            ["a", "b|c", "[a-b]", ".*", ""]
                .choose(rng)
                .copied()
                .unwrap_or("a")
                .into(),
        ),
        6 => Filter::ColumnQualifierRegexFilter(pattern(rng)),
        7 => Filter::ValueRegexFilter(pattern(rng)),
        8 => Filter::ColumnRangeFilter(random_column_range(rng)),
        9 => Filter::TimestampRangeFilter(pb::TimestampRange {
            start_timestamp_micros: rng.random_range(0..=4) * 1000,
            end_timestamp_micros: rng.random_range(0..=5) * 1000,
        }),
        10 => Filter::ValueRangeFilter(random_value_range(rng)),
        11 => Filter::CellsPerRowOffsetFilter(rng.random_range(0..6)),
        12 => Filter::CellsPerRowLimitFilter(rng.random_range(0..6)),
        13 => Filter::CellsPerColumnLimitFilter(rng.random_range(0..3)),
        14 => Filter::RowSampleFilter(*[0.25, 0.75].choose(rng).unwrap_or(&0.25)),
        15 => Filter::StripValueTransformer(true),
        _ => Filter::ApplyLabelTransformer(["l1", "l2"].choose(rng).copied().unwrap_or("l").into()),
    };
    f(kind)
}

fn random_column_range(rng: &mut SmallRng) -> pb::ColumnRange {
    let start = match rng.random_range(0..3) {
        0 => None,
        1 => Some(StartQualifier::StartQualifierClosed(bytes_of(
            rng, QUALIFIERS,
        ))),
        _ => Some(StartQualifier::StartQualifierOpen(bytes_of(
            rng, QUALIFIERS,
        ))),
    };
    let end = match rng.random_range(0..3) {
        0 => None,
        1 => Some(EndQualifier::EndQualifierClosed(bytes_of(rng, QUALIFIERS))),
        _ => Some(EndQualifier::EndQualifierOpen(bytes_of(rng, QUALIFIERS))),
    };
    pb::ColumnRange {
        family_name: FAMILIES.choose(rng).copied().unwrap_or("a").into(),
        start_qualifier: start,
        end_qualifier: end,
    }
}

fn random_value_range(rng: &mut SmallRng) -> pb::ValueRange {
    let start = match rng.random_range(0..3) {
        0 => None,
        1 => Some(StartValue::StartValueClosed(bytes_of(rng, VALUES))),
        _ => Some(StartValue::StartValueOpen(bytes_of(rng, VALUES))),
    };
    let end = match rng.random_range(0..3) {
        0 => None,
        1 => Some(EndValue::EndValueClosed(bytes_of(rng, VALUES))),
        _ => Some(EndValue::EndValueOpen(bytes_of(rng, VALUES))),
    };
    pb::ValueRange {
        start_value: start,
        end_value: end,
    }
}

fn random_filter(rng: &mut SmallRng, depth: usize) -> pb::RowFilter {
    if depth >= 4 || rng.random_bool(0.55) {
        return random_leaf(rng);
    }
    let children = |rng: &mut SmallRng| -> Vec<pb::RowFilter> {
        let n = rng.random_range(0..=3);
        (0..n).map(|_| random_filter(rng, depth + 1)).collect()
    };
    match rng.random_range(0..3) {
        0 => chain(children(rng)),
        1 => interleave(children(rng)),
        _ => {
            let maybe =
                |rng: &mut SmallRng| rng.random_bool(0.85).then(|| random_filter(rng, depth + 1));
            let (p, t, e) = (maybe(rng), maybe(rng), maybe(rng));
            condition(p, t, e)
        }
    }
}

/// Equal as multisets: duplicates may come in any mutual order.
fn canonical(mut cells: Vec<FilterCell>) -> Vec<FilterCell> {
    cells.sort_by(|a, b| {
        bigtable_order(a, b)
            .then_with(|| a.value.cmp(&b.value))
            .then_with(|| a.labels.cmp(&b.labels))
    });
    cells
}

fn is_bigtable_ordered(cells: &[FilterCell]) -> bool {
    cells
        .windows(2)
        .all(|w| bigtable_order(&w[0], &w[1]).is_le())
}

fn compiles(filter: &pb::RowFilter) -> bool {
    RowFilter::compile(Some(filter)).is_ok()
}

#[test]
fn random_filters_agree_with_the_reference_model() {
    let mut rng = SmallRng::seed_from_u64(0x5747_a7a0);
    let mut checked = 0;
    for _ in 0..ITERATIONS {
        let filter = random_filter(&mut rng, 0);
        let row = random_row(&mut rng);
        let key = KEYS.choose(&mut rng).copied().unwrap_or_default();
        let compiled = RowFilter::compile(Some(&filter));
        assert_eq!(compiled.is_ok(), valid(&filter, false), "{filter:?}");
        let Ok(compiled) = compiled else { continue };
        let out = compiled.apply(key, row.clone(), &mut HalfSampler);
        assert!(is_bigtable_ordered(&out), "{filter:?} gave {out:?}");
        let expected = evaluate(&filter, key, &row);
        assert_eq!(canonical(out), canonical(expected), "{filter:?} on {row:?}");
        checked += 1;
    }
    assert!(
        checked > ITERATIONS / 2,
        "only {checked} random filters were valid"
    );
}

#[test]
fn random_filters_obey_the_algebraic_laws() {
    let mut rng = SmallRng::seed_from_u64(7);
    for _ in 0..ITERATIONS / 4 {
        let filter = random_filter(&mut rng, 1);
        if !compiles(&filter) {
            continue;
        }
        let row = random_row(&mut rng);
        let key = KEYS.choose(&mut rng).copied().unwrap_or_default();
        let alone = run(&filter, key, row.clone());
        let same = |other: pb::RowFilter, law: &str| {
            let got = run(&other, key, row.clone());
            assert_eq!(
                canonical(got),
                canonical(alone.clone()),
                "{law}: {filter:?}"
            );
        };
        same(chain(vec![filter.clone()]), "chain(f) == f");
        same(interleave(vec![filter.clone()]), "interleave(f) == f");
        same(
            chain(vec![pass_all(), filter.clone()]),
            "chain(pass_all, f) == f",
        );
        same(
            chain(vec![filter.clone(), pass_all()]),
            "chain(f, pass_all) == f",
        );
        if !row.is_empty() {
            let cond = condition(Some(pass_all()), Some(filter.clone()), None);
            if compiles(&cond) {
                same(cond, "condition(pass_all, t, _) == t");
            }
        }
        let twice = run(
            &interleave(vec![filter.clone(), filter.clone()]),
            key,
            row.clone(),
        );
        let doubled: Vec<_> = alone.iter().chain(&alone).cloned().collect();
        assert_eq!(
            canonical(twice),
            canonical(doubled),
            "interleave(f, f): {filter:?}"
        );
    }
}

#[test]
fn row_limits_keep_a_prefix_and_offsets_a_suffix() {
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..ITERATIONS / 4 {
        let row = random_row(&mut rng);
        let n = rng.random_range(0..8);
        let limited = run(&f(Filter::CellsPerRowLimitFilter(n)), b"k", row.clone());
        assert!(row.starts_with(&limited) && limited.len() == row.len().min(n as usize));
        let skipped = run(&f(Filter::CellsPerRowOffsetFilter(n)), b"k", row.clone());
        assert!(row.ends_with(&skipped));
        assert_eq!(limited.len() + skipped.len(), row.len());
    }
}
