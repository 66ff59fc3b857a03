//! Randomized (seeded) checks: strings generated from the grammar parse, print and re-parse
//! stably, and evaluate without breaking invariants; arbitrary bytes never make the parser
//! panic.

use std::panic::{catch_unwind, AssertUnwindSafe};

use strata_engine::RowResult;

use super::{row, Rng};
use crate::filter::{parse_bytes, parse_expr, Expr, Filter, RowOutcome};

const OPS: [&str; 6] = ["<", "<=", "=", "!=", ">=", ">"];
const PIECES: [&str; 12] = [
    "a", "b", "row", "q", "'", ",", ")", "(", " ", "AND", "é", "x:y",
];

/// A random byte-string argument, quoted with doubled quotes.
fn quoted(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(4) {
        s.push_str(rng.pick_str(&PIECES));
    }
    format!("'{}'", s.replace('\'', "''"))
}

fn comparator(rng: &mut Rng) -> (String, String) {
    let value: String = (0..rng.below(3))
        .map(|_| *rng.pick(&["a", "b", "r", "'"]))
        .collect();
    let value = value.replace('\'', "''");
    match rng.below(4) {
        0 => (rng.pick(&OPS).to_string(), format!("'binary:{value}'")),
        1 => (
            rng.pick(&OPS).to_string(),
            format!("'binaryprefix:{value}'"),
        ),
        2 => {
            let pattern = *rng.pick(&["^a", "b.*", "r$", "a|b", "[ab]+"]);
            (
                rng.pick(&["=", "!="]).to_string(),
                format!("'regexstring:{pattern}'"),
            )
        }
        _ => (
            rng.pick(&["=", "!="]).to_string(),
            format!("'substring:{value}'"),
        ),
    }
}

fn boolean(rng: &mut Rng) -> &'static str {
    rng.pick_str(&["true", "false", "TRUE", "False"])
}

/// One random filter call.
fn call(rng: &mut Rng) -> String {
    let (op, c) = comparator(rng);
    let n = rng.below(40) as i64;
    match rng.below(19) {
        0 => format!(
            "KeyOnlyFilter({})",
            if rng.chance(50) { boolean(rng) } else { "" }
        ),
        1 => "FirstKeyOnlyFilter()".into(),
        2 => format!("PrefixFilter({})", quoted(rng)),
        3 => format!("ColumnPrefixFilter({})", quoted(rng)),
        4 => {
            // Distinct prefixes: HBase refuses a repeated one.
            let mut args: Vec<String> = (0..rng.below(4)).map(|_| quoted(rng)).collect();
            args.sort();
            args.dedup();
            format!("MultipleColumnPrefixFilter({})", args.join(", "))
        }
        5 => format!("ColumnCountGetFilter({n})"),
        6 => format!("PageFilter({n})"),
        7 => format!("ColumnPaginationFilter({n}, {})", rng.below(5)),
        8 => format!("InclusiveStopFilter({})", quoted(rng)),
        9 => {
            let args: Vec<String> = (0..rng.below(4))
                .map(|_| rng.below(6).to_string())
                .collect();
            format!("TimestampsFilter({})", args.join(","))
        }
        10 => format!("RowFilter({op}, {c})"),
        11 => format!("FamilyFilter({op},{c})"),
        12 => format!("QualifierFilter( {op} , {c} )"),
        13 => format!("ValueFilter({op}, {c})"),
        14 => format!(
            "ColumnRangeFilter({}, {}, {}, {})",
            quoted(rng),
            boolean(rng),
            quoted(rng),
            boolean(rng)
        ),
        15 | 16 => {
            let name = if rng.chance(50) {
                "SingleColumnValueFilter"
            } else {
                "SingleColumnValueExcludeFilter"
            };
            let tail = if rng.chance(50) {
                format!(", {}, {}", boolean(rng), boolean(rng))
            } else {
                String::new()
            };
            format!("{name}('cf', {}, {op}, {c}{tail})", quoted(rng))
        }
        17 => match rng.below(3) {
            0 => "DependentColumnFilter('cf', 'a')".into(),
            1 => format!("DependentColumnFilter('cf', 'b', {})", boolean(rng)),
            _ => format!(
                "DependentColumnFilter('cf', 'a', {}, {op}, {c})",
                boolean(rng)
            ),
        },
        _ => format!("ColumnValueFilter('cf', {}, {op}, {c})", quoted(rng)),
    }
}

fn space(rng: &mut Rng) -> &'static str {
    rng.pick_str(&[" ", " ", "  ", "\t", "\n "])
}

/// An expression of the grammar; returns its text and its number of filter calls.
fn or_expr(rng: &mut Rng, depth: usize) -> (String, usize) {
    join(rng, depth, "OR", and_expr)
}

fn and_expr(rng: &mut Rng, depth: usize) -> (String, usize) {
    join(rng, depth, "AND", unary)
}

