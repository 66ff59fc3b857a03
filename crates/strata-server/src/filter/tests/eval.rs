//! Evaluation of every filter and combinator on hand-built rows.

use strata_engine::RowResult;

use super::{cells_of, row};
use crate::filter::{parse, RowOutcome};

type Cells = Vec<(String, String, i64, Vec<u8>)>;

fn run(filter: &str, r: RowResult) -> RowOutcome {
    parse(filter).unwrap().filter_row(r)
}

/// The (family:qualifier@ts) coordinates a filter keeps of one row.
fn kept(filter: &str, r: RowResult) -> Vec<String> {
    coords(&cells_of(&run(filter, r)))
}

fn coords(cells: &Cells) -> Vec<String> {
    cells
        .iter()
        .map(|(f, q, ts, _)| format!("{f}:{q}@{ts}"))
        .collect()
}

/// A row with two families, several columns and versions.
fn wide(key: &str) -> RowResult {
    row(
        key,
        &[
            ("cf", "a", 3, "apple"),
            ("cf", "a", 2, "Apricot"),
            ("cf", "b", 3, "banana"),
            ("cf", "c1", 1, "cherry"),
            ("cf", "c2", 2, "date"),
            ("g", "a", 2, "grape"),
        ],
    )
}

#[test]
fn row_filters_keep_or_drop_whole_rows() {
    assert_eq!(kept("PrefixFilter('ro')", wide("row")).len(), 6);
    assert_eq!(run("PrefixFilter('rx')", wide("row")), RowOutcome::Skip);
    // Operator orientation: `cell OP comparator`, so < keeps rows before 'm'.
    assert_eq!(kept("RowFilter(<, 'binary:m')", wide("apple")).len(), 6);
    assert_eq!(
        run("RowFilter(<, 'binary:m')", wide("zebra")),
        RowOutcome::Skip
    );
    assert_eq!(run("RowFilter(<, 'binary:m')", wide("m")), RowOutcome::Skip);
    assert_eq!(kept("RowFilter(<=, 'binary:m')", wide("m")).len(), 6);
    assert_eq!(kept("RowFilter(>, 'binary:m')", wide("ma")).len(), 6);
    assert_eq!(
        run("RowFilter(>=, 'binary:m')", wide("l")),
        RowOutcome::Skip
    );
    assert_eq!(kept("RowFilter(!=, 'binary:m')", wide("n")).len(), 6);
    // binaryprefix compares only as many bytes as the comparator has.
    assert_eq!(
        kept("RowFilter(=, 'binaryprefix:ro')", wide("row9")).len(),
        6
    );
    assert_eq!(
        run("RowFilter(=, 'binaryprefix:ro')", wide("r")),
        RowOutcome::Skip
    );
    assert_eq!(kept("RowFilter(<, 'binaryprefix:ro')", wide("r")).len(), 6);
    assert_eq!(
        run("RowFilter(>, 'binaryprefix:ro')", wide("row9")),
        RowOutcome::Skip
    );
    // regexstring may match anywhere; substring ignores case.
    assert_eq!(
        kept("RowFilter(=, 'regexstring:w\\d')", wide("row7x")).len(),
        6
    );
    assert_eq!(
        run("RowFilter(=, 'regexstring:^w')", wide("row7")),
        RowOutcome::Skip
    );
    assert_eq!(
        kept("RowFilter(!=, 'regexstring:^w')", wide("row7")).len(),
        6
    );
    assert_eq!(kept("RowFilter(=, 'substring:OW')", wide("row")).len(), 6);
    assert_eq!(
        run("RowFilter(!=, 'substring:OW')", wide("row")),
        RowOutcome::Skip
    );
}

