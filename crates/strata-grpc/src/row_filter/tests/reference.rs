//! A deliberately naive evaluator of the protobuf filter, written apart from the real one:
//! no compilation, regexes replaced by hand-written predicates, counting with maps.

use std::cmp::Reverse;
use std::collections::HashMap;

use super::*;
use pb::column_range::{EndQualifier, StartQualifier};
use pb::value_range::{EndValue, StartValue};

/// An RE2 pattern and what it means, in plain Rust.
pub(crate) type Pattern = (&'static [u8], fn(&[u8]) -> bool);

/// The regex patterns the random filters use.
pub(crate) const PATTERNS: &[Pattern] = &[
    (b"", |s| s.is_empty()),
    (b"a", |s| s == b"a"),
    (b"b|c", |s| s == b"b" || s == b"c"),
    (b"[a-b]", |s| s == b"a" || s == b"b"),
    (b"x", |s| s == b"x"),
    (b"x.*", |s| s.starts_with(b"x") && !s[1..].contains(&b'\n')),
    (br"x\C*", |s| s.starts_with(b"x")),
    (b"v|va", |s| s == b"v" || s == b"va"),
    (b"[a-c]", |s| s.len() == 1 && (b'a'..=b'c').contains(&s[0])),
    (br"\xff", |s| s == [0xff]),
    (b"\xff", |s| s == [0xff]),
    (b".*", |s| !s.contains(&b'\n')),
    (br"\\C", |s| s == br"\C"),
    (br"k\C\d", |s| {
        s.len() == 3 && s[0] == b'k' && s[2].is_ascii_digit()
    }),
];

fn pattern_meaning(pattern: &[u8]) -> fn(&[u8]) -> bool {
    match PATTERNS.iter().find(|(p, _)| *p == pattern) {
        Some((_, meaning)) => *meaning,
        None => panic!("pattern {pattern:?} is not in the table"),
    }
}

/// Whether Bigtable's rules accept `filter` (the parts the random filters can break).
pub(crate) fn valid(filter: &pb::RowFilter, in_condition: bool) -> bool {
    match &filter.filter {
        Some(Filter::Chain(c)) => {
            c.filters.iter().all(|s| valid(s, in_condition))
                && c.filters.iter().filter(|s| may_label(s)).count() <= 1
        }
        Some(Filter::Interleave(i)) => i.filters.iter().all(|s| valid(s, in_condition)),
        Some(Filter::Condition(c)) => [&c.predicate_filter, &c.true_filter, &c.false_filter]
            .into_iter()
            .flatten()
            .all(|s| valid(s, true)),
        Some(Filter::Sink(_)) => !in_condition,
        _ => true,
    }
}

fn may_label(filter: &pb::RowFilter) -> bool {
    match &filter.filter {
        Some(Filter::ApplyLabelTransformer(_)) => true,
        Some(Filter::Chain(c)) => c.filters.iter().any(may_label),
        Some(Filter::Interleave(i)) => i.filters.iter().any(may_label),
        Some(Filter::Condition(c)) => [&c.true_filter, &c.false_filter]
            .into_iter()
            .flatten()
            .any(|s| may_label(s)),
        _ => false,
    }
}

/// The final result of `filter` on a row: its output plus whatever reached a sink.
pub(crate) fn evaluate(filter: &pb::RowFilter, key: &[u8], row: &[FilterCell]) -> Vec<FilterCell> {
    let mut sunk = Vec::new();
    let mut out = eval(filter, key, row.to_vec(), &mut sunk);
    out.extend(sunk);
    out
}

fn eval(
    filter: &pb::RowFilter,
    key: &[u8],
    row: Vec<FilterCell>,
    sunk: &mut Vec<FilterCell>,
) -> Vec<FilterCell> {
    let Some(kind) = &filter.filter else {
        return row;
    };
    match kind {
        Filter::Chain(c) => c
            .filters
            .iter()
            .fold(row, |cells, sub| eval(sub, key, cells, sunk)),
        Filter::Interleave(i) => {
            let mut all: Vec<FilterCell> = Vec::new();
            for sub in &i.filters {
                all.extend(eval(sub, key, row.clone(), sunk));
            }
            all.sort_by_key(|c| {
                (
                    c.family.clone(),
                    c.qualifier.clone(),
                    Reverse(c.timestamp_micros),
                )
            });
            all
        }
        Filter::Condition(c) => {
            let mut ignored = Vec::new();
            let predicate = match &c.predicate_filter {
                Some(p) => eval(p, key, row.clone(), &mut ignored),
                None => row.clone(),
            };
            let branch = if predicate.is_empty() {
                &c.false_filter
            } else {
                &c.true_filter
            };
            match branch {
                Some(b) => eval(b, key, row, sunk),
                None => Vec::new(),
            }
        }
        Filter::Sink(_) => {
            sunk.extend(row);
            Vec::new()
        }
        Filter::BlockAllFilter(_) => Vec::new(),
        Filter::RowKeyRegexFilter(p) => {
            if pattern_meaning(p)(key) {
                row
            } else {
                Vec::new()
            }
        }
        Filter::RowSampleFilter(p) => {
            if *p >= 0.5 {
                row
            } else {
                Vec::new()
            }
        }
        Filter::CellsPerRowOffsetFilter(n) => row.into_iter().skip(*n as usize).collect(),
        Filter::CellsPerRowLimitFilter(n) => row.into_iter().take(*n as usize).collect(),
        Filter::CellsPerColumnLimitFilter(n) => {
            let mut seen: HashMap<(String, Bytes), i32> = HashMap::new();
            row.into_iter()
                .filter(|c| {
                    let count = seen
                        .entry((c.family.clone(), c.qualifier.clone()))
                        .or_default();
                    *count += 1;
                    *count <= *n
                })
                .collect()
        }
        Filter::StripValueTransformer(_) => row
            .into_iter()
            .map(|c| FilterCell {
                value: Bytes::new(),
                ..c
            })
            .collect(),
        Filter::ApplyLabelTransformer(l) => row.into_iter().map(|c| labelled(c, l)).collect(),
        other => row.into_iter().filter(|c| keeps(other, c)).collect(),
    }
}

/// The per-cell filters.
fn keeps(kind: &Filter, c: &FilterCell) -> bool {
    match kind {
        Filter::PassAllFilter(_) => true,
        Filter::FamilyNameRegexFilter(p) => pattern_meaning(p.as_bytes())(c.family.as_bytes()),
        Filter::ColumnQualifierRegexFilter(p) => pattern_meaning(p)(&c.qualifier),
        Filter::ValueRegexFilter(p) => pattern_meaning(p)(&c.value),
        Filter::TimestampRangeFilter(r) => {
            c.timestamp_micros >= r.start_timestamp_micros
                && (r.end_timestamp_micros == 0 || c.timestamp_micros < r.end_timestamp_micros)
        }
        Filter::ColumnRangeFilter(r) => {
            let q = &c.qualifier[..];
            let after_start = match &r.start_qualifier {
                None => true,
                Some(StartQualifier::StartQualifierClosed(s)) => q >= &s[..],
                Some(StartQualifier::StartQualifierOpen(s)) => q > &s[..],
            };
            let before_end = match &r.end_qualifier {
                None => true,
                Some(EndQualifier::EndQualifierClosed(e)) => q <= &e[..],
                Some(EndQualifier::EndQualifierOpen(e)) => q < &e[..],
            };
            c.family == r.family_name && after_start && before_end
        }
        Filter::ValueRangeFilter(r) => {
            let v = &c.value[..];
            let after_start = match &r.start_value {
                None => true,
                Some(StartValue::StartValueClosed(s)) => v >= &s[..],
                Some(StartValue::StartValueOpen(s)) => v > &s[..],
            };
            let before_end = match &r.end_value {
                None => true,
                Some(EndValue::EndValueClosed(e)) => v <= &e[..],
                Some(EndValue::EndValueOpen(e)) => v < &e[..],
            };
            after_start && before_end
        }
        other => panic!("the reference does not know {other:?}"),
    }
}
