package hnative;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;

/**
 * Writes through one Connection while the cluster under it changes (a test moves regions and
 * kills servers), then reads back every write the client saw acknowledged.
 *
 * <p>The table has four regions split at g, n and u; each writer thread writes the four in
 * turn, so a region that stays unreachable stalls every writer. Every 500 ms a line
 * {@code churn: acked N regions A B C D errors E} gives the acknowledgements so far, per region,
 * for the test to follow. When the stop file appears the writers stop, each acknowledged row
 * is read back, and the run ends with {@code churn: verified N acked rows, M missing}: exit 0
 * only when nothing is missing and every region took writes.
 */
final class Churn {
  static final String[] REGION_PREFIXES = {"c", "j", "q", "x"};
  static final byte[][] SPLITS = {Show.b("g"), Show.b("n"), Show.b("u")};
  static final byte[] FAMILY = Show.b("cf");
  static final byte[] QUALIFIER = Show.b("q");
  static final int THREADS = 4;

  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLongArray perRegion = new AtomicLongArray(REGION_PREFIXES.length);
  private final AtomicLong errors = new AtomicLong();
  private final Queue<String> acked = new ConcurrentLinkedQueue<>();

  static int run(Configuration conf, String prefix, Path stopFile) throws Exception {
    // Long enough to ride out a failover (2-4 s) and the meta lookups after it.
    conf.setInt("hbase.client.retries.number", 20);
    conf.setInt("hbase.client.operation.timeout", 60000);
    conf.setInt("hbase.client.meta.operation.timeout", 60000);
    try (Connection conn = ConnectionFactory.createConnection(conf)) {
      TableName name = TableName.valueOf(prefix + "churn");
      create(conn.getAdmin(), name);
      System.out.println("churn: table " + name.getNameAsString());
      System.out.flush();
      return new Churn().drive(conn, name, stopFile);
    }
  }

  private static void create(Admin admin, TableName name) throws Exception {
    admin.createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build(), SPLITS);
  }

  private int drive(Connection conn, TableName name, Path stopFile) throws Exception {
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      Thread w = new Thread(() -> write(conn, name, thread), "churn-writer-" + t);
      w.start();
      writers.add(w);
    }
    while (!Files.exists(stopFile)) {
      Thread.sleep(500);
      report();
    }
    stop.set(true);
    for (Thread w : writers) {
      w.join(120_000);
    }
    report();
    return verify(conn, name);
  }

  private void write(Connection conn, TableName name, int thread) {
    try (Table table = conn.getTable(name)) {
      for (long n = 0; !stop.get(); n++) {
        int region = (int) (n % REGION_PREFIXES.length);
        String row = REGION_PREFIXES[region] + "-" + thread + "-" + n;
        try {
          table.put(new Put(Show.b(row)).addColumn(FAMILY, QUALIFIER, Show.b(row)));
          acked.add(row);
          perRegion.incrementAndGet(region);
        } catch (Exception e) {
          // Not acknowledged: it may or may not be there, and is not checked.
          errors.incrementAndGet();
          System.out.println("churn: write error " + Show.error(e));
          Thread.sleep(100);
        }
      }
    } catch (Exception e) {
      errors.incrementAndGet();
      System.out.println("churn: writer " + thread + " stopped: " + Show.error(e));
    }
  }

  private void report() {
    StringBuilder line = new StringBuilder("churn: acked " + acked.size() + " regions");
    for (int r = 0; r < REGION_PREFIXES.length; r++) {
      line.append(' ').append(perRegion.get(r));
    }
    System.out.println(line.append(" errors ").append(errors.get()));
    System.out.flush();
  }

  private int verify(Connection conn, TableName name) throws Exception {
    List<String> rows = new ArrayList<>(acked);
    long missing = 0;
    try (Table table = conn.getTable(name)) {
      for (int from = 0; from < rows.size(); from += 500) {
        List<Get> gets = new ArrayList<>();
        for (String row : rows.subList(from, Math.min(rows.size(), from + 500))) {
          gets.add(new Get(Show.b(row)));
        }
        Result[] results = table.get(gets);
        for (int i = 0; i < results.length; i++) {
          byte[] value = results[i].getValue(FAMILY, QUALIFIER);
          String want = rows.get(from + i);
          if (value == null || !want.equals(new String(value, StandardCharsets.UTF_8))) {
            missing++;
            if (missing <= 10) {
              System.out.println("churn: missing acknowledged row " + want);
            }
          }
        }
      }
    }
    boolean everyRegion = true;
    for (int r = 0; r < REGION_PREFIXES.length; r++) {
      everyRegion &= perRegion.get(r) > 0;
    }
    System.out.println("churn: verified " + rows.size() + " acked rows, " + missing + " missing");
    return missing == 0 && !rows.isEmpty() && everyRegion ? 0 : 1;
  }
}
