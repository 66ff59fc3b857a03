package smoke;

import static smoke.Checks.cells;
import static smoke.Checks.expect;
import static smoke.Checks.expectServerError;
import static smoke.Checks.rows;
import static smoke.Checks.versions;
import static smoke.ReadChecks.b;
import static smoke.Smoke.CF;
import static smoke.Smoke.CF2;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/** Deletes, increment, append, checkAndMutate, BufferedMutator and RowMutations. */
final class MutationChecks {
  private final Checks c;
  private final Connection conn;
  private final Table table;

  MutationChecks(Checks c, Connection conn, Table table) {
    this.c = c;
    this.conn = conn;
    this.table = table;
  }

  void run() {
    deletes();
    counters();
    checkAndMutate();
    batches();
  }

  /** Writes cf:q at ts 100, 200, 300, cf:r and cf2:c on a fresh row. */
  private void seed(String row) throws Exception {
    Put p = new Put(b(row));
    for (long ts : new long[] {100, 200, 300}) {
      p.addColumn(CF, b("q"), ts, b("v" + ts));
    }
    table.put(p.addColumn(CF, b("r"), 100, b("r")).addColumn(CF2, b("c"), 100, b("c")));
  }

  private void deletes() {
    c.check("delete a row", () -> {
      seed("del-row");
      table.delete(new Delete(b("del-row")));
      expect("after", true, table.get(new Get(b("del-row"))).isEmpty());
    });
    c.checkOrClientRefuses("delete the latest version of a column (addColumn without ts)", () -> {
      seed("del-latest");
      table.delete(new Delete(b("del-latest")).addColumn(CF, b("q")));
      expect("left", "v200@200 v100@100",
          versions(table.get(new Get(b("del-latest")).addColumn(CF, b("q")).readAllVersions())));
    });
    c.check("delete one version of a column (addColumn with ts 200)", () -> {
      seed("del-version");
      table.delete(new Delete(b("del-version")).addColumn(CF, b("q"), 200));
      expect("left", "v300@300 v100@100",
          versions(table.get(new Get(b("del-version")).addColumn(CF, b("q")).readAllVersions())));
    });
    c.check("delete all versions of a column (addColumns)", () -> {
      seed("del-column");
      table.delete(new Delete(b("del-column")).addColumns(CF, b("q")));
      expect("row", "cf:r=r cf2:c=c", cells(table.get(new Get(b("del-column")))));
    });
    c.check("delete versions up to a timestamp (addColumns with ts 200)", () -> {
      seed("del-upto");
      table.delete(new Delete(b("del-upto")).addColumns(CF, b("q"), 200));
      expect("left", "v300@300",
          versions(table.get(new Get(b("del-upto")).addColumn(CF, b("q")).readAllVersions())));
    });
    c.check("delete a family (addFamily)", () -> {
      seed("del-family");
      table.delete(new Delete(b("del-family")).addFamily(CF));
      expect("row", "cf2:c=c", cells(table.get(new Get(b("del-family")))));
    });
    c.checkOrClientRefuses("delete a row up to a timestamp (new Delete(row, 200))", () -> {
      seed("del-row-ts");
      table.delete(new Delete(b("del-row-ts"), 200));
      expect("row", "cf:q=v300", cells(table.get(new Get(b("del-row-ts")).readAllVersions())));
    });
    c.checkOrClientRefuses("delete a family up to a timestamp (addFamily(cf, 200))", () -> {
      seed("del-family-ts");
      table.delete(new Delete(b("del-family-ts")).addFamily(CF, 200));
      expect("row", "cf:q=v300 cf2:c=c",
          cells(table.get(new Get(b("del-family-ts")).readAllVersions())));
    });
    c.check("delete a batch (List<Delete>)", () -> {
      seed("del-batch-1");
      seed("del-batch-2");
      List<Delete> ds = new ArrayList<>(List.of(
          new Delete(b("del-batch-1")), new Delete(b("del-batch-2")).addFamily(CF2)));
      table.delete(ds);
      expect("1", true, table.get(new Get(b("del-batch-1"))).isEmpty());
      expect("2", "cf:q=v300 cf:r=r", cells(table.get(new Get(b("del-batch-2")))));
    });
  }

