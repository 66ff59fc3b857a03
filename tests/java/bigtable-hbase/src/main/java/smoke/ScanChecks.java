package smoke;

import static smoke.Checks.expect;
import static smoke.Checks.rows;
import static smoke.Checks.rowsWithCells;
import static smoke.ReadChecks.b;
import static smoke.Smoke.CF;

import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;

/** Scans over row-01..row-09 (see {@link ReadChecks}): ranges, reversed, limits, filters. */
final class ScanChecks {
  private static final String ALL_ROWS =
      "row-01,row-02,row-03,row-04,row-05,row-06,row-07,row-08,row-09";
  private static final String ODD_B =
      "row-01{cf:b=b1} row-03{cf:b=b3} row-05{cf:b=b5} row-07{cf:b=b7} row-09{cf:b=b9}";

  private final Checks c;
  private final Table table;

  ScanChecks(Checks c, Table table) {
    this.c = c;
    this.table = table;
  }

  void run() {
    ranges();
    filters();
    moreFilters();
    filterLists();
  }

  private void moreFilters() {
    c.check("MultiRowRangeFilter [row-02, row-03] and [row-07, row-08)", () -> expect("rows",
        "row-02,row-03,row-07", rows(table.getScanner(new Scan().setFilter(
            new org.apache.hadoop.hbase.filter.MultiRowRangeFilter(java.util.Arrays.asList(
                new org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange(
                    "row-02", true, "row-03", true),
                new org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange(
                    "row-07", true, "row-08", false))))))));
    c.check("FuzzyRowFilter row-0? with ? fixed to 5", () -> expect("rows", "row-05",
        rows(table.getScanner(new Scan().setFilter(
            new org.apache.hadoop.hbase.filter.FuzzyRowFilter(java.util.List.of(
                new org.apache.hadoop.hbase.util.Pair<>(b("row-05"),
                    new byte[] {0, 0, 0, 0, 0, 0}))))))));
    SingleColumnValueFilter exclude = new org.apache.hadoop.hbase.filter
        .SingleColumnValueExcludeFilter(CF, b("a"), CompareOperator.EQUAL, b("a6"));
    exclude.setFilterIfMissing(true);
    c.checkOrClientRefuses("SingleColumnValueExcludeFilter cf:a == a6 over all families",
        () -> expect("rows", "row-06{cf2:c=c6}", scan(exclude)));
    c.check("SingleColumnValueExcludeFilter cf:a == a5 with addFamily(cf)", () -> expect("rows",
        "row-05{cf:b=b5}", rowsWithCells(table.getScanner(new Scan().setRowPrefixFilter(b("row-"))
            .addFamily(CF).setFilter(excludeA5())))));
    c.check("ValueFilter != a1 on row-01", () -> expect("rows", "row-01{cf:b=b1 cf2:c=c1}",
        scanUpTo("row-02", new ValueFilter(CompareOperator.NOT_EQUAL,
            new BinaryComparator(b("a1"))))));
    c.checkOrClientRefuses("ValueFilter SubstringComparator(7)", () -> expect("rows",
        "row-07{cf:a=a7 cf:b=b7 cf2:c=c7}", scan(new ValueFilter(CompareOperator.EQUAL,
            new org.apache.hadoop.hbase.filter.SubstringComparator("7")))));
    c.checkOrClientRefuses("QualifierFilter BinaryPrefixComparator(b)", () -> expect("rows", ODD_B,
        scan(new QualifierFilter(CompareOperator.EQUAL,
            new org.apache.hadoop.hbase.filter.BinaryPrefixComparator(b("b"))))));
    c.checkOrClientRefuses("InclusiveStopFilter(row-03)", () -> expect("rows", "row-01,row-02,row-03",
        rows(table.getScanner(new Scan().withStartRow(b("row-")).setFilter(
            new org.apache.hadoop.hbase.filter.InclusiveStopFilter(b("row-03")))))));
    // The client sends RandomRowFilter's chance as row_sample_filter unchanged; Bigtable (and
    // Google's emulator) accept only a probability strictly between 0 and 1.
    c.check("RandomRowFilter(1.0) is refused by the server, as on Bigtable", () ->
        Checks.expectServerError("scan", () -> rows(table.getScanner(new Scan()
            .setRowPrefixFilter(b("row-"))
            .setFilter(new org.apache.hadoop.hbase.filter.RandomRowFilter(1.0f))))));
    c.check("TimestampsFilter(200, 250) on a scan with readAllVersions", () -> expect("cells",
        "r-v{cf:q=v200}", rowsWithCells(table.getScanner(new Scan().withStartRow(b("r-v"))
            .withStopRow(b("r-v"), true).readAllVersions().setFilter(
                new TimestampsFilter(java.util.List.of(200L, 250L)))))));
    // The client chains the one-version limit before the filter, so only the newest version
    // (300) is tested: nothing comes back, where HBase (filter, then versions) gives v200.
    c.check("TimestampsFilter(200, 250) on a one-version scan: empty, as on Bigtable", () ->
        expect("cells", "", rowsWithCells(table.getScanner(new Scan().withStartRow(b("r-v"))
            .withStopRow(b("r-v"), true).setFilter(
                new TimestampsFilter(java.util.List.of(200L, 250L)))))));
    c.checkOrClientRefuses("Get setMaxResultsPerColumnFamily(1), setRowOffsetPerColumnFamily(1)",
        () -> expect("cells", "cf:b=b1", Checks.cells(table.get(
            new org.apache.hadoop.hbase.client.Get(b("row-01"))
                .setMaxResultsPerColumnFamily(1).setRowOffsetPerColumnFamily(1)))));
  }

