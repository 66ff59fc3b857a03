package smoke;

import static smoke.Checks.expect;
import static smoke.Checks.rows;
import static smoke.ReadChecks.b;
import static smoke.Smoke.CF;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/** Server timestamps, scans across the region split at 'n', and scans of a few thousand rows. */
final class BulkChecks {
  private static final int BULK_ROWS = 3000;

  private final Checks c;
  private final Table table;

  BulkChecks(Checks c, Table table) {
    this.c = c;
    this.table = table;
  }

  void run() {
    c.check("a row of 5000 columns: get all, ColumnPaginationFilter(3, 4997)", () -> {
      Put p = new Put(b("wide"));
      for (int i = 0; i < 5000; i++) {
        p.addColumn(CF, b(String.format("q%04d", i)), b("v" + i));
      }
      table.put(p);
      expect("cells", 5000, table.get(new Get(b("wide"))).size());
      expect("page", "cf:q4997=v4997 cf:q4998=v4998 cf:q4999=v4999", Checks.cells(table.get(
          new Get(b("wide")).setFilter(
              new org.apache.hadoop.hbase.filter.ColumnPaginationFilter(3, 4997)))));
    });
    // Bigtable deletes cells outright; an HBase delete at "now" would also hide the re-put
    // older cell until a major compaction. A Bigtable client expects Bigtable's behaviour.
    // (Re-putting exactly the deleted timestamp is a documented difference: docs/bigtable.md.)
    c.check("put at ts 100, delete the row, put again at ts 50: the new cell is visible", () -> {
      table.put(new Put(b("reput")).addColumn(CF, b("q"), 100, b("first")));
      table.delete(new org.apache.hadoop.hbase.client.Delete(b("reput")));
      table.put(new Put(b("reput")).addColumn(CF, b("q"), 50, b("again")));
      expect("cells", "cf:q=again", Checks.cells(table.get(new Get(b("reput")))));
    });
    c.check("put at ts 100, delete the column (addColumns), put again at ts 50", () -> {
      table.put(new Put(b("reput2")).addColumn(CF, b("q"), 100, b("first")));
      table.delete(new org.apache.hadoop.hbase.client.Delete(b("reput2")).addColumns(CF, b("q")));
      table.put(new Put(b("reput2")).addColumn(CF, b("q"), 50, b("again")));
      expect("cells", "cf:q=again", Checks.cells(table.get(new Get(b("reput2")))));
    });
    c.check("put without a timestamp gets the current time (ms)", () -> {
      long before = System.currentTimeMillis();
      table.put(new Put(b("now")).addColumn(CF, b("t"), b("x")));
      long after = System.currentTimeMillis();
      long ts = table.get(new Get(b("now"))).rawCells()[0].getTimestamp();
      expect("within [" + before + ", " + after + "]", true, ts >= before - 1000 && ts <= after + 1000);
    });
    c.check("scan across the region split at 'n', forward and reversed", () -> {
      table.put(List.of(new Put(b("mm-1")).addColumn(CF, b("a"), b("1")),
          new Put(b("nn-1")).addColumn(CF, b("a"), b("2"))));
      expect("forward", "mm-1,nn-1", rows(table.getScanner(
          new Scan().withStartRow(b("mm-")).withStopRow(b("nn-2")))));
      expect("reversed", "nn-1,mm-1", rows(table.getScanner(new Scan().setReversed(true)
          .withStartRow(b("nn-2")).withStopRow(b("mm-")))));
    });
    c.check(BULK_ROWS + " rows: put in batches, scan all, reversed, limit 1500, count with "
        + "FirstKeyOnlyFilter", () -> {
      List<Put> puts = new ArrayList<>();
      for (int i = 0; i < BULK_ROWS; i++) {
        puts.add(new Put(b(String.format("bulk-%05d", i))).addColumn(CF, b("v"), new byte[100]));
        if (puts.size() == 500) {
          table.put(puts);
          puts = new ArrayList<>();
        }
      }
      expect("forward", BULK_ROWS + " bulk-00000 bulk-02999", summary(new Scan()));
      expect("reversed", BULK_ROWS + " bulk-02999 bulk-00000",
          summary(new Scan().setReversed(true).withStartRow(b("bulk-1"))));
      expect("limit", "1500 bulk-00000 bulk-01499", summary(new Scan().setLimit(1500)));
      expect("count", BULK_ROWS + " bulk-00000 bulk-02999",
          summary(new Scan().setFilter(new org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter())));
    });
    c.check("RandomRowFilter(0.5) keeps about half of " + BULK_ROWS + " rows", () -> {
      String got = summary(
          new Scan().setFilter(new org.apache.hadoop.hbase.filter.RandomRowFilter(0.5f)));
      int n = Integer.parseInt(got.split(" ")[0]);
      // Binomial(3000, 0.5): 1200..1800 is more than 10 standard deviations wide.
      expect("count " + n + " in 1200..1800", true, n >= 1200 && n <= 1800);
    });
  }

  /** "count first last" of the bulk- rows a scan returns. */
  private String summary(Scan scan) throws java.io.IOException {
    if (!scan.isReversed()) {
      scan.withStartRow(b("bulk-")).withStopRow(b("bulk."));
    } else {
      scan.withStopRow(b("bulk-"));
    }
    int n = 0;
    String first = null;
    String last = null;
    try (ResultScanner scanner = table.getScanner(scan)) {
      for (Result r : scanner) {
        String row = Bytes.toString(r.getRow());
        first = first == null ? row : first;
        last = row;
        n++;
      }
    }
    return n + " " + first + " " + last;
  }
}