  private void counters() {
    c.check("increment returns the new value; incrementColumnValue adds to it", () -> {
      Result r = table.increment(new Increment(b("ctr")).addColumn(CF, b("n"), 5));
      expect("first", 5L, Bytes.toLong(r.getValue(CF, b("n"))));
      expect("second", 8L, table.incrementColumnValue(b("ctr"), CF, b("n"), 3));
      expect("negative", 6L, table.incrementColumnValue(b("ctr"), CF, b("n"), -2));
      expect("get", 6L, Bytes.toLong(table.get(new Get(b("ctr"))).getValue(CF, b("n"))));
    });
    c.check("increment of two columns in one call", () -> {
      Result r = table.increment(
          new Increment(b("ctr2")).addColumn(CF, b("x"), 1).addColumn(CF, b("y"), 10));
      expect("x", 1L, Bytes.toLong(r.getValue(CF, b("x"))));
      expect("y", 10L, Bytes.toLong(r.getValue(CF, b("y"))));
    });
    c.check("increment of a value that is not 8 bytes is an error from the server", () -> {
      table.put(new Put(b("ctr-bad")).addColumn(CF, b("n"), b("abc")));
      expectServerError("increment",
          () -> table.increment(new Increment(b("ctr-bad")).addColumn(CF, b("n"), 1)));
    });
    c.check("increment of a counter written by a put of Bytes.toBytes(10L)", () -> {
      table.put(new Put(b("ctr3")).addColumn(CF, b("n"), Bytes.toBytes(10L)));
      expect("value", 11L, table.incrementColumnValue(b("ctr3"), CF, b("n"), 1));
    });
    c.check("append returns the new value", () -> {
      Result r = table.append(new Append(b("app")).addColumn(CF, b("s"), b("ab")));
      expect("first", "ab", Bytes.toString(r.getValue(CF, b("s"))));
      r = table.append(new Append(b("app")).addColumn(CF, b("s"), b("cd")));
      expect("second", "abcd", Bytes.toString(r.getValue(CF, b("s"))));
      expect("get", "abcd", Bytes.toString(table.get(new Get(b("app"))).getValue(CF, b("s"))));
    });
  }

