package smoke;

import static smoke.Checks.cells;
import static smoke.Checks.expect;
import static smoke.Checks.familyMap;
import static smoke.Checks.versions;
import static smoke.Smoke.CF;
import static smoke.Smoke.CF2;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Puts (single and batch) and gets: one column, whole rows, versions, time ranges, exists and
 * batch gets. Loads the rows row-01..row-09 that {@link ScanChecks} reads afterwards:
 * cf:a=a<i> on all, cf:b=b<i> on odd rows, cf2:c=c<i> on all.
 */
final class ReadChecks {
  private final Checks c;
  private final Table table;

  ReadChecks(Checks c, Table table) {
    this.c = c;
    this.table = table;
  }

  void run() {
    c.check("put one cell with a timestamp, get that column", () -> {
      table.put(new Put(b("r1")).addColumn(CF, b("a"), 1000L, b("v1")));
      Result r = table.get(new Get(b("r1")).addColumn(CF, b("a")));
      expect("value@ts", "v1@1000", versions(r));
      expect("getValue", "v1", Bytes.toString(r.getValue(CF, b("a"))));
    });
    c.check("put a batch (List<Put>) of 9 rows", () -> {
      table.put(scanRows());
      expect("row-05", "cf:a=a5 cf:b=b5 cf2:c=c5", cells(table.get(new Get(b("row-05")))));
    });
    c.check("get a whole row: cells sorted by family and qualifier", () -> {
      Result r = table.get(new Get(b("row-03")));
      expect("row key", "row-03", Bytes.toString(r.getRow()));
      expect("cells", "cf:a=a3 cf:b=b3 cf2:c=c3", cells(r));
      expect("family map", "cf:a=a3 cf:b=b3 cf2:c=c3", familyMap(r));
    });
    c.check("get one family (addFamily)", () -> {
      expect("cells", "cf2:c=c3", cells(table.get(new Get(b("row-03")).addFamily(CF2))));
    });
    c.check("get a missing row is empty", () -> {
      Result r = table.get(new Get(b("no-such-row")));
      expect("isEmpty", true, r.isEmpty());
    });
    versionChecks();
    existsAndBatchGet();
    edgeCases();
  }

  private void edgeCases() {
    c.check("binary row key (0x00 and 0xff bytes) and an empty qualifier", () -> {
      byte[] row = {0, (byte) 0xff, 'k', 0};
      table.put(new Put(row).addColumn(CF2, new byte[0], b("empty-q")));
      Result r = table.get(new Get(row));
      expect("row", Bytes.toStringBinary(row), Bytes.toStringBinary(r.getRow()));
      expect("cells", "cf2:=empty-q", cells(r));
    });
    c.check("timestamp 0, an empty value and a binary qualifier", () -> {
      byte[] q = {0, (byte) 0xff, 'q'};
      table.put(new Put(b("edge")).addColumn(CF, b("t0"), 0L, b("zero"))
          .addColumn(CF, b("empty"), new byte[0]).addColumn(CF, q, b("bin")));
      Result r = table.get(new Get(b("edge")));
      expect("ts 0", 0L, r.getColumnLatestCell(CF, b("t0")).getTimestamp());
      expect("empty value", 0, r.getValue(CF, b("empty")).length);
      expect("binary qualifier", "bin", Bytes.toString(r.getValue(CF, q)));
    });
    c.check("a 2 MiB value round-trips", () -> {
      byte[] big = new byte[2 << 20];
      for (int i = 0; i < big.length; i++) {
        big[i] = (byte) (i * 31 + 7);
      }
      table.put(new Put(b("big")).addColumn(CF2, b("v"), big));
      byte[] got = table.get(new Get(b("big"))).getValue(CF2, b("v"));
      expect("equal", true, Arrays.equals(big, got));
    });
    c.check("Result.getColumnLatestCell and containsColumn", () -> {
      Result r = table.get(new Get(b("row-01")));
      expect("latest", "a1", Bytes.toString(
          org.apache.hadoop.hbase.CellUtil.cloneValue(r.getColumnLatestCell(CF, b("a")))));
      expect("contains cf:zz", false, r.containsColumn(CF, b("zz")));
    });
  }

