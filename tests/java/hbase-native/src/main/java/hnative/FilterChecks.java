package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.throwsError;
import static hnative.Show.b;
import static hnative.Show.rows;
import static hnative.Show.rowsWithCells;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter.RowRange;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Server-side filters over six rows: admin1, admin2, guest, user1, user2, user3. Each has
 * cf:name; all but guest have cf:score (10, 20, 30, 40, 50 in row order); cf:tag_x is on user1
 * and user3, cf:tag_y on admin2 and user3; user1 also has cf:v at timestamps 100, 200, 300.
 */
final class FilterChecks {
  private FilterChecks() {}

  static final byte[] CF = b("cf");

  static List<Check> all() {
    return List.of(
        new Check("filter.prefix", FilterChecks::prefix),
        new Check("filter.column_prefix", FilterChecks::columnPrefix),
        new Check("filter.qualifier", FilterChecks::qualifier),
        new Check("filter.row", FilterChecks::row),
        new Check("filter.value", FilterChecks::value),
        new Check("filter.single_column_value", FilterChecks::singleColumnValue),
        new Check("filter.page", FilterChecks::page),
        new Check("filter.key_only", FilterChecks::keyOnly),
        new Check("filter.first_key_only", FilterChecks::firstKeyOnly),
        new Check("filter.list_must_pass_all", FilterChecks::listMustPassAll),
        new Check("filter.list_must_pass_one", FilterChecks::listMustPassOne),
        new Check("filter.while_match_stops_the_scan", FilterChecks::whileMatchStopsTheScan),
        new Check("filter.timestamps", FilterChecks::timestamps),
        new Check("filter.column_range", FilterChecks::columnRange),
        new Check("filter.multi_row_range", FilterChecks::multiRowRange),
        new Check("filter.nothing_passes", FilterChecks::nothingPasses),
        new Check("filter.unknown_filter_class_fails", FilterChecks::unknownFilterClassFails),
        new Check("filter.on_a_get", FilterChecks::onAGet));
  }

  static Table people(Run r) throws Exception {
    Table t = r.table("cf");
    String[] rows = {"admin1", "admin2", "guest", "user1", "user2", "user3"};
    List<Put> puts = new ArrayList<>();
    int score = 10;
    for (String row : rows) {
      Put p = new Put(b(row)).addColumn(CF, b("name"), b(row + " name"));
      if (!row.equals("guest")) {
        p.addColumn(CF, b("score"), b(String.valueOf(score)));
        score += 10;
      }
      if (row.equals("user1") || row.equals("user3")) {
        p.addColumn(CF, b("tag_x"), b("x"));
      }
      if (row.equals("admin2") || row.equals("user3")) {
        p.addColumn(CF, b("tag_y"), b("y"));
      }
      puts.add(p);
    }
    for (long ts = 100; ts <= 300; ts += 100) {
      puts.add(new Put(b("user1")).addColumn(CF, b("v"), ts, b("v" + ts)));
    }
    t.put(puts);
    return t;
  }

  static String scanRows(Table t, Filter f) throws Exception {
    return rows(t.getScanner(new Scan().setFilter(f)));
  }

  static String scanCells(Table t, Filter f) throws Exception {
    return rowsWithCells(t.getScanner(new Scan().setFilter(f)));
  }

  static void prefix(Run r) throws Exception {
    Table t = people(r);
    eq("PrefixFilter(user)", "user1,user2,user3", scanRows(t, new PrefixFilter(b("user"))));
    eq("reversed", "user3,user2,user1",
        rows(t.getScanner(new Scan().setReversed(true).setFilter(new PrefixFilter(b("user"))))));
    eq("PrefixFilter(nobody)", "", scanRows(t, new PrefixFilter(b("nobody"))));
  }

  static void columnPrefix(Run r) throws Exception {
    Table t = people(r);
    eq("ColumnPrefixFilter(tag_)", "admin2{cf:tag_y=y} user1{cf:tag_x=x} user3{cf:tag_x=x cf:tag_y=y}",
        scanCells(t, new ColumnPrefixFilter(b("tag_"))));
  }

