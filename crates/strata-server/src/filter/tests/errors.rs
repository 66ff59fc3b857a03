//! Parse errors: their message and position, and the size and nesting limits.

use crate::filter::{parse_expr, FilterError, MAX_DEPTH, MAX_FILTER_LEN, MAX_REGEX_LEN};

fn err(text: &str) -> FilterError {
    match parse_expr(text) {
        Err(e) => e,
        Ok(e) => panic!("{text}: expected an error, parsed {e:?}"),
    }
}

#[test]
fn errors_say_what_and_where() {
    let e = err("");
    assert!(e.message.contains("empty"), "{e}");
    assert_eq!(e.offset, 0);
    assert!(err("   ").message.contains("empty"));

    let e = err("PrefixFilter('a') and PrefixFilter('b')");
    assert_eq!(e.offset, 18, "{e}");
    assert!(e.message.contains("upper case"), "{e}");
    assert!(e.excerpt.starts_with("and"), "{e}");

    let e = err("PrefixFilter('a') AND FooFilter('b')");
    assert_eq!(e.offset, 22);
    assert!(e.message.contains("FooFilter"), "{e}");

    let e = err("PrefixFilter('a'");
    assert_eq!(e.offset, 16);
    assert!(e.message.contains("')'"), "{e}");
    assert_eq!(
        e.to_string(),
        "expected ',' or ')' to continue the arguments at offset 16 (end of input)"
    );

    let e = err("PrefixFilter('a' 'b')");
    assert_eq!(e.offset, 17);
    assert_eq!(
        e.to_string(),
        "expected ',' or ')' after an argument at offset 17 near \"'b')\""
    );

    let e = err("PrefixFilter('abc)");
    assert_eq!(e.offset, 13);
    assert!(e.message.contains("unterminated"), "{e}");

    let e = err("RowFilter(=<, 'binary:a')");
    assert_eq!(e.offset, 10);
    assert!(e.message.contains("=<"), "{e}");

    let e = err("PageFilter(1, 2)");
    assert_eq!(e.offset, 14);
    assert!(
        e.message.contains("PageFilter") && e.message.contains("got 2"),
        "{e}"
    );

    let e = err("SingleColumnValueFilter('f', 'q', =)");
    assert_eq!(e.offset, 35);
    assert!(e.message.contains("4 or 6"), "{e}");

    let e = err("PageFilter('1')");
    assert_eq!(e.offset, 11);
    assert!(e.message.contains("integer"), "{e}");

    let e = err("RowFilter(<, 'regexstring:a')");
    assert_eq!(e.offset, 13);
    assert!(e.message.contains("only = and !="), "{e}");
    assert!(err("ValueFilter(>=, 'substring:a')")
        .message
        .contains("only = and !="));

    let e = err("RowFilter(=, 'nope:a')");
    assert!(e.message.contains("unknown comparator type 'nope'"), "{e}");
    assert!(err("RowFilter(=, 'binary')").message.contains("colon"));
    assert!(err("RowFilter(=, 'BINARY:a')").message.contains("'BINARY'"));
    assert!(err("RowFilter(=, 'regexstring:(')")
        .message
        .contains("invalid regexstring"));

    let e = err("TimestampsFilter(1, -2)");
    assert_eq!(e.offset, 20);
    assert!(e.message.contains("negative"), "{e}");
    assert!(err("ColumnPaginationFilter(-1, 0)")
        .message
        .contains("negative"));
    assert!(err("ColumnCountGetFilter(3000000000)")
        .message
        .contains("out of range"));
    // Issue 13, differential case 1: HBase refuses PageFilter(-1) ("Internal error processing
    // scannerOpenWithScan"); Strata used to return an empty scan.
    let e = err("PageFilter(-1)");
    assert_eq!(e.offset, 11);
    assert!(
        e.message
            .contains("PageFilter: the page size must not be negative, got -1"),
        "{e}"
    );
    assert!(err("PageFilter(2) AND PageFilter(-9)")
        .message
        .contains("negative"));
    // HBase's MultipleColumnPrefixFilter refuses a repeated prefix.
    let e = err("MultipleColumnPrefixFilter('a', 'b', 'a')");
    assert_eq!(e.offset, 37);
    assert!(e.message.contains("prefixes must be distinct"), "{e}");
    assert!(err("PageFilter(99999999999999999999)")
        .message
        .contains("out of range"));
    assert!(err("KeyOnlyFilter(yes)").message.contains("'yes'"));
    assert!(err("KeyOnlyFilter('true')")
        .message
        .contains("true or false"));

    let e = err("PrefixFilter('a'))");
    assert_eq!(e.offset, 17);
    assert!(e.message.contains("unmatched"), "{e}");
    assert_eq!(err("AND PrefixFilter('a')").offset, 0);
    let e = err("PrefixFilter('a') AND");
    assert_eq!(e.offset, 21);
    assert!(e.message.contains("end of the input"), "{e}");
    assert!(err("PrefixFilter").message.contains("expected '('"));
    assert!(err("PrefixFilter('a') PrefixFilter('b')")
        .message
        .contains("expected AND, OR"));
    assert!(err("skip PrefixFilter('a')").message.contains("upper case"));
    assert!(err("(PrefixFilter('a') PrefixFilter('b'))")
        .message
        .contains("expected ')'"));
}

#[test]
fn error_offsets_count_characters() {
    // 'é' is two bytes but one character: "XX" starts at byte 19, character 18.
    let e = err("PrefixFilter('é') XX");
    assert_eq!(e.offset, 18, "{e}");
    assert_eq!(e.excerpt, "XX");
}

#[test]
fn nesting_is_capped() {
    let ok = format!(
        "{}PrefixFilter('a'){}",
        "(".repeat(MAX_DEPTH),
        ")".repeat(MAX_DEPTH)
    );
    assert!(parse_expr(&ok).is_ok());
    let deep = format!(
        "{}PrefixFilter('a'){}",
        "(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    let e = err(&deep);
    assert!(e.message.contains("64"), "{e}");
    assert_eq!(e.offset, MAX_DEPTH + 1);
    let e = err(&format!(
        "{}PrefixFilter('a')",
        "SKIP ".repeat(MAX_DEPTH + 1)
    ));
    assert!(e.message.contains("64"), "{e}");
    // A huge nesting attempt fails fast rather than overflowing the stack.
    let e = err(&"(".repeat(500_000));
    assert!(e.message.contains("deeper"), "{e}");
}

#[test]
fn sizes_are_capped() {
    let long = format!(
        "RowFilter(=, 'regexstring:{}')",
        "a".repeat(MAX_REGEX_LEN + 1)
    );
    let e = err(&long);
    assert!(e.message.contains(&MAX_REGEX_LEN.to_string()), "{e}");
    // Small text, huge automaton.
    let e = err("RowFilter(=, 'regexstring:(\\w{100}){100}')");
    assert!(e.message.contains("size limit"), "{e}");
    let huge = format!("PrefixFilter('{}')", "a".repeat(MAX_FILTER_LEN));
    let e = err(&huge);
    assert!(e.message.contains(&MAX_FILTER_LEN.to_string()), "{e}");
}
