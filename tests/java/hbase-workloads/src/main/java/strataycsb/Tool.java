package strataycsb;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The harness's own table chores, through the same client and hbase-site.xml as the workloads:
 *
 * <pre>
 *   create TABLE FAMILY REGIONS        drop TABLE if it exists; create it with YCSB's split points
 *                                      user1..user(REGIONS-1) (REGIONS at most 10)
 *   drop TABLE                         drop TABLE if it exists
 *   expect-rows TABLE N                exit 1 unless a full scan finds exactly N rows
 *   expect-values TABLE FAMILY QUALIFIER ROWS SIZE
 *                                      exit 1 unless batched Gets of rows 0..ROWS-1 (PE's 26-digit
 *                                      keys) each find a SIZE-byte value in FAMILY:QUALIFIER
 *   expect-counter TABLE FAMILY QUALIFIER ROWS VALUE
 *                                      exit 1 unless rows 0..ROWS-1 (PE's 26-digit keys) each hold
 *                                      the 8-byte counter VALUE in FAMILY:QUALIFIER
 * </pre>
 */
public final class Tool {
  private Tool() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      usage();
    }
    TableName name = TableName.valueOf(args[1]);
    try (Connection conn = ConnectionFactory.createConnection(HBaseConfiguration.create());
        Admin admin = conn.getAdmin()) {
      switch (args[0]) {
        case "create": {
          if (args.length != 4) {
            usage();
          }
          int regions = Integer.parseInt(args[3]);
          if (regions < 1 || regions > 10) {
            fail("REGIONS must be 1..10");
          }
          drop(admin, name);
          byte[][] splits = new byte[regions - 1][];
          for (int i = 1; i < regions; i++) {
            splits[i - 1] = Bytes.toBytes("user" + i);
          }
          admin.createTable(TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(args[2])).build(), splits);
          int got = admin.getRegions(name).size();
          if (got != regions) {
            fail(name + ": created with " + regions + " regions, the server lists " + got);
          }
          System.out.println("created " + name + " with " + regions + " regions");
          break;
        }
        case "drop":
          System.out.println(drop(admin, name) ? "dropped " + name : name + " did not exist");
          break;
        case "expect-rows": {
          long want = Long.parseLong(args[2]);
          long rows = 0;
          Scan scan = new Scan().setFilter(new FirstKeyOnlyFilter()).setCaching(1000);
          try (Table t = conn.getTable(name); ResultScanner rs = t.getScanner(scan)) {
            for (Result r = rs.next(); r != null; r = rs.next()) {
              rows++;
            }
          }
          if (rows != want) {
            fail(name + ": " + rows + " rows, expected " + want);
          }
          System.out.println(name + ": " + rows + " rows as expected");
          break;
        }
        case "expect-values": {
          if (args.length != 6) {
            usage();
          }
          byte[] family = Bytes.toBytes(args[2]);
          byte[] qualifier = Bytes.toBytes(args[3]);
          int rows = Integer.parseInt(args[4]);
          int size = Integer.parseInt(args[5]);
          long missing = 0;
          long wrongSize = 0;
          String first = null;
          try (Table t = conn.getTable(name)) {
            for (int start = 0; start < rows; start += 100) {
              List<Get> gets = new ArrayList<>();
              for (int i = start; i < Math.min(rows, start + 100); i++) {
                gets.add(new Get(peRow(i)).addColumn(family, qualifier));
              }
              Result[] got = t.get(gets);
              for (int i = 0; i < got.length; i++) {
                byte[] v = got[i].getValue(family, qualifier);
                if (v == null || v.length != size) {
                  if (v == null) {
                    missing++;
                  } else {
                    wrongSize++;
                  }
                  if (first == null) {
                    first = Bytes.toString(gets.get(i).getRow()) + ": "
                        + (v == null ? "no value" : v.length + " bytes");
                  }
                }
              }
            }
          }
          if (missing != 0 || wrongSize != 0) {
            fail(name + ": of " + rows + " rows, " + missing + " have no value and " + wrongSize
                + " not " + size + " bytes; first: " + first);
          }
          System.out.println(name + ": " + rows + " rows read back with " + size + "-byte values");
          break;
        }
        case "expect-counter": {
          byte[] family = Bytes.toBytes(args[2]);
          byte[] qualifier = Bytes.toBytes(args[3]);
          long rows = Long.parseLong(args[4]);
          long want = Long.parseLong(args[5]);
          long bad = 0;
          String first = null;
          Scan scan = new Scan().addColumn(family, qualifier).setCaching(1000);
          long seen = 0;
          try (Table t = conn.getTable(name); ResultScanner rs = t.getScanner(scan)) {
            for (Result r = rs.next(); r != null; r = rs.next()) {
              seen++;
              byte[] v = r.getValue(family, qualifier);
              if (v == null || v.length != 8 || Bytes.toLong(v) != want) {
                bad++;
                if (first == null) {
                  first = Bytes.toString(r.getRow()) + " = "
                      + (v == null ? "null" : Arrays.toString(v));
                }
              }
            }
          }
          if (seen != rows || bad != 0) {
            fail(name + ": " + seen + " rows hold " + args[3] + " (expected " + rows + "), "
                + bad + " not equal to " + want + (first == null ? "" : "; first: " + first));
          }
          System.out.println(name + ": " + seen + " counters equal to " + want + " as expected");
          break;
        }
        default:
          usage();
      }
    }
  }

  /** PE's row key for row i: its decimal digits, zero-padded to 26 bytes. */
  private static byte[] peRow(int i) {
    return Bytes.toBytes(String.format("%026d", i));
  }

  /** Drops the table if it exists; true if it did. */
  private static boolean drop(Admin admin, TableName name) throws IOException {
    if (!admin.tableExists(name)) {
      return false;
    }
    if (admin.isTableEnabled(name)) {
      admin.disableTable(name);
    }
    admin.deleteTable(name);
    if (admin.tableExists(name)) {
      fail(name + " still exists after deleteTable");
    }
    return true;
  }

  private static void fail(String msg) {
    System.err.println("FAIL: " + msg);
    System.exit(1);
  }

  private static void usage() {
    System.err.println("usage: Tool create TABLE FAMILY REGIONS | drop TABLE | expect-rows TABLE N"
        + " | expect-values TABLE FAMILY QUALIFIER ROWS SIZE | expect-counter TABLE FAMILY QUALIFIER ROWS VALUE");
    System.exit(2);
  }
}
