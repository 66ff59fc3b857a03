package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Show.b;
import static hnative.Show.rows;
import static hnative.Show.rowsWithCells;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/** Scans over r00..r19: ranges, reversed, limits, caching, batching, versions, regions. */
final class ScanChecks {
  private ScanChecks() {}

  static final byte[] CF = b("cf");
  static final byte[] CF2 = b("cf2");

  static List<Check> all() {
    return List.of(
        new Check("scan.forward_all_rows", ScanChecks::forwardAllRows),
        new Check("scan.reversed_all_rows", ScanChecks::reversedAllRows),
        new Check("scan.start_and_stop_rows", ScanChecks::startAndStopRows),
        new Check("scan.reversed_start_and_stop_rows", ScanChecks::reversedStartAndStopRows),
        new Check("scan.start_equals_stop", ScanChecks::startEqualsStop),
        new Check("scan.row_prefix", ScanChecks::rowPrefix),
        new Check("scan.limit", ScanChecks::limit),
        new Check("scan.caching_one", ScanChecks::cachingOne),
        new Check("scan.batch_splits_wide_rows", ScanChecks::batchSplitsWideRows),
        new Check("scan.max_result_size_keeps_rows_whole", ScanChecks::maxResultSizeKeepsRowsWhole),
        new Check("scan.allow_partial_results", ScanChecks::allowPartialResults),
        new Check("scan.read_versions", ScanChecks::readVersions),
        new Check("scan.time_range", ScanChecks::timeRange),
        new Check("scan.add_family_add_column", ScanChecks::addFamilyAddColumn),
        new Check("scan.across_regions", ScanChecks::acrossRegions),
        new Check("scan.scanner_closed_early", ScanChecks::scannerClosedEarly),
        new Check("scan.empty_table", ScanChecks::emptyTable));
  }

  static String row(int i) {
    return String.format("r%02d", i);
  }

