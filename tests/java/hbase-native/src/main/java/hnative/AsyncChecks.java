package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Show.b;
import static hnative.Show.cells;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.AsyncAdmin;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/** The same basics through AsyncConnection: AsyncAdmin, AsyncTable put/get/scan/checkAndMutate. */
final class AsyncChecks {
  private AsyncChecks() {}

  static final byte[] CF = b("cf");

  static List<Check> all() {
    return List.of(
        new Check("async.admin_create_exists_delete", AsyncChecks::adminCreateExistsDelete),
        new Check("async.put_get", AsyncChecks::putGet),
        new Check("async.put_all_get_all", AsyncChecks::putAllGetAll),
        new Check("async.scan_all_and_scanner", AsyncChecks::scanAllAndScanner),
        new Check("async.scan_with_consumer", AsyncChecks::scanWithConsumer),
        new Check("async.check_and_mutate", AsyncChecks::checkAndMutate),
        new Check("async.increment", AsyncChecks::increment));
  }

  static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(30, TimeUnit.SECONDS);
  }

  /** Creates this check's table (family cf) through AsyncAdmin; Run drops it after. */
  static AsyncTable<AdvancedScanResultConsumer> table(Run r) throws Exception {
    TableName name = r.track(r.tableName());
    await(r.async().getAdmin().createTable(TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("cf")).build(),
        new byte[][] {b("m")}));
    return r.async().getTable(name);
  }

  static void adminCreateExistsDelete(Run r) throws Exception {
    AsyncAdmin admin = r.async().getAdmin();
    TableName name = table(r).getName();
    isTrue("tableExists", await(admin.tableExists(name)));
    isTrue("isTableEnabled", await(admin.isTableEnabled(name)));
    eq("regions", 2, await(admin.getRegions(name)).size());
    isTrue("listed", await(admin.listTableNames()).contains(name));
    await(admin.disableTable(name));
    await(admin.deleteTable(name));
    isTrue("gone", !await(admin.tableExists(name)));
  }

  static void putGet(Run r) throws Exception {
    AsyncTable<?> t = table(r);
    await(t.put(new Put(b("a")).addColumn(CF, b("q"), b("1")).addColumn(CF, b("r"), b("2"))));
    eq("get", "cf:q=1 cf:r=2", cells(await(t.get(new Get(b("a"))))));
    isTrue("missing row is empty", await(t.get(new Get(b("nope")))).isEmpty());
    isTrue("exists", await(t.exists(new Get(b("a")))));
  }

  static void putAllGetAll(Run r) throws Exception {
    AsyncTable<?> t = table(r);
    List<Put> puts = new ArrayList<>();
    for (String row : new String[] {"a", "k", "n", "z"}) {
      puts.add(new Put(b(row)).addColumn(CF, b("q"), b("v" + row)));
    }
    await(t.putAll(puts));
    List<Result> got = await(t.getAll(List.of(new Get(b("z")), new Get(b("a")), new Get(b("x")))));
    eq("in the order asked", "cf:q=vz|cf:q=va|", cells(got.get(0)) + "|" + cells(got.get(1)) + "|"
        + cells(got.get(2)));
  }

  static void scanAllAndScanner(Run r) throws Exception {
    AsyncTable<?> t = table(r);
    List<Put> puts = new ArrayList<>();
    for (String row : new String[] {"c", "a", "q", "m", "z"}) {
      puts.add(new Put(b(row)).addColumn(CF, b("q"), b(row)));
    }
    await(t.putAll(puts));
    eq("scanAll across two regions", "a,c,m,q,z", Show.rows(await(t.scanAll(new Scan()))));
    eq("scanAll reversed, limit 3", "z,q,m",
        Show.rows(await(t.scanAll(new Scan().setReversed(true).setLimit(3)))));
    try (ResultScanner s = t.getScanner(new Scan().withStartRow(b("b")).setCaching(1))) {
      eq("getScanner from b", "c,m,q,z", Show.rows(s));
    }
  }

  static void scanWithConsumer(Run r) throws Exception {
    AsyncTable<AdvancedScanResultConsumer> t = table(r);
    await(t.putAll(List.of(new Put(b("b")).addColumn(CF, b("q"), b("1")),
        new Put(b("y")).addColumn(CF, b("q"), b("2")))));
    CompletableFuture<List<String>> done = new CompletableFuture<>();
    List<String> seen = new ArrayList<>();
    t.scan(new Scan(), new AdvancedScanResultConsumer() {
      @Override
      public void onNext(Result[] results, ScanController controller) {
        for (Result res : results) {
          seen.add(Bytes.toString(res.getRow()));
        }
      }

      @Override
      public void onError(Throwable error) {
        done.completeExceptionally(error);
      }

      @Override
      public void onComplete() {
        done.complete(seen);
      }
    });
    eq("rows pushed to the consumer", "[b, y]", await(done));
  }

  static void checkAndMutate(Run r) throws Exception {
    AsyncTable<?> t = table(r);
    byte[] row = b("row");
    isTrue("ifNotExists", await(t.checkAndMutate(CheckAndMutate.newBuilder(row)
        .ifNotExists(CF, b("q")).build(new Put(row).addColumn(CF, b("q"), b("1"))))).isSuccess());
    isTrue("ifEquals mismatch", !await(t.checkAndMutate(CheckAndMutate.newBuilder(row)
        .ifEquals(CF, b("q"), b("0")).build(new Put(row).addColumn(CF, b("q"), b("x"))))).isSuccess());
    isTrue("ifEquals match", await(t.checkAndMutate(CheckAndMutate.newBuilder(row)
        .ifEquals(CF, b("q"), b("1")).build(new Put(row).addColumn(CF, b("q"), b("2"))))).isSuccess());
    eq("value", "cf:q=2", cells(await(t.get(new Get(row)))));
  }

  static void increment(Run r) throws Exception {
    AsyncTable<?> t = table(r);
    eq("first", 4L, await(t.incrementColumnValue(b("c"), CF, b("n"), 4)));
    eq("second", 1L, await(t.incrementColumnValue(b("c"), CF, b("n"), -3)));
  }
}