  private void ranges() {
    c.check("scan [row-03, row-06)", () -> expect("rows", "row-03,row-04,row-05",
        rows(table.getScanner(new Scan().withStartRow(b("row-03")).withStopRow(b("row-06"))))));
    c.check("scan [row-03, row-06] (inclusive stop)", () -> expect("rows",
        "row-03,row-04,row-05,row-06", rows(table.getScanner(
            new Scan().withStartRow(b("row-03")).withStopRow(b("row-06"), true)))));
    c.check("scan (row-03, row-06) (exclusive start)", () -> expect("rows", "row-04,row-05",
        rows(table.getScanner(
            new Scan().withStartRow(b("row-03"), false).withStopRow(b("row-06"))))));
    c.check("reversed scan from row-06 down to row-03 (exclusive)", () -> expect("rows",
        "row-06,row-05,row-04", rows(table.getScanner(new Scan().setReversed(true)
            .withStartRow(b("row-06")).withStopRow(b("row-03"))))));
    c.check("reversed scan of all row- rows (start row-1, stop row-)", () -> expect("rows",
        "row-09,row-08,row-07,row-06,row-05,row-04,row-03,row-02,row-01", rows(table.getScanner(
            new Scan().setReversed(true).withStartRow(b("row-1")).withStopRow(b("row-"))))));
    c.check("reversed scan with setLimit(2)", () -> expect("rows", "row-09,row-08",
        rows(table.getScanner(new Scan().setReversed(true).withStartRow(b("row-1"))
            .withStopRow(b("row-")).setLimit(2)))));
    c.check("scan setLimit(2)", () -> expect("rows", "row-01,row-02",
        rows(table.getScanner(new Scan().withStartRow(b("row-")).setLimit(2)))));
    c.check("scan setRowPrefixFilter(row-0)", () -> expect("rows", ALL_ROWS,
        rows(table.getScanner(new Scan().setRowPrefixFilter(b("row-0"))))));
    c.check("scan with setCaching(2) pages through all rows", () -> expect("rows", ALL_ROWS,
        rows(table.getScanner(new Scan().setRowPrefixFilter(b("row-")).setCaching(2)))));
    c.check("scan setTimeRange [150, 300) with readAllVersions", () -> expect("cells",
        "r-v{cf:q=v200}", rowsWithCells(table.getScanner(new Scan().withStartRow(b("r-v"))
            .withStopRow(b("r-v"), true).setTimeRange(150, 300).readAllVersions()))));
    c.check("scan readVersions(2) of the versions row", () -> expect("cells",
        "r-v{cf:q=v300 cf:q=v200}", rowsWithCells(table.getScanner(new Scan()
            .withStartRow(b("r-v")).withStopRow(b("r-v"), true).readVersions(2)))));
    c.check("scan addColumn cf:b", () -> expect("rows", ODD_B, rowsWithCells(
        table.getScanner(new Scan().setRowPrefixFilter(b("row-")).addColumn(CF, b("b"))))));
  }