#[test]
fn cell_filters_select_cells() {
    assert_eq!(
        kept("FamilyFilter(=, 'binary:g')", wide("r")),
        vec!["g:a@2"]
    );
    assert_eq!(
        kept("QualifierFilter(>, 'binary:b')", wide("r")),
        vec!["cf:c1@1", "cf:c2@2"]
    );
    assert_eq!(
        kept("ValueFilter(=, 'substring:AP')", wide("r")),
        vec!["cf:a@3", "cf:a@2", "g:a@2"]
    );
    // A regex runs over the whole value with DOTALL.
    let multi = row("r", &[("cf", "a", 1, "x\ny"), ("cf", "b", 1, "xy")]);
    assert_eq!(
        kept("ValueFilter(=, 'regexstring:x.y')", multi),
        vec!["cf:a@1"]
    );
    assert_eq!(
        kept("ColumnPrefixFilter('c')", wide("r")),
        vec!["cf:c1@1", "cf:c2@2"]
    );
    assert_eq!(
        kept("MultipleColumnPrefixFilter('b', 'c2')", wide("r")),
        vec!["cf:b@3", "cf:c2@2"]
    );
    // Without prefixes every cell passes, as in HBase 2.6.1 (issue 13, found by the
    // differential test; Strata used to drop every cell).
    assert_eq!(kept("MultipleColumnPrefixFilter()", wide("r")).len(), 6);
    assert_eq!(
        kept("ColumnRangeFilter('b', true, 'c2', false)", wide("r")),
        vec!["cf:b@3", "cf:c1@1"]
    );
    assert_eq!(
        kept("ColumnRangeFilter('b', false, 'c2', true)", wide("r")),
        vec!["cf:c1@1", "cf:c2@2"]
    );
    assert_eq!(
        kept("ColumnRangeFilter('', true, 'a', true)", wide("r")),
        vec!["cf:a@3", "cf:a@2", "g:a@2"]
    );
    assert_eq!(
        kept("ColumnRangeFilter('c', true, '', false)", wide("r")),
        vec!["cf:c1@1", "cf:c2@2"]
    );
    assert_eq!(
        kept("TimestampsFilter(2, 9)", wide("r")),
        vec!["cf:a@2", "cf:c2@2", "g:a@2"]
    );
    assert_eq!(run("TimestampsFilter()", wide("r")), RowOutcome::Skip);
}

#[test]
fn key_only_rewrites_values() {
    let out = cells_of(&run("KeyOnlyFilter()", wide("r")));
    assert_eq!(out.len(), 6);
    assert!(out.iter().all(|c| c.3.is_empty()));
    let out = cells_of(&run("KeyOnlyFilter(true)", wide("r")));
    assert_eq!(out[0].3, 5i32.to_be_bytes().to_vec()); // "apple"
    assert_eq!(out[1].3, 7i32.to_be_bytes().to_vec()); // "Apricot"
                                                       // Other filters of an AND still test the original values.
    let out = cells_of(&run(
        "KeyOnlyFilter() AND ValueFilter(=, 'binary:banana')",
        wide("r"),
    ));
    assert_eq!(coords(&out), vec!["cf:b@3"]);
    assert!(out[0].3.is_empty());
    // Rewrites chain: the length of an emptied value is 0.
    let out = cells_of(&run("KeyOnlyFilter() AND KeyOnlyFilter(true)", wide("r")));
    assert_eq!(out[0].3, vec![0, 0, 0, 0]);
    // In an OR, a cell kept only by another operand is not rewritten.
    let out = cells_of(&run(
        "(KeyOnlyFilter() AND FamilyFilter(=, 'binary:g')) OR QualifierFilter(=, 'binary:b')",
        wide("r"),
    ));
    assert_eq!(coords(&out), vec!["cf:b@3", "g:a@2"]);
    assert_eq!(out[0].3, b"banana".to_vec());
    assert!(out[1].3.is_empty());
}

#[test]
fn positional_filters_count_columns() {
    assert_eq!(kept("FirstKeyOnlyFilter()", wide("r")), vec!["cf:a@3"]);
    assert_eq!(
        kept("ColumnCountGetFilter(2)", wide("r")),
        vec!["cf:a@3", "cf:b@3"]
    );
    assert_eq!(run("ColumnCountGetFilter(0)", wide("r")), RowOutcome::Skip);
    assert_eq!(
        kept("ColumnPaginationFilter(2, 1)", wide("r")),
        vec!["cf:b@3", "cf:c1@1"]
    );
    // Columns are counted across families; only newest versions are returned.
    assert_eq!(
        kept("ColumnPaginationFilter(5, 3)", wide("r")),
        vec!["cf:c2@2", "g:a@2"]
    );
    assert_eq!(
        run("ColumnPaginationFilter(2, 9)", wide("r")),
        RowOutcome::Skip
    );
}