fn join(
    rng: &mut Rng,
    depth: usize,
    keyword: &str,
    operand: fn(&mut Rng, usize) -> (String, usize),
) -> (String, usize) {
    let count = if depth > 0 && rng.chance(40) {
        2 + rng.below(2)
    } else {
        1
    };
    let mut text = String::new();
    let mut calls = 0;
    for i in 0..count {
        if i > 0 {
            text.push_str(space(rng));
            text.push_str(keyword);
            text.push_str(space(rng));
        }
        let (t, n) = operand(rng, depth);
        text.push_str(&t);
        calls += n;
    }
    (text, calls)
}

fn unary(rng: &mut Rng, depth: usize) -> (String, usize) {
    if depth > 0 && rng.chance(20) {
        let keyword = if rng.chance(50) { "SKIP" } else { "WHILE" };
        let (t, n) = unary(rng, depth - 1);
        return (format!("{keyword}{}{t}", space(rng)), n);
    }
    if depth > 0 && rng.chance(25) {
        let (t, n) = or_expr(rng, depth - 1);
        let pad = if rng.chance(50) { "" } else { " " };
        return (format!("({pad}{t}{pad})"), n);
    }
    (call(rng), 1)
}

fn count_calls(e: &Expr) -> usize {
    match e {
        Expr::Filter(_) => 1,
        Expr::And(items) | Expr::Or(items) => items.iter().map(count_calls).sum(),
        Expr::Skip(inner) | Expr::While(inner) => count_calls(inner),
    }
}

fn random_row(rng: &mut Rng) -> RowResult {
    let key = *rng.pick(&["a", "b", "row", "r'", "zz"]);
    let mut cells = Vec::new();
    for family in ["cf", "g"] {
        for qualifier in ["", "a", "b", "x:y"] {
            if rng.chance(50) {
                for ts in (1..=rng.below(3) + 1).rev() {
                    cells.push((
                        family,
                        qualifier,
                        ts as i64,
                        *rng.pick(&["", "a", "Ab", "r"]),
                    ));
                }
            }
        }
    }
    row(key, &cells)
}

/// Runs `filter` over `rows`, checking each kept row holds a subsequence of its cells.
fn check_eval(filter: &mut Filter, rows: Vec<RowResult>) {
    for r in rows {
        let coords = |r: &RowResult| -> Vec<_> {
            r.cells
                .iter()
                .map(|c| (c.family.clone(), c.qualifier.clone(), c.timestamp))
                .collect()
        };
        let all = coords(&r);
        match filter.filter_row(r) {
            RowOutcome::Keep(out) => {
                assert!(!out.cells.is_empty(), "kept row without cells");
                let mut rest = all.iter();
                for c in coords(&out) {
                    assert!(rest.any(|x| *x == c), "{filter}: cell not from the row");
                }
            }
            RowOutcome::Skip => {}
            RowOutcome::StopScan => break,
        }
    }
}

#[test]
fn random_grammar_strings_parse_print_and_reparse() {
    let mut rng = Rng::new(0x5EED_F11E);
    for _ in 0..3000 {
        let (text, calls) = or_expr(&mut rng, 4);
        let expr = parse_expr(&text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(count_calls(&expr), calls, "{text}");
        let printed = expr.to_string();
        let again = parse_expr(&printed).unwrap_or_else(|e| panic!("{printed:?}: {e}"));
        assert_eq!(again, expr, "{text} printed as {printed}");
        assert_eq!(again.to_string(), printed);
        let mut filter = Filter::new(expr);
        let rows = (0..4).map(|_| random_row(&mut rng)).collect();
        check_eval(&mut filter, rows);
    }
}

#[test]
fn random_bytes_never_panic_the_parser() {
    let mut rng = Rng::new(42);
    let mut parsed = 0;
    for i in 0..20_000 {
        let input: Vec<u8> = if i % 2 == 0 {
            (0..rng.below(48))
                .map(|_| *rng.pick(b"()',=<>!AND OR SKIP WHILE Filter 0-9az\xff\xc3"))
                .collect()
        } else {
            // A valid string with a few random edits.
            let mut bytes = or_expr(&mut rng, 3).0.into_bytes();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len() + 1);
                match rng.below(3) {
                    0 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    1 => bytes.insert(at, rng.next() as u8),
                    _ => bytes.truncate(at),
                }
            }
            bytes
        };
        let result = catch_unwind(AssertUnwindSafe(|| parse_bytes(&input)));
        let Ok(result) = result else {
            panic!("parser panicked on {input:?}");
        };
        match result {
            Ok(mut filter) => {
                parsed += 1;
                let rows = (0..3).map(|_| random_row(&mut rng)).collect();
                check_eval(&mut filter, rows);
            }
            Err(e) => {
                let chars = String::from_utf8_lossy(&input).chars().count();
                assert!(
                    e.offset <= chars,
                    "offset {} past the input {input:?}",
                    e.offset
                );
                assert!(!e.message.is_empty());
            }
        }
    }
    // The edited strings must sometimes still parse, or the test checks little of eval.
    assert!(parsed > 100, "only {parsed} inputs parsed");
}