  private void filters() {
    c.check("PrefixFilter(row-0)", () -> expect("rows", ALL_ROWS,
        rows(table.getScanner(new Scan().setFilter(new PrefixFilter(b("row-0")))))));
    SingleColumnValueFilter scvf =
        new SingleColumnValueFilter(CF, b("a"), CompareOperator.EQUAL, b("a4"));
    scvf.setFilterIfMissing(true);
    c.check("SingleColumnValueFilter cf:a == a4 (whole row back)", () -> expect("rows",
        "row-04{cf:a=a4 cf2:c=c4}", scan(scvf)));
    SingleColumnValueFilter scvfMissing =
        new SingleColumnValueFilter(CF, b("b"), CompareOperator.EQUAL, b("b3"));
    c.check("SingleColumnValueFilter cf:b == b3, rows without cf:b pass (filterIfMissing off)",
        () -> expect("rows", "row-02,row-03,row-04,row-06,row-08", rows(table.getScanner(
            new Scan().setRowPrefixFilter(b("row-")).setFilter(scvfMissing)))));
    c.check("ValueFilter == b3", () -> expect("rows", "row-03{cf:b=b3}",
        scan(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("b3"))))));
    c.check("ValueFilter regex ^c[12]$", () -> expect("rows", "row-01{cf2:c=c1} row-02{cf2:c=c2}",
        scan(new ValueFilter(CompareOperator.EQUAL, new RegexStringComparator("^c[12]$")))));
    c.check("ValueFilter > b7 (value range)", () -> expect("rows",
        "row-01{cf2:c=c1} row-02{cf2:c=c2} row-03{cf2:c=c3} row-04{cf2:c=c4} "
            + "row-05{cf2:c=c5} row-06{cf2:c=c6} row-07{cf2:c=c7} row-08{cf2:c=c8} "
            + "row-09{cf:b=b9 cf2:c=c9}",
        scan(new ValueFilter(CompareOperator.GREATER, new BinaryComparator(b("b7"))))));
    c.check("ColumnPrefixFilter(b)", () -> expect("rows", ODD_B,
        scan(new ColumnPrefixFilter(b("b")))));
    c.check("MultipleColumnPrefixFilter(b, c)", () -> expect("rows",
        "row-01{cf:b=b1 cf2:c=c1} row-02{cf2:c=c2}",
        scanUpTo("row-03", new MultipleColumnPrefixFilter(new byte[][] {b("b"), b("c")}))));
    c.check("ColumnRangeFilter [b, c] with addFamily(cf)", () -> expect("rows",
        "row-01{cf:b=b1} row-03{cf:b=b3}", rowsWithCells(table.getScanner(new Scan()
            .withStartRow(b("row-")).withStopRow(b("row-04")).addFamily(CF)
            .setFilter(new ColumnRangeFilter(b("b"), true, b("c"), true))))));
    c.checkOrClientRefuses("ColumnRangeFilter [b, c] over all families", () -> expect("rows",
        "row-01{cf:b=b1 cf2:c=c1} row-02{cf2:c=c2}",
        scanUpTo("row-03", new ColumnRangeFilter(b("b"), true, b("c"), true))));
    c.check("FirstKeyOnlyFilter", () -> expect("rows",
        "row-01{cf:a=a1} row-02{cf:a=a2} row-03{cf:a=a3}",
        scanUpTo("row-04", new FirstKeyOnlyFilter())));
    c.check("KeyOnlyFilter (empty values)", () -> expect("rows", "row-01{cf:a= cf:b= cf2:c=}",
        scanUpTo("row-02", new KeyOnlyFilter())));
    c.check("ColumnCountGetFilter(2) on a get", () -> expect("cells", "cf:a=a1 cf:b=b1",
        Checks.cells(table.get(new org.apache.hadoop.hbase.client.Get(b("row-01"))
            .setFilter(new org.apache.hadoop.hbase.filter.ColumnCountGetFilter(2))))));
    c.check("PageFilter(3)", () -> expect("rows", "row-01,row-02,row-03", rows(table.getScanner(
        new Scan().setRowPrefixFilter(b("row-")).setFilter(new PageFilter(3))))));
    c.check("RowFilter regex row-0[2468]", () -> expect("rows", "row-02,row-04,row-06,row-08",
        rows(table.getScanner(new Scan().setFilter(
            new RowFilter(CompareOperator.EQUAL, new RegexStringComparator("row-0[2468]")))))));
    c.check("QualifierFilter == c", () -> expect("rows", "row-01{cf2:c=c1} row-02{cf2:c=c2}",
        scanUpTo("row-03", new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("c"))))));
    c.check("FamilyFilter == cf", () -> expect("rows", "row-01{cf:a=a1 cf:b=b1}",
        scanUpTo("row-02", new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(CF)))));
    c.check("ColumnPaginationFilter(limit 1, offset 1)", () -> expect("rows",
        "row-01{cf:b=b1} row-02{cf2:c=c2}", scanUpTo("row-03", new ColumnPaginationFilter(1, 1))));
    c.check("TimestampsFilter(100, 300) on the versions row", () -> expect("versions",
        "v300@300 v100@100", Checks.versions(table.get(new org.apache.hadoop.hbase.client.Get(
            b("r-v")).readAllVersions().setFilter(new TimestampsFilter(
                java.util.Arrays.asList(100L, 300L)))))));
    c.check("WhileMatchFilter(RowFilter regex row-0[123]) stops at row-04", () -> expect("rows",
        "row-01,row-02,row-03", rows(table.getScanner(new Scan().setRowPrefixFilter(b("row-"))
            .setFilter(new WhileMatchFilter(new RowFilter(CompareOperator.EQUAL,
                new RegexStringComparator("row-0[123]"))))))));
    c.checkOrClientRefuses("RowFilter(LESS, row-04)", () -> expect("rows", "row-01,row-02,row-03",
        rows(table.getScanner(new Scan().setRowPrefixFilter(b("row-")).setFilter(
            new RowFilter(CompareOperator.LESS, new BinaryComparator(b("row-04"))))))));
  }

  private void filterLists() {
    c.check("FilterList MUST_PASS_ONE(ValueFilter == a2, ValueFilter == c7)", () -> expect("rows",
        "row-02{cf:a=a2} row-07{cf2:c=c7}",
        scan(new FilterList(FilterList.Operator.MUST_PASS_ONE,
            new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("a2"))),
            new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("c7")))))));
    c.check("FilterList MUST_PASS_ALL(FamilyFilter == cf, QualifierFilter == b)", () -> expect(
        "rows", ODD_B, scan(new FilterList(FilterList.Operator.MUST_PASS_ALL,
            new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(CF)),
            new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("b")))))));
    SingleColumnValueFilter scvf =
        new SingleColumnValueFilter(CF, b("a"), CompareOperator.GREATER_OR_EQUAL, b("a7"));
    scvf.setFilterIfMissing(true);
    c.check("FilterList MUST_PASS_ALL(SingleColumnValueFilter cf:a >= a7, ColumnPrefixFilter c)",
        () -> expect("rows", "row-07{cf2:c=c7} row-08{cf2:c=c8} row-09{cf2:c=c9}",
            scan(new FilterList(FilterList.Operator.MUST_PASS_ALL, scvf,
                new ColumnPrefixFilter(b("c"))))));
    c.check("nested FilterList ALL(RowFilter row-03, ONE(ALL(Family cf, Value == a3), "
        + "Qualifier == c))", () -> expect("rows", "row-03{cf:a=a3 cf2:c=c3}",
            scan(nestedWithRowFilter())));
  }

  /** ONE(ALL(Family cf, Value == a3), Qualifier == c), limited to row-03 by a row regex. */
  private static Filter nestedWithRowFilter() {
    return new FilterList(FilterList.Operator.MUST_PASS_ALL,
        new RowFilter(CompareOperator.EQUAL, new RegexStringComparator("row-03")),
        new FilterList(FilterList.Operator.MUST_PASS_ONE,
            new FilterList(FilterList.Operator.MUST_PASS_ALL,
                new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(CF)),
                new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("a3")))),
            new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("c")))));
  }

  private static SingleColumnValueFilter excludeA5() {
    SingleColumnValueFilter f = new org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter(
        CF, b("a"), CompareOperator.EQUAL, b("a5"));
    f.setFilterIfMissing(true);
    return f;
  }

  /** Scans the row- rows with one filter, rendering rows with their cells. */
  private String scan(Filter filter) throws java.io.IOException {
    return rowsWithCells(
        table.getScanner(new Scan().setRowPrefixFilter(b("row-")).setFilter(filter)));
  }

  /** Scans [row-, stop) with one filter. */
  private String scanUpTo(String stop, Filter filter) throws java.io.IOException {
    return rowsWithCells(table.getScanner(
        new Scan().withStartRow(b("row-")).withStopRow(b(stop)).setFilter(filter)));
  }
}
