#![allow(clippy::unwrap_used, clippy::expect_used)]
//! HBase's JSON filter representation to the filter language.

use strata_rest::model::filter::to_filter_language;

fn translate(json: serde_json::Value) -> String {
    String::from_utf8(to_filter_language(&json.to_string()).unwrap()).unwrap()
}

fn b64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[test]
fn simple_filters() {
    use serde_json::json;
    assert_eq!(
        translate(json!({"type": "KeyOnlyFilter"})),
        "KeyOnlyFilter()"
    );
    assert_eq!(
        translate(json!({"type": "PrefixFilter", "value": b64("it's")})),
        "PrefixFilter('it''s')"
    );
    assert_eq!(
        translate(json!({"type": "PageFilter", "value": "10"})),
        "PageFilter(10)"
    );
    assert_eq!(
        translate(json!({"type": "ColumnPaginationFilter", "limit": 2, "offset": 3})),
        "ColumnPaginationFilter(2, 3)"
    );
    assert_eq!(
        translate(json!({"type": "TimestampsFilter", "timestamps": [5, "6"]})),
        "TimestampsFilter(5, 6)"
    );
}

#[test]
fn comparisons_and_lists() {
    use serde_json::json;
    let row = json!({"type": "RowFilter", "op": "GREATER_OR_EQUAL",
        "comparator": {"type": "BinaryComparator", "value": b64("r1")}});
    assert_eq!(translate(row.clone()), "RowFilter(>=, 'binary:r1')");
    let value = json!({"type": "ValueFilter", "op": "NOT_EQUAL",
        "comparator": {"type": "RegexStringComparator", "value": "a.*"}});
    let list = json!({"type": "FilterList", "op": "MUST_PASS_ONE", "filters": [row, value]});
    assert_eq!(
        translate(list),
        "(RowFilter(>=, 'binary:r1') OR ValueFilter(!=, 'regexstring:a.*'))"
    );
    let scvf = json!({"type": "SingleColumnValueFilter", "family": b64("cf"), "qualifier": b64("q"),
        "op": "EQUAL", "comparator": {"type": "SubstringComparator", "value": "x"},
        "ifMissing": true, "latestVersion": false});
    assert_eq!(
        translate(scvf),
        "SingleColumnValueFilter('cf', 'q', =, 'substring:x', true, false)"
    );
    let skip = json!({"type": "SkipFilter", "filters": [{"type": "KeyOnlyFilter"}]});
    assert_eq!(translate(skip), "SKIP KeyOnlyFilter()");
}

#[test]
fn filter_language_text_passes_through() {
    assert_eq!(
        to_filter_language("PrefixFilter('a')").unwrap(),
        b"PrefixFilter('a')"
    );
}

#[test]
fn unsupported_or_malformed_filters_are_refused() {
    use serde_json::json;
    for bad in [
        json!({"type": "NoSuchFilter"}),
        json!({"value": "x"}),
        json!({"type": "RowFilter", "op": "EQUAL"}),
        json!({"type": "RowFilter", "op": "NO_OP", "comparator": {"type": "BinaryComparator", "value": ""}}),
        json!({"type": "RowFilter", "op": "EQUAL", "comparator": {"type": "BitComparator", "value": ""}}),
        json!({"type": "PrefixFilter", "value": "!!notbase64"}),
        json!({"type": "FilterList", "filters": []}),
        json!({"type": "SkipFilter", "filters": [{"type": "KeyOnlyFilter"}, {"type": "KeyOnlyFilter"}]}),
    ] {
        assert!(to_filter_language(&bad.to_string()).is_err(), "{bad}");
    }
    // Nesting is bounded.
    let mut deep = json!({"type": "KeyOnlyFilter"});
    for _ in 0..100 {
        deep = json!({"type": "FilterList", "filters": [deep]});
    }
    assert!(to_filter_language(&deep.to_string()).is_err());
}
