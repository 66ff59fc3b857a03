//! Parsing: every filter's argument list, precedence, grouping, quoting, errors, limits.

use bytes::Bytes;

use super::cmp;
use crate::filter::{
    parse, parse_expr, parse_expr_bytes, ColumnTest, ComparatorKind, CompareOp, Expr, FilterSpec,
};

fn spec(text: &str) -> FilterSpec {
    match parse_expr(text) {
        Ok(Expr::Filter(s)) => s,
        other => panic!("{text}: expected one filter, got {other:?}"),
    }
}

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

fn leaf(text: &str) -> Expr {
    Expr::Filter(spec(text))
}

#[test]
fn every_filter_with_its_arguments() {
    assert_eq!(
        spec("KeyOnlyFilter()"),
        FilterSpec::KeyOnly {
            len_as_value: false
        }
    );
    assert_eq!(
        spec("KeyOnlyFilter(true)"),
        FilterSpec::KeyOnly { len_as_value: true }
    );
    assert_eq!(spec("FirstKeyOnlyFilter()"), FilterSpec::FirstKeyOnly);
    assert_eq!(spec("PrefixFilter('ab')"), FilterSpec::Prefix(b("ab")));
    assert_eq!(
        spec("ColumnPrefixFilter('q')"),
        FilterSpec::ColumnPrefix(b("q"))
    );
    assert_eq!(
        spec("MultipleColumnPrefixFilter('a', 'b','c')"),
        FilterSpec::MultipleColumnPrefix(vec![b("a"), b("b"), b("c")])
    );
    assert_eq!(
        spec("MultipleColumnPrefixFilter()"),
        FilterSpec::MultipleColumnPrefix(vec![])
    );
    assert_eq!(
        spec("ColumnCountGetFilter(3)"),
        FilterSpec::ColumnCountGet(3)
    );
    assert_eq!(spec("PageFilter(10)"), FilterSpec::Page(10));
    assert_eq!(
        spec("PageFilter(9000000000)"),
        FilterSpec::Page(9_000_000_000)
    );
    assert_eq!(spec("PageFilter(0)"), FilterSpec::Page(0));
    assert_eq!(
        spec("ColumnPaginationFilter(4, 2)"),
        FilterSpec::ColumnPagination {
            limit: 4,
            offset: 2
        }
    );
    assert_eq!(
        spec("InclusiveStopFilter('r5')"),
        FilterSpec::InclusiveStop(b("r5"))
    );
    assert_eq!(
        spec("TimestampsFilter(5, 0, 7)"),
        FilterSpec::Timestamps(vec![5, 0, 7])
    );
    assert_eq!(spec("TimestampsFilter()"), FilterSpec::Timestamps(vec![]));
    assert_eq!(
        spec("RowFilter(<, 'binary:m')"),
        FilterSpec::Row(CompareOp::Less, cmp("binary:m"))
    );
    assert_eq!(
        spec("FamilyFilter(>=, 'binaryprefix:c')"),
        FilterSpec::Family(CompareOp::GreaterOrEqual, cmp("binaryprefix:c"))
    );
    assert_eq!(
        spec("QualifierFilter(!=, 'regexstring:^a.*')"),
        FilterSpec::Qualifier(CompareOp::NotEqual, cmp("regexstring:^a.*"))
    );
    assert_eq!(
        spec("ValueFilter(=, 'substring:Hello')"),
        FilterSpec::Value(CompareOp::Equal, cmp("substring:Hello"))
    );
    assert_eq!(
        spec("ColumnRangeFilter('a', true, 'c', false)"),
        FilterSpec::ColumnRange {
            min: b("a"),
            min_inclusive: true,
            max: b("c"),
            max_inclusive: false
        }
    );
    let test = ColumnTest {
        family: b("f"),
        qualifier: b("q"),
        op: CompareOp::LessOrEqual,
        comparator: cmp("binary:5"),
        filter_if_missing: false,
        latest_version_only: true,
    };
    assert_eq!(
        spec("SingleColumnValueFilter('f', 'q', <=, 'binary:5')"),
        FilterSpec::SingleColumnValue(test.clone())
    );
    assert_eq!(
        spec("SingleColumnValueFilter('f', 'q', <=, 'binary:5', true, false)"),
        FilterSpec::SingleColumnValue(ColumnTest {
            filter_if_missing: true,
            latest_version_only: false,
            ..test.clone()
        })
    );
    assert_eq!(
        spec("SingleColumnValueExcludeFilter('f', 'q', <=, 'binary:5')"),
        FilterSpec::SingleColumnValueExclude(test)
    );
    assert_eq!(
        spec("DependentColumnFilter('f', 'q')"),
        FilterSpec::DependentColumn {
            family: b("f"),
            qualifier: b("q"),
            drop_dependent: false,
            test: None
        }
    );
    assert_eq!(
        spec("DependentColumnFilter('f', 'q', true)"),
        FilterSpec::DependentColumn {
            family: b("f"),
            qualifier: b("q"),
            drop_dependent: true,
            test: None
        }
    );
    assert_eq!(
        spec("DependentColumnFilter('f', 'q', false, >, 'binary:1')"),
        FilterSpec::DependentColumn {
            family: b("f"),
            qualifier: b("q"),
            drop_dependent: false,
            test: Some((CompareOp::Greater, cmp("binary:1")))
        }
    );
    assert_eq!(
        spec("ColumnValueFilter('f', 'q', =, 'binary:v')"),
        FilterSpec::ColumnValue {
            family: b("f"),
            qualifier: b("q"),
            op: CompareOp::Equal,
            comparator: cmp("binary:v")
        }
    );
}

