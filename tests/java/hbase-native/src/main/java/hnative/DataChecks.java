package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Expect.throwsError;
import static hnative.Show.b;
import static hnative.Show.cells;
import static hnative.Show.versions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.apache.hadoop.hbase.util.Bytes;

/** Puts, gets, versions, timestamps, the delete kinds, batches, binary and large values. */
final class DataChecks {
  private DataChecks() {}

  static final byte[] CF = b("cf");
  static final byte[] CF2 = b("cf2");

  static List<Check> all() {
    return List.of(
        new Check("data.put_get_single_column", DataChecks::putGetSingleColumn),
        new Check("data.put_get_multiple_columns", DataChecks::putGetMultipleColumns),
        new Check("data.read_versions", DataChecks::readVersions),
        new Check("data.timestamps", DataChecks::timestamps),
        new Check("data.server_assigns_timestamp", DataChecks::serverAssignsTimestamp),
        new Check("data.get_add_family_add_column", DataChecks::getAddFamilyAddColumn),
        new Check("data.exists", DataChecks::exists),
        new Check("data.missing_row_is_empty", DataChecks::missingRowIsEmpty),
        new Check("data.delete_column_latest_version", DataChecks::deleteColumnLatestVersion),
        new Check("data.delete_column_exact_version", DataChecks::deleteColumnExactVersion),
        new Check("data.delete_columns_all_versions", DataChecks::deleteColumnsAllVersions),
        new Check("data.delete_family", DataChecks::deleteFamily),
        new Check("data.delete_family_version", DataChecks::deleteFamilyVersion),
        new Check("data.delete_row", DataChecks::deleteRow),
        new Check("data.put_list_get_list", DataChecks::putListGetList),
        new Check("data.batch_puts_deletes_gets", DataChecks::batchPutsDeletesGets),
        new Check("data.binary_keys_and_values", DataChecks::binaryKeysAndValues),
        new Check("data.one_mib_value", DataChecks::oneMibValue),
        new Check("data.missing_family_fails", DataChecks::missingFamilyFails));
  }

  static Put put(String row, String qualifier, long ts, String value) {
    return new Put(b(row)).addColumn(CF, b(qualifier), ts, b(value));
  }

  /** Writes cf:q = v1@100, v2@200, v3@300 and cf:other = o@100 to row r. */
  static void threeVersions(Table t) throws Exception {
    t.put(List.of(put("r", "q", 100, "v1"), put("r", "q", 200, "v2"), put("r", "q", 300, "v3"),
        put("r", "other", 100, "o")));
  }

  static void putGetSingleColumn(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(new Put(b("row1")).addColumn(CF, b("q"), b("value1")));
    Result got = t.get(new Get(b("row1")));
    eq("row", "row1", Bytes.toString(got.getRow()));
    eq("value", "value1", Bytes.toString(got.getValue(CF, b("q"))));
    eq("cells", "cf:q=value1", cells(got));
  }

  static void putGetMultipleColumns(Run r) throws Exception {
    Table t = r.table("cf", "cf2");
    t.put(new Put(b("row1")).addColumn(CF2, b("z"), b("4")).addColumn(CF, b("b"), b("2"))
        .addColumn(CF, b("a"), b("1")).addColumn(CF2, b(""), b("3")));
    Result got = t.get(new Get(b("row1")));
    eq("cells sorted by family, then qualifier", "cf:a=1 cf:b=2 cf2:=3 cf2:z=4", cells(got));
    eq("familyMap of cf2", 2, got.getFamilyMap(CF2).size());
    isTrue("containsColumn cf2:(empty)", got.containsColumn(CF2, b("")));
  }

  static void readVersions(Run r) throws Exception {
    Table t = r.table("cf");
    threeVersions(t);
    t.put(put("r", "q", 400, "v4"));
    eq("default: newest only", "cf:other=o@100 cf:q=v4@400", versions(t.get(new Get(b("r")))));
    eq("readVersions(2)", "cf:other=o@100 cf:q=v4@400 cf:q=v3@300",
        versions(t.get(new Get(b("r")).readVersions(2))));
    eq("readAllVersions keeps the family's 3", "cf:other=o@100 cf:q=v4@400 cf:q=v3@300 cf:q=v2@200",
        versions(t.get(new Get(b("r")).readAllVersions())));
    eq("getColumnCells", 3, t.get(new Get(b("r")).readAllVersions()).getColumnCells(CF, b("q")).size());
  }