  /** Rows r00..r19, each with cf:a=a<i> and cf2:c=c<i>, optionally pre-split. */
  static Table loaded(Run r, byte[][] splits) throws Exception {
    Table t = r.table(splits, "cf", "cf2");
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      puts.add(new Put(b(row(i))).addColumn(CF, b("a"), b("a" + i)).addColumn(CF2, b("c"), b("c" + i)));
    }
    t.put(puts);
    return t;
  }

  /** "r03,r04,...": the row names from..to inclusive, in either direction. */
  static String range(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; from <= to ? i <= to : i >= to; i += from <= to ? 1 : -1) {
      out.add(row(i));
    }
    return String.join(",", out);
  }

  static void forwardAllRows(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("rows", range(0, 19), rows(t.getScanner(new Scan())));
    eq("first row's cells", "r00{cf:a=a0 cf2:c=c0}",
        rowsWithCells(t.getScanner(new Scan().setLimit(1))));
  }

  static void reversedAllRows(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("rows", range(19, 0), rows(t.getScanner(new Scan().setReversed(true))));
    eq("last row's cells, still in column order", "r19{cf:a=a19 cf2:c=c19}",
        rowsWithCells(t.getScanner(new Scan().setReversed(true).setLimit(1))));
  }

  static void startAndStopRows(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("[r05, r10)", range(5, 9), rows(t.getScanner(new Scan().withStartRow(b("r05")).withStopRow(b("r10")))));
    eq("[r05, r10]", range(5, 10),
        rows(t.getScanner(new Scan().withStartRow(b("r05")).withStopRow(b("r10"), true))));
    eq("(r05, r10)", range(6, 9),
        rows(t.getScanner(new Scan().withStartRow(b("r05"), false).withStopRow(b("r10")))));
    eq("start between rows: [r05x, r07)", range(6, 6),
        rows(t.getScanner(new Scan().withStartRow(b("r05x")).withStopRow(b("r07")))));
    eq("start only", range(15, 19), rows(t.getScanner(new Scan().withStartRow(b("r15")))));
    eq("stop only", range(0, 2), rows(t.getScanner(new Scan().withStopRow(b("r03")))));
  }

  static void reversedStartAndStopRows(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("reversed from r10 down to r05 exclusive", range(10, 6),
        rows(t.getScanner(new Scan().setReversed(true).withStartRow(b("r10")).withStopRow(b("r05")))));
    eq("reversed, stop inclusive", range(10, 5), rows(t.getScanner(new Scan().setReversed(true)
        .withStartRow(b("r10")).withStopRow(b("r05"), true))));
    eq("reversed from a key between rows", range(5, 3), rows(t.getScanner(new Scan().setReversed(true)
        .withStartRow(b("r05x")).withStopRow(b("r02")))));
  }

  /**
   * HBase 2.6 (measured): with an exclusive stop row equal to the start row a scan returns
   * nothing, forward or reversed; with an inclusive one, or through the deprecated
   * Scan(start, stop) constructor (which makes such a scan a get), it returns that row.
   */
  @SuppressWarnings("deprecation")
  static void startEqualsStop(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("forward, stop exclusive", "",
        rows(t.getScanner(new Scan().withStartRow(b("r07")).withStopRow(b("r07")))));
    eq("reversed, stop exclusive", "", rows(t.getScanner(
        new Scan().setReversed(true).withStartRow(b("r07")).withStopRow(b("r07")))));
    eq("forward, stop inclusive", "r07", rows(t.getScanner(
        new Scan().withStartRow(b("r07")).withStopRow(b("r07"), true))));
    eq("reversed, stop inclusive", "r07", rows(t.getScanner(
        new Scan().setReversed(true).withStartRow(b("r07")).withStopRow(b("r07"), true))));
    eq("Scan(r07, r07)", "r07", rows(t.getScanner(new Scan(b("r07"), b("r07")))));
    eq("Scan(r07, r07), reversed", "r07",
        rows(t.getScanner(new Scan(b("r07"), b("r07")).setReversed(true))));
  }

  static void rowPrefix(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("prefix r1", range(10, 19), rows(t.getScanner(new Scan().setStartStopRowForPrefixScan(b("r1")))));
    // The prefix sets start = prefix and stop = the key after it; a reversed scan from a
    // start below its stop row covers nothing.
    eq("prefix r0, reversed", "", rows(t.getScanner(
        new Scan().setStartStopRowForPrefixScan(b("r0")).setReversed(true))));
    eq("reversed from the prefix's end", range(9, 0), rows(t.getScanner(new Scan().setReversed(true)
        .withStartRow(b("r1"), false).withStopRow(b("r0")))));
  }

  static void limit(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("limit 5", range(0, 4), rows(t.getScanner(new Scan().setLimit(5))));
    eq("limit 5, caching 2", range(0, 4), rows(t.getScanner(new Scan().setLimit(5).setCaching(2))));
    eq("limit 3, reversed", range(19, 17), rows(t.getScanner(new Scan().setLimit(3).setReversed(true))));
    eq("limit beyond the rows", range(18, 19),
        rows(t.getScanner(new Scan().withStartRow(b("r18")).setLimit(10))));
  }

  static void cachingOne(Run r) throws Exception {
    Table t = loaded(r, null);
    eq("caching 1", range(0, 19), rows(t.getScanner(new Scan().setCaching(1))));
    eq("caching 1, reversed", range(19, 0), rows(t.getScanner(new Scan().setCaching(1).setReversed(true))));
  }

  /** A row w with ten columns cf:c0..cf:c9, then a row x with one. */
  static Table wideRow(Run r) throws Exception {
    Table t = r.table("cf");
    Put wide = new Put(b("w"));
    for (int i = 0; i < 10; i++) {
      wide.addColumn(CF, b("c" + i), new byte[100]);
    }
    t.put(List.of(wide, new Put(b("x")).addColumn(CF, b("c0"), b("v"))));
    return t;
  }

  /** "w:3 w:3 w:3 w:1 x:1": the row and cell count of each Result. */
  static String shapes(ResultScanner scanner) {
    List<String> out = new ArrayList<>();
    try (scanner) {
      for (Result res : scanner) {
        out.add(Bytes.toString(res.getRow()) + ":" + res.size());
      }
    }
    return String.join(" ", out);
  }

  static void batchSplitsWideRows(Run r) throws Exception {
    Table t = wideRow(r);
    eq("setBatch(3)", "w:3 w:3 w:3 w:1 x:1", shapes(t.getScanner(new Scan().setBatch(3))));
    eq("setBatch(5), reversed", "x:1 w:5 w:5", shapes(t.getScanner(new Scan().setBatch(5).setReversed(true))));
  }

  static void maxResultSizeKeepsRowsWhole(Run r) throws Exception {
    Table t = wideRow(r);
    eq("setMaxResultSize(1): whole rows all the same", "w:10 x:1",
        shapes(t.getScanner(new Scan().setMaxResultSize(1).setCaching(100))));
  }

  static void allowPartialResults(Run r) throws Exception {
    Table t = wideRow(r);
    int cells = 0;
    int parts = 0;
    try (ResultScanner s = t.getScanner(
        new Scan().setMaxResultSize(1).setAllowPartialResults(true).withStopRow(b("x")))) {
      for (Result res : s) {
        cells += res.size();
        parts++;
      }
    }
    eq("cells of w", 10, cells);
    isTrue("w arrives in more than one part (" + parts + ")", parts > 1);
  }

  static void readVersions(Run r) throws Exception {
    Table t = r.table("cf");
    for (long ts = 1; ts <= 4; ts++) {
      t.put(List.of(new Put(b("r1")).addColumn(CF, b("q"), ts, b("v" + ts)),
          new Put(b("r2")).addColumn(CF, b("q"), ts, b("w" + ts))));
    }
    eq("default: newest", "r1{cf:q=v4} r2{cf:q=w4}", rowsWithCells(t.getScanner(new Scan())));
    eq("readVersions(2)", "r1{cf:q=v4 cf:q=v3} r2{cf:q=w4 cf:q=w3}",
        rowsWithCells(t.getScanner(new Scan().readVersions(2))));
    eq("readAllVersions: the family keeps 3", "r1{cf:q=v4 cf:q=v3 cf:q=v2}",
        rowsWithCells(t.getScanner(new Scan().readAllVersions().setLimit(1))));
  }

  static void timeRange(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(List.of(new Put(b("r1")).addColumn(CF, b("q"), 100, b("old")),
        new Put(b("r1")).addColumn(CF, b("q"), 200, b("mid")),
        new Put(b("r2")).addColumn(CF, b("q"), 300, b("new"))));
    eq("[150, 300)", "r1{cf:q=mid}", rowsWithCells(t.getScanner(new Scan().setTimeRange(150, 300))));
    eq("[100, 301), all versions", "r1{cf:q=mid cf:q=old} r2{cf:q=new}",
        rowsWithCells(t.getScanner(new Scan().setTimeRange(100, 301).readAllVersions())));
    eq("setTimestamp(100)", "r1{cf:q=old}", rowsWithCells(t.getScanner(new Scan().setTimestamp(100))));
  }

  static void addFamilyAddColumn(Run r) throws Exception {
    Table t = loaded(r, null);
    t.put(new Put(b("r00")).addColumn(CF, b("b"), b("b0")));
    Scan range = new Scan().withStopRow(b("r02"));
    eq("addFamily(cf2)", "r00{cf2:c=c0} r01{cf2:c=c1}", rowsWithCells(t.getScanner(range.addFamily(CF2))));
    eq("addColumn(cf:b): only rows that have it", "r00{cf:b=b0}",
        rowsWithCells(t.getScanner(new Scan().addColumn(CF, b("b")))));
    eq("addColumn(cf:a) + addFamily(cf2)", "r00{cf:a=a0 cf2:c=c0} r01{cf:a=a1 cf2:c=c1}",
        rowsWithCells(t.getScanner(new Scan().withStopRow(b("r02")).addColumn(CF, b("a")).addFamily(CF2))));
  }

  static void acrossRegions(Run r) throws Exception {
    Table t = loaded(r, new byte[][] {b("r05"), b("r10"), b("r15")});
    eq("regions", 4, r.admin().getRegions(t.getName()).size());
    eq("forward", range(0, 19), rows(t.getScanner(new Scan().setCaching(3))));
    eq("reversed", range(19, 0), rows(t.getScanner(new Scan().setReversed(true).setCaching(3))));
    eq("r03 to r17, three regions", range(3, 16),
        rows(t.getScanner(new Scan().withStartRow(b("r03")).withStopRow(b("r17")))));
    eq("reversed r17 to r03", range(17, 4),
        rows(t.getScanner(new Scan().setReversed(true).withStartRow(b("r17")).withStopRow(b("r03")))));
    eq("limit 7 across a boundary", range(3, 9),
        rows(t.getScanner(new Scan().withStartRow(b("r03")).setLimit(7))));
  }

  static void scannerClosedEarly(Run r) throws Exception {
    Table t = loaded(r, null);
    ResultScanner s = t.getScanner(new Scan().setCaching(2));
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      seen.add(Bytes.toString(s.next().getRow()));
    }
    s.close();
    eq("first three rows", "[r00, r01, r02]", seen);
    // After close the client still hands out what it had cached (at most 2 rows), then null.
    List<String> after = new ArrayList<>();
    for (Result res = s.next(); res != null && after.size() < 20; res = s.next()) {
      after.add(Bytes.toString(res.getRow()));
    }
    isTrue("after close: a few cached rows, then null: " + after,
        after.size() <= 2 && range(3, 4).startsWith(String.join(",", after)));
    eq("a new scanner starts over", range(0, 19), rows(t.getScanner(new Scan().setCaching(2))));
  }

  static void emptyTable(Run r) throws Exception {
    Table t = r.table("cf");
    eq("forward", "", rows(t.getScanner(new Scan())));
    eq("reversed", "", rows(t.getScanner(new Scan().setReversed(true))));
  }
}