#[test]
fn comparators_and_operators() {
    for (text, op) in [
        ("<", CompareOp::Less),
        ("<=", CompareOp::LessOrEqual),
        ("=", CompareOp::Equal),
        ("!=", CompareOp::NotEqual),
        (">=", CompareOp::GreaterOrEqual),
        (">", CompareOp::Greater),
    ] {
        assert_eq!(
            spec(&format!("RowFilter({text},'binary:x')")),
            FilterSpec::Row(op, cmp("binary:x"))
        );
    }
    // The type ends at the first colon; the value may hold more colons.
    let FilterSpec::Value(_, c) = spec("ValueFilter(=, 'binary:a:b')") else {
        panic!("not a ValueFilter")
    };
    assert_eq!(c.kind(), ComparatorKind::Binary);
    assert_eq!(c.value(), &b("a:b"));
    // An empty comparator value is allowed.
    let FilterSpec::Value(_, c) = spec("ValueFilter(=, 'binary:')") else {
        panic!("not a ValueFilter")
    };
    assert!(c.value().is_empty());
}

#[test]
fn quoting_and_whitespace() {
    assert_eq!(spec("PrefixFilter('it''s')"), FilterSpec::Prefix(b("it's")));
    assert_eq!(spec("PrefixFilter('''')"), FilterSpec::Prefix(b("'")));
    assert_eq!(spec("PrefixFilter('')"), FilterSpec::Prefix(b("")));
    assert_eq!(
        spec("PrefixFilter('a, b) AND c')"),
        FilterSpec::Prefix(b("a, b) AND c"))
    );
    assert_eq!(
        spec(" \tPrefixFilter ( 'x' ) \n"),
        FilterSpec::Prefix(b("x"))
    );
    assert_eq!(
        spec("KeyOnlyFilter(TRUE)"),
        FilterSpec::KeyOnly { len_as_value: true }
    );
    assert_eq!(
        spec("ValueFilter(=,'binary:it''s')"),
        FilterSpec::Value(CompareOp::Equal, cmp("binary:it's"))
    );
    // Quoted strings carry raw bytes.
    assert_eq!(
        parse_expr_bytes(b"PrefixFilter('\xff\x00')").unwrap(),
        Expr::Filter(FilterSpec::Prefix(Bytes::from_static(b"\xff\x00")))
    );
}