  static void timestamps(Run r) throws Exception {
    Table t = r.table("cf");
    threeVersions(t);
    eq("setTimestamp(200)", "cf:q=v2@200",
        versions(t.get(new Get(b("r")).addColumn(CF, b("q")).setTimestamp(200))));
    eq("setTimeRange(100, 300) is half-open, newest first", "cf:q=v2@200 cf:q=v1@100",
        versions(t.get(new Get(b("r")).addColumn(CF, b("q")).setTimeRange(100, 300).readAllVersions())));
    eq("setTimeRange(150, 300), newest in range", "cf:q=v2@200",
        versions(t.get(new Get(b("r")).addColumn(CF, b("q")).setTimeRange(150, 300))));
    t.put(put("r", "q", 200, "v2-again"));
    eq("same timestamp written twice: the later write wins", "cf:q=v2-again@200",
        versions(t.get(new Get(b("r")).addColumn(CF, b("q")).setTimestamp(200))));
  }

  static void serverAssignsTimestamp(Run r) throws Exception {
    Table t = r.table("cf");
    long before = System.currentTimeMillis();
    t.put(new Put(b("r")).addColumn(CF, b("q"), b("v")));
    long after = System.currentTimeMillis();
    long ts = t.get(new Get(b("r"))).rawCells()[0].getTimestamp();
    // Same machine: the server's clock is the client's, give or take a second.
    isTrue("timestamp " + ts + " within [" + before + ", " + after + "] +- 1 s",
        ts >= before - 1000 && ts <= after + 1000);
  }

  static void getAddFamilyAddColumn(Run r) throws Exception {
    Table t = r.table("cf", "cf2");
    t.put(new Put(b("r")).addColumn(CF, b("a"), b("1")).addColumn(CF, b("b"), b("2"))
        .addColumn(CF2, b("c"), b("3")));
    eq("addFamily(cf)", "cf:a=1 cf:b=2", cells(t.get(new Get(b("r")).addFamily(CF))));
    eq("addColumn(cf:b)", "cf:b=2", cells(t.get(new Get(b("r")).addColumn(CF, b("b")))));
    eq("addColumn(cf:a) + addFamily(cf2)", "cf:a=1 cf2:c=3",
        cells(t.get(new Get(b("r")).addColumn(CF, b("a")).addFamily(CF2))));
    eq("addColumn of a missing qualifier", "",
        cells(t.get(new Get(b("r")).addColumn(CF, b("nope")))));
  }

  static void exists(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(new Put(b("here")).addColumn(CF, b("q"), b("v")));
    isTrue("exists(here)", t.exists(new Get(b("here"))));
    isTrue("not exists(gone)", !t.exists(new Get(b("gone"))));
    isTrue("not exists(here, cf:other)", !t.exists(new Get(b("here")).addColumn(CF, b("other"))));
    eq("exists(List)", "[true, false]",
        Arrays.toString(t.exists(List.of(new Get(b("here")), new Get(b("gone"))))));
  }

  static void missingRowIsEmpty(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(new Put(b("other")).addColumn(CF, b("q"), b("v")));
    Result got = t.get(new Get(b("missing")));
    isTrue("isEmpty", got.isEmpty());
    eq("size", 0, got.size());
    isTrue("getRow is null", got.getRow() == null);
    isTrue("getValue is null", got.getValue(CF, b("q")) == null);
  }

  static void deleteColumnLatestVersion(Run r) throws Exception {
    Table t = r.table("cf");
    threeVersions(t);
    t.delete(new Delete(b("r")).addColumn(CF, b("q")));
    eq("the newest version is gone", "cf:q=v2@200 cf:q=v1@100",
        versions(t.get(new Get(b("r")).addColumn(CF, b("q")).readAllVersions())));
    eq("other column untouched", "o", Bytes.toString(t.get(new Get(b("r"))).getValue(CF, b("other"))));
  }

  static void deleteColumnExactVersion(Run r) throws Exception {
    Table t = r.table("cf");
    threeVersions(t);
    t.delete(new Delete(b("r")).addColumn(CF, b("q"), 200));
    eq("only @200 is gone", "cf:q=v3@300 cf:q=v1@100",
        versions(t.get(new Get(b("r")).addColumn(CF, b("q")).readAllVersions())));
  }

  static void deleteColumnsAllVersions(Run r) throws Exception {
    Table t = r.table("cf");
    threeVersions(t);
    t.delete(new Delete(b("r")).addColumns(CF, b("q"), 200));
    eq("addColumns(ts 200) removes @200 and older", "cf:q=v3@300",
        versions(t.get(new Get(b("r")).addColumn(CF, b("q")).readAllVersions())));
    t.delete(new Delete(b("r")).addColumns(CF, b("q")));
    eq("addColumns removes the rest", "cf:other=o@100",
        versions(t.get(new Get(b("r")).readAllVersions())));
  }

