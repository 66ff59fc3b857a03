//! Entry point for the filter-language fuzz target (`fuzz/fuzz_targets/filter_parse.rs`) and
//! its stable corpus replay (`tests/fuzz_corpus_test.rs`). Panics only when an invariant
//! breaks; a parse error is an acceptable outcome.

use bytes::Bytes;
use strata_engine::{Cell, RowResult};

use crate::filter::{parse_expr, parse_expr_bytes, Filter, RowOutcome};

/// Parses `input` as a filter string. Invariants: a parsed UTF-8 filter prints to a string
/// that parses back to the same expression (and prints the same again); running the filter
/// over a small row keeps only cells the row had, with the same coordinates.
pub fn filter_parse(input: &[u8]) {
    let Ok(expr) = parse_expr_bytes(input) else {
        return;
    };
    // Printing is lossy for byte strings that are not UTF-8 (documented in `ast.rs`).
    if std::str::from_utf8(input).is_ok() {
        let printed = expr.to_string();
        let again = match parse_expr(&printed) {
            Ok(again) => again,
            Err(e) => panic!("printed filter {printed:?} does not parse: {e}"),
        };
        assert_eq!(again, expr, "printed filter {printed:?} parses differently");
        assert_eq!(again.to_string(), printed, "printing is not stable");
    }
    check_on_sample_rows(&mut Filter::new(expr));
}

/// Runs `filter` over two small rows (several families, versions and an empty value): a
/// kept row holds only cells it had. Other protocols' fuzz targets use it for the filters
/// they decode.
pub fn check_on_sample_rows(filter: &mut Filter) {
    for key in ["row1", "row2"] {
        let row = sample_row(key);
        if let RowOutcome::Keep(kept) = filter.filter_row(row.clone()) {
            assert_eq!(kept.row, row.row);
            for cell in &kept.cells {
                let present = row.cells.iter().any(|c| {
                    c.family == cell.family
                        && c.qualifier == cell.qualifier
                        && c.timestamp == cell.timestamp
                });
                assert!(present, "the filter invented a cell: {cell:?}");
            }
        }
    }
}

fn sample_row(key: &str) -> RowResult {
    let cell = |f: &str, q: &str, ts: i64, v: &str| {
        Cell::put(
            key.as_bytes().to_vec(),
            f.as_bytes().to_vec(),
            q.as_bytes().to_vec(),
            ts,
            v.as_bytes().to_vec(),
        )
    };
    RowResult {
        row: Bytes::copy_from_slice(key.as_bytes()),
        cells: vec![
            cell("cf", "a", 3, "1"),
            cell("cf", "a", 2, "x"),
            cell("cf", "b", 5, "abc"),
            cell("cg", "c", 1, ""),
        ],
    }
}