#[test]
fn single_column_value_filters() {
    let r = || {
        row(
            "r",
            &[
                ("cf", "a", 1, "x"),
                ("cf", "s", 5, "new"),
                ("cf", "s", 4, "old"),
            ],
        )
    };
    let scvf = "SingleColumnValueFilter('cf', 's', =, 'binary:new')";
    assert_eq!(kept(scvf, r()).len(), 3);
    // Only the newest version counts by default...
    let old = "SingleColumnValueFilter('cf', 's', =, 'binary:old')";
    assert_eq!(run(old, r()), RowOutcome::Skip);
    // ...unless latestVersionOnly is false.
    let any = "SingleColumnValueFilter('cf', 's', =, 'binary:old', false, false)";
    assert_eq!(kept(any, r()).len(), 3);
    // A row without the column passes unless filterIfMissing.
    let missing = row("r", &[("cf", "a", 1, "x")]);
    assert_eq!(kept(scvf, missing.clone()), vec!["cf:a@1"]);
    let strict = "SingleColumnValueFilter('cf', 's', =, 'binary:new', true, true)";
    assert_eq!(run(strict, missing), RowOutcome::Skip);
    assert_eq!(kept(strict, r()).len(), 3);
    // The Exclude variant returns the row without the tested column.
    assert_eq!(
        kept(
            "SingleColumnValueExcludeFilter('cf', 's', =, 'binary:new')",
            r()
        ),
        vec!["cf:a@1"]
    );
    assert_eq!(
        run(
            "SingleColumnValueExcludeFilter('cf', 's', =, 'binary:old')",
            r()
        ),
        RowOutcome::Skip
    );
    assert_eq!(
        kept("SingleColumnValueFilter('cf', 's', <, 'binary:o')", r()).len(),
        3
    );
}

#[test]
fn dependent_and_column_value_filters() {
    let r = || {
        row(
            "r",
            &[
                ("cf", "a", 2, "a2"),
                ("cf", "a", 1, "a1"),
                ("cf", "b", 3, "b3"),
                ("cf", "d", 2, "yes"),
                ("cf", "d", 1, "no"),
            ],
        )
    };
    assert_eq!(
        kept("DependentColumnFilter('cf', 'd')", r()),
        vec!["cf:a@2", "cf:a@1", "cf:d@2", "cf:d@1"]
    );
    assert_eq!(
        kept("DependentColumnFilter('cf', 'd', true)", r()),
        vec!["cf:a@2", "cf:a@1"]
    );
    assert_eq!(
        kept(
            "DependentColumnFilter('cf', 'd', false, =, 'binary:yes')",
            r()
        ),
        vec!["cf:a@2", "cf:d@2"]
    );
    assert_eq!(
        run("DependentColumnFilter('cf', 'zz')", r()),
        RowOutcome::Skip
    );
    assert_eq!(
        kept("ColumnValueFilter('cf', 'd', =, 'binary:no')", r()),
        vec!["cf:d@1"]
    );
}

#[test]
fn and_or_combine_cells_and_rows() {
    // AND: a row-level rejection empties the row; cell selections intersect.
    assert_eq!(
        run("PrefixFilter('x') AND ColumnPrefixFilter('a')", wide("row")),
        RowOutcome::Skip
    );
    assert_eq!(
        kept(
            "PrefixFilter('r') AND ColumnPrefixFilter('c') AND TimestampsFilter(2)",
            wide("row")
        ),
        vec!["cf:c2@2"]
    );
    // OR: a row-level acceptance keeps every cell; cell selections unite.
    assert_eq!(
        kept("PrefixFilter('r') OR ColumnPrefixFilter('zz')", wide("row")).len(),
        6
    );
    assert_eq!(
        kept(
            "PrefixFilter('x') OR ColumnPrefixFilter('b') OR FamilyFilter(=, 'binary:g')",
            wide("row")
        ),
        vec!["cf:b@3", "g:a@2"]
    );
    // AND binds tighter than OR.
    assert_eq!(
        kept(
            "ColumnPrefixFilter('b') OR ColumnPrefixFilter('c') AND TimestampsFilter(1)",
            wide("row")
        ),
        vec!["cf:b@3", "cf:c1@1"]
    );
    assert_eq!(
        kept(
            "(ColumnPrefixFilter('b') OR ColumnPrefixFilter('c')) AND TimestampsFilter(1)",
            wide("row")
        ),
        vec!["cf:c1@1"]
    );
}