  static void deleteFamily(Run r) throws Exception {
    Table t = r.table("cf", "cf2");
    threeVersions(t);
    t.put(new Put(b("r")).addColumn(CF2, b("c"), 100, b("keep")));
    t.delete(new Delete(b("r")).addFamily(CF));
    eq("only cf2 remains", "cf2:c=keep@100", versions(t.get(new Get(b("r")).readAllVersions())));
  }

  static void deleteFamilyVersion(Run r) throws Exception {
    Table t = r.table("cf");
    threeVersions(t);
    t.delete(new Delete(b("r")).addFamilyVersion(CF, 100));
    eq("every column's @100 is gone", "cf:q=v3@300 cf:q=v2@200",
        versions(t.get(new Get(b("r")).readAllVersions())));
  }

  static void deleteRow(Run r) throws Exception {
    Table t = r.table("cf", "cf2");
    threeVersions(t);
    t.put(new Put(b("r")).addColumn(CF2, b("c"), b("x")));
    t.put(new Put(b("s")).addColumn(CF, b("q"), b("neighbour")));
    t.delete(new Delete(b("r")));
    isTrue("row r is gone", t.get(new Get(b("r")).readAllVersions()).isEmpty());
    eq("row s is not", "cf:q=neighbour", cells(t.get(new Get(b("s")))));
  }

  static void putListGetList(Run r) throws Exception {
    Table t = r.table("cf");
    List<Put> puts = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      puts.add(new Put(b(String.format("row%03d", i))).addColumn(CF, b("n"), Bytes.toBytes(i)));
    }
    t.put(puts);
    Result[] got = t.get(List.of(new Get(b("row042")), new Get(b("nope")), new Get(b("row007"))));
    eq("results in the order asked", 3, got.length);
    eq("row042", 42, Bytes.toInt(got[0].getValue(CF, b("n"))));
    isTrue("missing row is empty", got[1].isEmpty());
    eq("row007", 7, Bytes.toInt(got[2].getValue(CF, b("n"))));
    eq("rows scanned", 100, Show.count(t.getScanner(new Scan())));
  }

  static void batchPutsDeletesGets(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(List.of(new Put(b("old")).addColumn(CF, b("q"), b("1")),
        new Put(b("read")).addColumn(CF, b("q"), b("2"))));
    List<Row> actions = List.of(new Put(b("new")).addColumn(CF, b("q"), b("3")),
        new Delete(b("old")), new Get(b("read")), new Get(b("absent")));
    Object[] results = new Object[actions.size()];
    t.batch(actions, results);
    for (Object o : results) {
      isTrue("every result is a Result: " + o, o instanceof Result);
    }
    isTrue("put's result is empty", ((Result) results[0]).isEmpty());
    isTrue("delete's result is empty", ((Result) results[1]).isEmpty());
    eq("get's result", "cf:q=2", cells((Result) results[2]));
    isTrue("get of a missing row is empty", ((Result) results[3]).isEmpty());
    eq("rows after the batch", "new,read", Show.rows(t.getScanner(new Scan())));
  }

  static void binaryKeysAndValues(Run r) throws Exception {
    Table t = r.table("cf");
    byte[][] rows = {{0x00}, {0x00, 0x00}, {0x7f}, {(byte) 0x80}, {(byte) 0xff, 0x00}, {(byte) 0xff}};
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    byte[] qualifier = {0x00, (byte) 0xff, 0x0a};
    for (int i = rows.length - 1; i >= 0; i--) {
      t.put(new Put(rows[i]).addColumn(CF, qualifier, Bytes.add(all, rows[i])));
    }
    for (byte[] row : rows) {
      byte[] got = t.get(new Get(row)).getValue(CF, qualifier);
      isTrue("value of " + Bytes.toStringBinary(row), Arrays.equals(Bytes.add(all, row), got));
    }
    eq("scan order is unsigned byte order", "\\x00,\\x00\\x00,\\x7F,\\x80,\\xFF,\\xFF\\x00",
        Show.rows(t.getScanner(new Scan())));
  }

  static void oneMibValue(Run r) throws Exception {
    Table t = r.table("cf");
    byte[] big = new byte[1 << 20];
    new Random(7).nextBytes(big);
    t.put(new Put(b("big")).addColumn(CF, b("q"), big));
    byte[] got = t.get(new Get(b("big"))).getValue(CF, b("q"));
    isTrue("1 MiB value comes back equal (got " + (got == null ? "null" : got.length + " bytes") + ")",
        Arrays.equals(big, got));
  }

  static void missingFamilyFails(Run r) throws Exception {
    Table t = r.table("cf");
    throwsError("put to a missing family", NoSuchColumnFamilyException.class,
        () -> t.put(new Put(b("r")).addColumn(b("nope"), b("q"), b("v"))));
    throwsError("get of a missing family", NoSuchColumnFamilyException.class,
        () -> t.get(new Get(b("r")).addFamily(b("nope"))));
  }
}
