//! Filters that keep state across rows or end the scan: WHILE, PageFilter, PrefixFilter and
//! InclusiveStopFilter.

use super::row;
use crate::filter::{parse, Filter, RowOutcome};

/// Runs one filter over rows in order; returns the kept row keys and whether it stopped.
fn scan(filter: &mut Filter, keys: &[&str]) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    for key in keys {
        match filter.filter_row(row(key, &[("cf", "a", 1, key)])) {
            RowOutcome::Keep(r) => out.push(String::from_utf8_lossy(&r.row).into_owned()),
            RowOutcome::Skip => {}
            RowOutcome::StopScan => return (out, true),
        }
    }
    (out, false)
}

#[test]
fn while_stops_the_scan_at_the_first_failing_row() {
    let mut f = parse("WHILE RowFilter(<, 'binary:c')").unwrap();
    assert_eq!(
        scan(&mut f, &["a", "b", "c", "a"]),
        (vec!["a".into(), "b".into()], true)
    );
    // Once stopped it stays stopped.
    assert_eq!(scan(&mut f, &["a"]), (vec![], true));
    // A plain RowFilter just skips.
    let mut f = parse("RowFilter(<, 'binary:c')").unwrap();
    assert_eq!(
        scan(&mut f, &["a", "c", "b"]),
        (vec!["a".into(), "b".into()], false)
    );
    // WHILE fails at the first failing cell: the cells before it are returned, as HBase's
    // WhileMatchFilter does (issue 13, found by the differential test), and the scan ends.
    let mut f = parse("WHILE ValueFilter(!=, 'binary:0')").unwrap();
    let three = row(
        "r",
        &[
            ("cf", "a", 1, "1"),
            ("cf", "b", 1, "0"),
            ("cf", "c", 1, "2"),
        ],
    );
    let RowOutcome::Keep(kept) = f.filter_row(three) else {
        panic!("the cells before the failing one are kept");
    };
    assert_eq!(kept.cells.len(), 1);
    assert_eq!(&kept.cells[0].qualifier[..], b"a");
    assert_eq!(scan(&mut f, &["s"]), (vec![], true));
    // Failing at the first cell returns nothing of the row.
    let mut f = parse("WHILE ValueFilter(!=, 'binary:0')").unwrap();
    let first = row("r", &[("cf", "a", 1, "0"), ("cf", "b", 1, "1")]);
    assert_eq!(f.filter_row(first), RowOutcome::Skip);
    assert_eq!(scan(&mut f, &["s"]), (vec![], true));
    let mut f = parse("WHILE FirstKeyOnlyFilter()").unwrap();
    let RowOutcome::Keep(kept) =
        f.filter_row(row("r", &[("cf", "a", 1, "1"), ("cf", "b", 1, "2")]))
    else {
        panic!("the first cell passes");
    };
    assert_eq!(kept.cells.len(), 1);
    assert_eq!(scan(&mut f, &["s"]), (vec![], true));
}

#[test]
fn page_filter_counts_returned_rows() {
    let mut f = parse("PageFilter(2)").unwrap();
    assert_eq!(
        scan(&mut f, &["a", "b", "c"]),
        (vec!["a".into(), "b".into()], true)
    );
    let mut f = parse("PageFilter(0)").unwrap();
    assert_eq!(scan(&mut f, &["a"]), (vec![], true));
    // Rows dropped by the rest of an AND are not counted.
    let mut f = parse("PageFilter(2) AND RowFilter(!=, 'binary:b')").unwrap();
    assert_eq!(
        scan(&mut f, &["a", "b", "c", "d"]),
        (vec!["a".into(), "c".into()], true)
    );
    // In an OR, a spent PageFilter no longer keeps rows but does not end the scan.
    let mut f = parse("PageFilter(1) OR RowFilter(>, 'binary:c')").unwrap();
    assert_eq!(
        scan(&mut f, &["a", "b", "d"]),
        (vec!["a".into(), "d".into()], false)
    );
}

#[test]
fn range_filters_stop_scans_past_their_range() {
    let mut f = parse("InclusiveStopFilter('b')").unwrap();
    assert_eq!(
        scan(&mut f, &["a", "b", "ba"]),
        (vec!["a".into(), "b".into()], true)
    );
    let mut f = parse("InclusiveStopFilter('b')").unwrap();
    f.set_reversed(true);
    assert_eq!(
        scan(&mut f, &["c", "b", "a"]),
        (vec!["c".into(), "b".into()], true)
    );
    let mut f = parse("PrefixFilter('b')").unwrap();
    assert_eq!(
        scan(&mut f, &["a", "b1", "b2", "c", "b3"]),
        (vec!["b1".into(), "b2".into()], true)
    );
    let mut f = parse("PrefixFilter('b')").unwrap();
    f.set_reversed(true);
    assert_eq!(
        scan(&mut f, &["c", "b2", "b1", "a"]),
        (vec!["b2".into(), "b1".into()], true)
    );
    // In an OR the scan goes on while another operand may still match.
    let mut f = parse("PrefixFilter('a') OR PrefixFilter('c')").unwrap();
    assert_eq!(
        scan(&mut f, &["a1", "b", "c1", "d"]),
        (vec!["a1".into(), "c1".into()], true)
    );
}

// Issue 13, found by the differential test: HBase shows the filter a column's versions only
// until it has kept one more than the read returns, so a WHILE does not fail on an older
// version it never sees.
#[test]
fn while_judges_only_the_versions_hbase_shows() {
    let r = || {
        row(
            "k",
            &[
                ("a", "A", 20, "alpha beta"),
                ("a", "A", 5, "1"),
                ("a", "A", 1, ""),
                ("a", "b", 1, "x"),
            ],
        )
    };
    let mut f = parse("WHILE ValueFilter(!=, 'regexstring:^$')").unwrap();
    f.set_versions_after_filter(1);
    let RowOutcome::Keep(kept) = f.filter_row(r()) else {
        panic!("the row passes");
    };
    assert_eq!(kept.cells.len(), 2);
    assert_eq!(scan(&mut f, &["s"]), (vec!["s".into()], false));
    // Shown every version, the WHILE fails at the third one.
    let mut f = parse("WHILE ValueFilter(!=, 'regexstring:^$')").unwrap();
    f.set_versions_after_filter(3);
    let RowOutcome::Keep(kept) = f.filter_row(r()) else {
        panic!("the cells before the failing one pass");
    };
    assert_eq!(kept.cells.len(), 2);
    assert_eq!(scan(&mut f, &["s"]), (vec![], true));
}