// Issue 13, found by the differential test: HBase 2.6.1 runs an AND as a pipeline (an operand
// sees only the cells the operands before it passed, HBASE-20565), so positional and
// row-level operands depend on their place in the list.
#[test]
fn and_is_a_pipeline_in_operand_order() {
    // Pagination over the cells that are left: page 2 of family g's columns is empty, page
    // 1 of family cf's columns from offset 1 is cf:b.
    assert_eq!(
        kept(
            "FamilyFilter(=, 'binary:cf') AND ColumnPaginationFilter(1, 1)",
            wide("row")
        ),
        vec!["cf:b@3"]
    );
    assert_eq!(
        kept(
            "ColumnPaginationFilter(1, 1) AND FamilyFilter(=, 'binary:cf')",
            wide("row")
        ),
        vec!["cf:b@3"]
    );
    assert_eq!(
        kept(
            "FamilyFilter(=, 'binary:g') AND FirstKeyOnlyFilter()",
            wide("row")
        ),
        vec!["g:a@2"]
    );
    assert_eq!(
        run(
            "FirstKeyOnlyFilter() AND FamilyFilter(=, 'binary:g')",
            wide("row")
        ),
        RowOutcome::Skip
    );
    // A SingleColumnValueFilter after a filter that drops its column finds it missing: the
    // row passes, unless filterIfMissing.
    let f = "FamilyFilter(=, 'binary:g') AND SingleColumnValueFilter('cf', 'a', =, 'binary:nope')";
    assert_eq!(kept(f, wide("row")), vec!["g:a@2"]);
    let f = "FamilyFilter(=, 'binary:g') AND \
             SingleColumnValueFilter('cf', 'a', =, 'binary:apple', true, true)";
    assert_eq!(run(f, wide("row")), RowOutcome::Skip);
    let f = "SingleColumnValueFilter('cf', 'a', =, 'binary:nope') AND FamilyFilter(=, 'binary:g')";
    assert_eq!(run(f, wide("row")), RowOutcome::Skip);
    // The timestamps DependentColumnFilter takes are those of the cells it sees.
    let f = "FamilyFilter(=, 'binary:g') AND DependentColumnFilter('cf', 'c2')";
    assert_eq!(run(f, wide("row")), RowOutcome::Skip);
    let f = "DependentColumnFilter('cf', 'c2') AND FamilyFilter(=, 'binary:g')";
    assert_eq!(kept(f, wide("row")), vec!["g:a@2"]);
    // SingleColumnValueExcludeFilter leaves its column out at the end of the row: the
    // operands after it still see (and count) the column.
    let f = "SingleColumnValueExcludeFilter('cf', 'a', =, 'binary:apple') AND \
             ColumnPaginationFilter(2, 0)";
    assert_eq!(kept(f, wide("row")), vec!["cf:b@3"]);
    let f = "SingleColumnValueExcludeFilter('cf', 'a', =, 'binary:apple')";
    assert_eq!(kept(f, wide("row")).len(), 4);
    // Values are rewritten after the operands judged the original ones.
    assert_eq!(
        cells_of(&run(
            "KeyOnlyFilter() AND ValueFilter(=, 'binary:banana')",
            wide("row")
        )),
        vec![("cf".into(), "b".into(), 3, vec![])]
    );
}

#[test]
fn skip_drops_rows_with_any_failing_cell() {
    let good = row("r", &[("cf", "a", 1, "1"), ("cf", "b", 1, "2")]);
    let bad = row("r", &[("cf", "a", 1, "1"), ("cf", "b", 1, "0")]);
    let f = "SKIP ValueFilter(!=, 'binary:0')";
    assert_eq!(kept(f, good.clone()), vec!["cf:a@1", "cf:b@1"]);
    assert_eq!(run(f, bad.clone()), RowOutcome::Skip);
    // Without SKIP only the failing cell goes.
    assert_eq!(
        kept("ValueFilter(!=, 'binary:0')", bad.clone()),
        vec!["cf:a@1"]
    );
    // SKIP binds tighter than OR.
    assert_eq!(
        kept(
            "SKIP ValueFilter(!=, 'binary:0') OR QualifierFilter(=, 'binary:b')",
            bad
        ),
        vec!["cf:b@1"]
    );
}

