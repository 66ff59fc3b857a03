package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Show.b;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/** BufferedMutator: many rows through the write buffer, then read back. */
final class MutatorChecks {
  private MutatorChecks() {}

  static final byte[] CF = b("cf");

  static List<Check> all() {
    return List.of(
        new Check("mutator.ten_thousand_rows", MutatorChecks::tenThousandRows),
        new Check("mutator.flush_and_deletes", MutatorChecks::flushAndDeletes));
  }

  static byte[] key(int i) {
    return b(String.format("k%05d", i));
  }

  static void tenThousandRows(Run r) throws Exception {
    Table t = r.table(new byte[][] {key(5000)}, "cf");
    AtomicInteger failures = new AtomicInteger();
    BufferedMutatorParams params = new BufferedMutatorParams(t.getName())
        .writeBufferSize(256 * 1024)
        .listener((e, m) -> failures.addAndGet(e.getNumExceptions()));
    try (BufferedMutator m = r.conn().getBufferedMutator(params)) {
      for (int i = 0; i < 10_000; i++) {
        m.mutate(new Put(key(i)).addColumn(CF, b("n"), Bytes.toBytes(i))
            .addColumn(CF, b("s"), b("value-" + i)));
      }
    }
    eq("failed mutations", 0, failures.get());
    int rows = 0;
    int last = -1;
    try (ResultScanner s = t.getScanner(new Scan().setCaching(1000))) {
      for (Result res : s) {
        int n = Bytes.toInt(res.getValue(CF, b("n")));
        isTrue("rows in order: " + n + " after " + last, n == last + 1);
        last = n;
        rows++;
      }
    }
    eq("rows", 10_000, rows);
    for (int i : new int[] {0, 4999, 5000, 9999}) {
      eq("value of " + i, "value-" + i, Bytes.toString(t.get(new Get(key(i))).getValue(CF, b("s"))));
    }
  }

  static void flushAndDeletes(Run r) throws Exception {
    Table t = r.table("cf");
    try (BufferedMutator m = r.conn().getBufferedMutator(t.getName())) {
      m.mutate(List.of(new Put(key(1)).addColumn(CF, b("q"), b("a")),
          new Put(key(2)).addColumn(CF, b("q"), b("b"))));
      m.flush();
      eq("visible after flush", "a", Bytes.toString(t.get(new Get(key(1))).getValue(CF, b("q"))));
      m.mutate(new Delete(key(1)));
      m.flush();
      isTrue("delete through the mutator", t.get(new Get(key(1))).isEmpty());
      eq("the other row", "b", Bytes.toString(t.get(new Get(key(2))).getValue(CF, b("q"))));
    }
  }
}