  private void versionChecks() {
    c.check("put 3 versions; get returns the newest", () -> {
      for (long ts : new long[] {100, 200, 300}) {
        table.put(new Put(b("r-v")).addColumn(CF, b("q"), ts, b("v" + ts)));
      }
      expect("versions", "v300@300", versions(table.get(new Get(b("r-v")))));
    });
    c.check("get readVersions(3) and readVersions(2)", () -> {
      expect("3", "v300@300 v200@200 v100@100",
          versions(table.get(new Get(b("r-v")).readVersions(3))));
      expect("2", "v300@300 v200@200", versions(table.get(new Get(b("r-v")).readVersions(2))));
    });
    c.check("get readAllVersions", () -> {
      expect("all", "v300@300 v200@200 v100@100",
          versions(table.get(new Get(b("r-v")).readAllVersions())));
    });
    c.check("get setTimeRange [150, 300) with all versions", () -> {
      Get g = new Get(b("r-v")).setTimeRange(150, 300).readAllVersions();
      expect("in range", "v200@200", versions(table.get(g)));
    });
    c.check("get setTimeRange [0, 250) returns the newest version in range", () -> {
      expect("newest below 250", "v200@200",
          versions(table.get(new Get(b("r-v")).setTimeRange(0, 250))));
    });
    c.check("get setTimestamp(100)", () -> {
      expect("exact", "v100@100", versions(table.get(new Get(b("r-v")).setTimestamp(100))));
    });
    c.check("getColumnCells of a readVersions(3) result", () -> {
      Result r = table.get(new Get(b("r-v")).readVersions(3));
      expect("cells", 3, r.getColumnCells(CF, b("q")).size());
      expect("latest", "v300", Bytes.toString(r.getValue(CF, b("q"))));
    });
  }

  private void existsAndBatchGet() {
    c.check("exists: present row, missing row, present row with a missing column", () -> {
      expect("row-01", true, table.exists(new Get(b("row-01"))));
      expect("no-such-row", false, table.exists(new Get(b("no-such-row"))));
      expect("row-02 cf:b", false, table.exists(new Get(b("row-02")).addColumn(CF, b("b"))));
    });
    c.check("exists(List<Get>)", () -> {
      boolean[] found = table.exists(Arrays.asList(
          new Get(b("row-01")), new Get(b("nope")), new Get(b("row-09")).addColumn(CF, b("b"))));
      expect("found", "[true, false, true]", Arrays.toString(found));
    });
    c.check("batch get (List<Get>) keeps the order and gives an empty Result for a miss", () -> {
      Result[] rs = table.get(Arrays.asList(new Get(b("row-04")), new Get(b("nope")),
          new Get(b("row-02")).addColumn(CF2, b("c"))));
      List<String> out = new ArrayList<>();
      for (Result r : rs) {
        out.add(r.isEmpty() ? "<empty>" : Bytes.toString(r.getRow()) + "{" + cells(r) + "}");
      }
      expect("results", "row-04{cf:a=a4 cf2:c=c4} | <empty> | row-02{cf2:c=c2}",
          String.join(" | ", out));
    });
  }

  /** row-01..row-09: cf:a=a<i> on all, cf:b=b<i> on odd rows, cf2:c=c<i> on all. */
  private static List<Put> scanRows() {
    List<Put> puts = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      Put p = new Put(b("row-0" + i)).addColumn(CF, b("a"), b("a" + i));
      if (i % 2 == 1) {
        p.addColumn(CF, b("b"), b("b" + i));
      }
      puts.add(p.addColumn(CF2, b("c"), b("c" + i)));
    }
    return puts;
  }

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }
}