  private void checkAndMutate() {
    c.check("checkAndMutate ifEquals (match) thenPut", () -> {
      table.put(new Put(b("cam")).addColumn(CF, b("a"), b("1")));
      boolean ok = table.checkAndMutate(b("cam"), CF).qualifier(b("a")).ifEquals(b("1"))
          .thenPut(new Put(b("cam")).addColumn(CF, b("x"), b("put-1")));
      expect("applied", true, ok);
      expect("row", "cf:a=1 cf:x=put-1", cells(table.get(new Get(b("cam")))));
    });
    c.check("checkAndMutate ifEquals (no match) does not put", () -> {
      boolean ok = table.checkAndMutate(b("cam"), CF).qualifier(b("a")).ifEquals(b("2"))
          .thenPut(new Put(b("cam")).addColumn(CF, b("y"), b("put-2")));
      expect("applied", false, ok);
      expect("row", "cf:a=1 cf:x=put-1", cells(table.get(new Get(b("cam")))));
    });
    c.check("checkAndMutate ifNotExists thenPut: applies once, then not", () -> {
      boolean first = table.checkAndMutate(b("cam-nx"), CF).qualifier(b("lock")).ifNotExists()
          .thenPut(new Put(b("cam-nx")).addColumn(CF, b("lock"), b("one")));
      boolean second = table.checkAndMutate(b("cam-nx"), CF).qualifier(b("lock")).ifNotExists()
          .thenPut(new Put(b("cam-nx")).addColumn(CF, b("lock"), b("two")));
      expect("first, second", "true, false", first + ", " + second);
      expect("row", "cf:lock=one", cells(table.get(new Get(b("cam-nx")))));
    });
    c.check("checkAndMutate ifMatches(LESS, 3) on cell 5 thenDelete", () -> {
      table.put(new Put(b("cam-del")).addColumn(CF, b("a"), b("5")).addColumn(CF, b("b"), b("x")));
      // HBase compares the given value to the cell's: "3" > cell would be false; cell "5" > "3".
      boolean ok = table.checkAndMutate(b("cam-del"), CF).qualifier(b("a"))
          .ifMatches(org.apache.hadoop.hbase.CompareOperator.LESS, b("3"))
          .thenDelete(new Delete(b("cam-del")).addColumns(CF, b("b")));
      expect("applied", true, ok);
      expect("row", "cf:a=5", cells(table.get(new Get(b("cam-del")))));
    });
    c.check("checkAndMutate ifEquals thenMutate(RowMutations)", () -> {
      RowMutations rm = new RowMutations(b("cam"));
      rm.add((Mutation) new Put(b("cam")).addColumn(CF, b("z"), b("rm")));
      rm.add((Mutation) new Delete(b("cam")).addColumns(CF, b("x")));
      boolean ok = table.checkAndMutate(b("cam"), CF).qualifier(b("a")).ifEquals(b("1"))
          .thenMutate(rm);
      expect("applied", true, ok);
      expect("row", "cf:a=1 cf:z=rm", cells(table.get(new Get(b("cam")))));
    });
    c.check("checkAndMutate ifEquals tests the newest version only", () -> {
      seed("cam-versions");
      boolean older = table.checkAndMutate(b("cam-versions"), CF).qualifier(b("q"))
          .ifEquals(b("v200")).thenPut(new Put(b("cam-versions")).addColumn(CF, b("o"), b("1")));
      boolean newest = table.checkAndMutate(b("cam-versions"), CF).qualifier(b("q"))
          .ifEquals(b("v300")).thenPut(new Put(b("cam-versions")).addColumn(CF, b("n"), b("1")));
      expect("v200, v300", "false, true", older + ", " + newest);
    });
    c.check("checkAndMutate ifEquals on a missing row is false", () -> {
      boolean ok = table.checkAndMutate(b("cam-none"), CF).qualifier(b("a")).ifEquals(b("1"))
          .thenPut(new Put(b("cam-none")).addColumn(CF, b("x"), b("y")));
      expect("applied", false, ok);
      expect("row", true, table.get(new Get(b("cam-none"))).isEmpty());
    });
    c.check("checkAndMutate ifMatches(NOT_EQUAL) and (GREATER_OR_EQUAL) on cf2", () -> {
      table.put(new Put(b("cam2")).addColumn(CF2, b("n"), b("m")));
      boolean ne = table.checkAndMutate(b("cam2"), CF2).qualifier(b("n"))
          .ifMatches(org.apache.hadoop.hbase.CompareOperator.NOT_EQUAL, b("m"))
          .thenPut(new Put(b("cam2")).addColumn(CF2, b("ne"), b("1")));
      boolean ge = table.checkAndMutate(b("cam2"), CF2).qualifier(b("n"))
          .ifMatches(org.apache.hadoop.hbase.CompareOperator.GREATER_OR_EQUAL, b("m"))
          .thenPut(new Put(b("cam2")).addColumn(CF2, b("ge"), b("1")));
      expect("NOT_EQUAL m, GREATER_OR_EQUAL m", "false, true", ne + ", " + ge);
      expect("row", "cf2:ge=1 cf2:n=m", cells(table.get(new Get(b("cam2")))));
    });
    c.checkOrClientRefuses("checkAndMutate(CheckAndMutate) with a filter condition", () -> {
      table.put(new Put(b("cam-f")).addColumn(CF, b("a"), b("7")));
      org.apache.hadoop.hbase.client.CheckAndMutateResult res = table.checkAndMutate(
          org.apache.hadoop.hbase.client.CheckAndMutate.newBuilder(b("cam-f"))
              .ifMatches(new org.apache.hadoop.hbase.filter.ValueFilter(
                  org.apache.hadoop.hbase.CompareOperator.EQUAL,
                  new org.apache.hadoop.hbase.filter.BinaryComparator(b("7"))))
              .build(new Put(b("cam-f")).addColumn(CF, b("hit"), b("y"))));
      expect("applied", true, res.isSuccess());
      expect("row", "cf:a=7 cf:hit=y", cells(table.get(new Get(b("cam-f")))));
    });
    // The client sends the time range as a filter after its one-version limit, so the newest
    // version (200, "new") is the one tested and it is out of range: not applied, as on
    // Bigtable. HBase tests the newest version inside the range ("old") and applies it.
    c.check("checkAndMutate timeRange [0, 150) ifEquals(old): not applied, as on Bigtable", () -> {
      table.put(new Put(b("cam-ts")).addColumn(CF, b("a"), 100, b("old"))
          .addColumn(CF, b("a"), 200, b("new")));
      boolean ok = table.checkAndMutate(b("cam-ts"), CF).qualifier(b("a"))
          .timeRange(org.apache.hadoop.hbase.io.TimeRange.between(0, 150)).ifEquals(b("old"))
          .thenPut(new Put(b("cam-ts")).addColumn(CF, b("hit"), b("y")));
      expect("applied", false, ok);
      boolean newest = table.checkAndMutate(b("cam-ts"), CF).qualifier(b("a"))
          .timeRange(org.apache.hadoop.hbase.io.TimeRange.between(150, 250)).ifEquals(b("new"))
          .thenPut(new Put(b("cam-ts")).addColumn(CF, b("hit"), b("y")));
      expect("newest in [150, 250)", true, newest);
    });
  }