  static void qualifier(Run r) throws Exception {
    Table t = people(r);
    eq("QualifierFilter(= score)",
        "admin1{cf:score=10} admin2{cf:score=20} user1{cf:score=30} user2{cf:score=40} user3{cf:score=50}",
        scanCells(t, new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("score")))));
  }

  static void row(Run r) throws Exception {
    Table t = people(r);
    eq("RowFilter(>= user2)", "user2,user3",
        scanRows(t, new RowFilter(CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b("user2")))));
    eq("RowFilter(regex ^admin[0-9]$)", "admin1,admin2",
        scanRows(t, new RowFilter(CompareOperator.EQUAL, new RegexStringComparator("^admin[0-9]$"))));
  }

  static void value(Run r) throws Exception {
    Table t = people(r);
    eq("ValueFilter(= 40)", "user2{cf:score=40}",
        scanCells(t, new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("40")))));
    eq("ValueFilter(substring 'st n')", "guest{cf:name=guest name}",
        scanCells(t, new ValueFilter(CompareOperator.EQUAL, new SubstringComparator("ST N"))));
  }

  static void singleColumnValue(Run r) throws Exception {
    Table t = people(r);
    SingleColumnValueFilter above30 =
        new SingleColumnValueFilter(CF, b("score"), CompareOperator.GREATER, b("30"));
    eq("score > 30, rows without score pass", "guest,user2,user3", scanRows(t, above30));
    above30.setFilterIfMissing(true);
    eq("score > 30, filterIfMissing", "user2,user3", scanRows(t, above30));
    eq("whole rows come back (and guest: it has no score)",
        "guest{cf:name=guest name} user2{cf:name=user2 name cf:score=40}", scanCells(t,
        new SingleColumnValueFilter(CF, b("score"), CompareOperator.EQUAL, b("40"))));
  }

  static void page(Run r) throws Exception {
    Table t = people(r);
    eq("PageFilter(2)", "admin1,admin2", scanRows(t, new PageFilter(2)));
    eq("PageFilter(2) from user1", "user1,user2",
        rows(t.getScanner(new Scan().withStartRow(b("user1")).setFilter(new PageFilter(2)))));
  }

  static void keyOnly(Run r) throws Exception {
    Table t = people(r);
    eq("KeyOnlyFilter", "guest{cf:name=}",
        rowsWithCells(t.getScanner(new Scan().withStartRow(b("guest")).withStopRow(b("user"))
            .setFilter(new KeyOnlyFilter()))));
    byte[] length = t.getScanner(new Scan().withStartRow(b("guest")).setFilter(new KeyOnlyFilter(true)))
        .next().getValue(CF, b("name"));
    eq("KeyOnlyFilter(true): the value's length as 4 bytes", "guest name".length(), Bytes.toInt(length));
  }

  static void firstKeyOnly(Run r) throws Exception {
    Table t = people(r);
    eq("FirstKeyOnlyFilter", "admin1{cf:name=admin1 name} admin2{cf:name=admin2 name}",
        rowsWithCells(t.getScanner(new Scan().withStopRow(b("b")).setFilter(new FirstKeyOnlyFilter()))));
  }

  static void listMustPassAll(Run r) throws Exception {
    Table t = people(r);
    FilterList all = new FilterList(FilterList.Operator.MUST_PASS_ALL, new PrefixFilter(b("user")),
        new QualifierFilter(CompareOperator.EQUAL, new BinaryComparator(b("score"))));
    eq("user rows, score only", "user1{cf:score=30} user2{cf:score=40} user3{cf:score=50}",
        scanCells(t, all));
  }

  static void listMustPassOne(Run r) throws Exception {
    Table t = people(r);
    FilterList one = new FilterList(FilterList.Operator.MUST_PASS_ONE,
        new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("admin1"))),
        new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("user3"))));
    eq("admin1 or user3", "admin1,user3", scanRows(t, one));
  }

  static void whileMatchStopsTheScan(Run r) throws Exception {
    Table t = people(r);
    RowFilter notGuest = new RowFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("guest")));
    eq("RowFilter alone skips guest", "admin1,admin2,user1,user2,user3", scanRows(t, notGuest));
    eq("WhileMatchFilter stops at guest", "admin1,admin2", scanRows(t, new WhileMatchFilter(notGuest)));
  }

  static void timestamps(Run r) throws Exception {
    Table t = people(r);
    eq("TimestampsFilter(100, 300), all versions", "user1{cf:v=v300 cf:v=v100}",
        rowsWithCells(t.getScanner(new Scan().readAllVersions()
            .setFilter(new TimestampsFilter(List.of(100L, 300L))))));
  }

  static void columnRange(Run r) throws Exception {
    Table t = people(r);
    eq("ColumnRangeFilter [score, tag_y)", "user1{cf:score=30 cf:tag_x=x} user2{cf:score=40}",
        rowsWithCells(t.getScanner(new Scan().withStartRow(b("user1")).withStopRow(b("user3"))
            .setFilter(new ColumnRangeFilter(b("score"), true, b("tag_y"), false)))));
  }

  static void multiRowRange(Run r) throws Exception {
    Table t = people(r);
    MultiRowRangeFilter ranges = new MultiRowRangeFilter(new ArrayList<>(List.of(
        new RowRange(b("user2"), true, b("user3"), false),
        new RowRange(b("admin2"), true, b("guest"), true))));
    eq("[admin2, guest] and [user2, user3)", "admin2,guest,user2", scanRows(t, ranges));
  }

  /**
   * FilterAllFilter (drops every cell) is a class of HBase's own tests: neither the client jar
   * nor the server has it (see unknownFilterClassFails). Lists that nothing can pass do the same.
   */
  static void nothingPasses(Run r) throws Exception {
    Table t = people(r);
    eq("admin and user prefixes at once", "", scanRows(t, new FilterList(
        FilterList.Operator.MUST_PASS_ALL, new PrefixFilter(b("admin")), new PrefixFilter(b("user")))));
    eq("an empty MUST_PASS_ONE list lets everything through", 6,
        Show.count(t.getScanner(new Scan().setFilter(new FilterList(FilterList.Operator.MUST_PASS_ONE)))));
  }

  /** A filter class the server does not have: the whole scan fails, it is not ignored. */
  static void unknownFilterClassFails(Run r) throws Exception {
    Table t = people(r);
    throwsError("scan with a filter class only the client has", DoNotRetryIOException.class,
        () -> scanRows(t, new ClientOnlyFilter()));
  }

  /** A filter that only this program has; it is sent by class name like any other. */
  static final class ClientOnlyFilter extends FilterBase {
    @Override
    public ReturnCode filterCell(org.apache.hadoop.hbase.Cell c) {
      return ReturnCode.SKIP;
    }

    @Override
    public byte[] toByteArray() {
      return new byte[0];
    }
  }

  static void onAGet(Run r) throws Exception {
    Table t = people(r);
    eq("Get with ColumnPrefixFilter", "cf:tag_x=x cf:tag_y=y",
        Show.cells(t.get(new Get(b("user3")).setFilter(new ColumnPrefixFilter(b("tag_"))))));
    eq("Get filtered to nothing is empty", true, t.get(new Get(b("user3"))
        .setFilter(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("nope"))))).isEmpty());
  }
}