// Issue 13, differential cases 3 and 4: in an OR, a cell passes when any operand passes it,
// whatever the scan direction. HBase 2.6.1 loses such cells on reverse scans (its
// FilterListBase.compareCell negates the comparison with a seek hint for reversed scans, also
// inside a row); docs/compatibility.md records HBase's answers.
#[test]
fn or_with_column_prefix_keeps_cells_either_operand_passes() {
    let hist = row(
        "r2",
        &[
            ("hist", "A", 10, "zulu"),
            ("hist", "VG", 10, "zeta"),
            ("hist", "W", 10, "aaa"),
        ],
    );
    let f = "ValueFilter(<=, 'binary:alpha beta') OR ColumnPrefixFilter('V')";
    assert_eq!(kept(f, hist.clone()), vec!["hist:VG@10", "hist:W@10"]);
    let mut reversed = parse(f).unwrap();
    reversed.set_reversed(true);
    assert_eq!(
        coords(&cells_of(&reversed.filter_row(hist))),
        vec!["hist:VG@10", "hist:W@10"]
    );
    let d = row("p/3h", &[("d", "a", 10, "1"), ("d", "co", 10, "2")]);
    let f = "PageFilter(4) AND (ColumnPrefixFilter('co') OR ColumnPrefixFilter('eCk'))";
    let mut reversed = parse(f).unwrap();
    reversed.set_reversed(true);
    assert_eq!(coords(&cells_of(&reversed.filter_row(d))), vec!["d:co@10"]);
}

// Issue 13, differential case 5: SingleColumnValueFilter decides for the whole row. In an OR,
// a row it rejects keeps only the cells the other operands pass. HBase 2.6.1 also returns the
// cells that sort before the tested column (its filter passes cells until it reaches the
// column); docs/compatibility.md records that as an HBase bug.
#[test]
fn single_column_value_filter_in_or_passes_no_cell_of_a_rejected_row() {
    let failing = row(
        "r00",
        &[
            ("a", "c1", 10, "v0"),
            ("a", "s", 10, "0"),
            ("a", "z", 11, "z"),
            ("b", "c", 10, "c0"),
        ],
    );
    let f = "SingleColumnValueFilter('a', 's', =, 'binary:1') OR TimestampsFilter(11)";
    assert_eq!(kept(f, failing.clone()), vec!["a:z@11"]);
    let f = "SingleColumnValueFilter('a', 's', =, 'binary:0') OR TimestampsFilter(11)";
    assert_eq!(kept(f, failing.clone()).len(), 4);
    let f = "ColumnRangeFilter('a', true, 'z', false) AND \
             (SingleColumnValueFilter('a', 's', =, 'binary:1') OR ColumnRangeFilter('c', true, 'c1', true)) \
             OR TimestampsFilter(12)";
    assert_eq!(kept(f, failing), vec!["a:c1@10", "b:c@10"]);
}

// Issue 13, found by the differential test: HBase's DependentColumnFilter matches timestamps at
// the end of the row (filterRowCells), after the scan's version limit, so a column whose
// newest version has another timestamp is left out even if an older version matches.
#[test]
fn dependent_column_filter_matches_after_the_version_limit() {
    let r = row(
        "p/",
        &[
            ("c", "q1", 10, "dep"),
            ("c", "z", 17, "new"),
            ("c", "z", 10, "old"),
            ("c", "zz", 10, "same"),
        ],
    );
    let mut f = parse("DependentColumnFilter('c', 'q1')").unwrap();
    f.set_versions_after_filter(1);
    assert_eq!(
        coords(&cells_of(&f.filter_row(r.clone()))),
        vec!["c:q1@10", "c:zz@10"]
    );
    // Without the limit every version is judged.
    assert_eq!(
        kept("DependentColumnFilter('c', 'q1')", r),
        vec!["c:q1@10", "c:z@10", "c:zz@10"]
    );
    // HBase reads one version past the limit of a kept dependent column before it moves on,
    // so its timestamp counts too, and no older one does.
    let r = row(
        "r",
        &[
            ("c", "d", 3, "x"),
            ("c", "d", 2, "x"),
            ("c", "d", 1, "x"),
            ("c", "e", 2, "two"),
            ("c", "f", 1, "one"),
        ],
    );
    let mut f = parse("DependentColumnFilter('c', 'd')").unwrap();
    f.set_versions_after_filter(1);
    assert_eq!(
        coords(&cells_of(&f.filter_row(r.clone()))),
        vec!["c:d@3", "c:e@2"]
    );
    // Dropped, the dependent column's cells are not counted: every version counts.
    let mut f = parse("DependentColumnFilter('c', 'd', true)").unwrap();
    f.set_versions_after_filter(1);
    assert_eq!(coords(&cells_of(&f.filter_row(r))), vec!["c:e@2", "c:f@1"]);
}