  private void batches() {
    c.check("batch(List<Row>) of an increment and an append", () -> {
      List<org.apache.hadoop.hbase.client.Row> ops = List.of(
          new Increment(b("batch-rmw")).addColumn(CF, b("n"), 4),
          new Append(b("batch-rmw")).addColumn(CF, b("s"), b("xy")));
      Object[] results = new Object[ops.size()];
      table.batch(ops, results);
      expect("increment", 4L, Bytes.toLong(((Result) results[0]).getValue(CF, b("n"))));
      expect("append", "xy", Bytes.toString(((Result) results[1]).getValue(CF, b("s"))));
    });
    c.check("BufferedMutator: 50 puts and a delete, flush, scan them back", () -> {
      try (BufferedMutator bm = conn.getBufferedMutator(table.getName())) {
        for (int i = 0; i < 50; i++) {
          bm.mutate(new Put(b(String.format("bm-%02d", i))).addColumn(CF, b("v"), b("x" + i)));
        }
        bm.flush();
        bm.mutate(new Delete(b("bm-00")));
      }
      String got = rows(table.getScanner(new Scan().setRowPrefixFilter(b("bm-"))));
      expect("rows", 49, got.split(",").length);
      expect("first, last", "bm-01 bm-49",
          got.substring(0, 5) + " " + got.substring(got.length() - 5));
    });
    c.check("RowMutations (mutateRow): put one column and delete another atomically", () -> {
      table.put(new Put(b("rm")).addColumn(CF, b("old"), b("1")));
      RowMutations rm = new RowMutations(b("rm"));
      rm.add((Mutation) new Put(b("rm")).addColumn(CF, b("new"), b("2")));
      rm.add((Mutation) new Delete(b("rm")).addColumns(CF, b("old")));
      table.mutateRow(rm);
      expect("row", "cf:new=2", cells(table.get(new Get(b("rm")))));
    });
    c.check("batch(List<Row>) of a put, a get and a delete", () -> {
      table.put(new Put(b("batch-del")).addColumn(CF, b("a"), b("1")));
      List<org.apache.hadoop.hbase.client.Row> ops = List.of(
          new Put(b("batch-put")).addColumn(CF, b("a"), b("p")),
          new Get(b("row-01")).addColumn(CF, b("a")),
          new Delete(b("batch-del")));
      Object[] results = new Object[ops.size()];
      table.batch(ops, results);
      expect("get result", "cf:a=a1", cells((Result) results[1]));
      expect("put", "cf:a=p", cells(table.get(new Get(b("batch-put")))));
      expect("delete", true, table.get(new Get(b("batch-del"))).isEmpty());
    });
  }
}