#[test]
fn and_binds_tighter_than_or() {
    let a = leaf("PrefixFilter('a')");
    let bb = leaf("PrefixFilter('b')");
    let c = leaf("PrefixFilter('c')");
    let d = leaf("PrefixFilter('d')");
    assert_eq!(
        parse_expr("PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c')").unwrap(),
        Expr::Or(vec![a.clone(), Expr::And(vec![bb.clone(), c.clone()])])
    );
    assert_eq!(
        parse_expr(
            "PrefixFilter('a') AND PrefixFilter('b') OR PrefixFilter('c') AND PrefixFilter('d')"
        )
        .unwrap(),
        Expr::Or(vec![
            Expr::And(vec![a.clone(), bb.clone()]),
            Expr::And(vec![c.clone(), d.clone()])
        ])
    );
    assert_eq!(
        parse_expr("(PrefixFilter('a') OR PrefixFilter('b')) AND PrefixFilter('c')").unwrap(),
        Expr::And(vec![Expr::Or(vec![a.clone(), bb.clone()]), c.clone()])
    );
    // Chains stay flat.
    assert_eq!(
        parse_expr("PrefixFilter('a') OR PrefixFilter('b') OR PrefixFilter('c')").unwrap(),
        Expr::Or(vec![a.clone(), bb.clone(), c.clone()])
    );
    // HBase fails on these inside parentheses (a bug); they parse here.
    assert_eq!(
        parse_expr("(PrefixFilter('a') OR PrefixFilter('b') AND PrefixFilter('c'))").unwrap(),
        Expr::Or(vec![a.clone(), Expr::And(vec![bb.clone(), c.clone()])])
    );
    assert_eq!(
        parse_expr("(PrefixFilter('a') AND SKIP PrefixFilter('b'))").unwrap(),
        Expr::And(vec![a.clone(), Expr::Skip(Box::new(bb.clone()))])
    );
    // No space is needed between a keyword and a parenthesis.
    assert_eq!(
        parse_expr("(PrefixFilter('a'))AND(PrefixFilter('b'))").unwrap(),
        Expr::And(vec![a, bb])
    );
}

#[test]
fn skip_and_while_bind_tightest() {
    let a = leaf("PrefixFilter('a')");
    let v = leaf("ValueFilter(=, 'binary:1')");
    assert_eq!(
        parse_expr("SKIP ValueFilter(=, 'binary:1') AND PrefixFilter('a')").unwrap(),
        Expr::And(vec![Expr::Skip(Box::new(v.clone())), a.clone()])
    );
    assert_eq!(
        parse_expr("WHILE (ValueFilter(=, 'binary:1') OR PrefixFilter('a'))").unwrap(),
        Expr::While(Box::new(Expr::Or(vec![v.clone(), a.clone()])))
    );
    assert_eq!(
        parse_expr("SKIP WHILE PrefixFilter('a')").unwrap(),
        Expr::Skip(Box::new(Expr::While(Box::new(a.clone()))))
    );
    assert_eq!(
        parse_expr("SKIP(PrefixFilter('a'))").unwrap(),
        Expr::Skip(Box::new(a))
    );
}

#[test]
fn unclosed_group_is_closed_at_the_end_like_hbase() {
    assert_eq!(
        parse_expr("(PrefixFilter('a')").unwrap(),
        leaf("PrefixFilter('a')")
    );
    assert_eq!(
        parse_expr("((PrefixFilter('a') AND (PrefixFilter('b')").unwrap(),
        Expr::And(vec![leaf("PrefixFilter('a')"), leaf("PrefixFilter('b')")])
    );
}

#[test]
fn printing_is_canonical_and_parses_back() {
    for (input, printed) in [
        (
            "PrefixFilter ('a')AND(ValueFilter(=,'binary:x') OR KeyOnlyFilter(false))",
            "PrefixFilter('a') AND (ValueFilter(=, 'binary:x') OR KeyOnlyFilter())",
        ),
        (
            "SKIP (QualifierFilter(!=,'substring:it''s'))",
            "SKIP QualifierFilter(!=, 'substring:it''s')",
        ),
        (
            "SingleColumnValueFilter('f','q',=,'binary:v',false,true)",
            "SingleColumnValueFilter('f', 'q', =, 'binary:v')",
        ),
        (
            "DependentColumnFilter('f','q',false)",
            "DependentColumnFilter('f', 'q')",
        ),
        (
            "WHILE (PageFilter(2) AND TimestampsFilter(1,2))",
            "WHILE (PageFilter(2) AND TimestampsFilter(1, 2))",
        ),
    ] {
        let expr = parse_expr(input).unwrap();
        assert_eq!(expr.to_string(), printed);
        assert_eq!(parse_expr(printed).unwrap(), expr);
        assert_eq!(parse(input).unwrap().to_string(), printed);
    }
}
