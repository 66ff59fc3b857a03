package smoke;

import static smoke.Checks.expect;

import com.google.cloud.bigtable.hbase.BigtableConfiguration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Smoke test of the HBase 2.x client API through Google's bigtable-hbase against a Bigtable
 * endpoint (Strata, or Google's emulator as an oracle), reached through BIGTABLE_EMULATOR_HOST.
 * Creates a table of its own, runs the admin, read, scan and mutation checks, drops the table
 * and exits 1 if any check failed.
 */
public final class Smoke {
  static final byte[] CF = Bytes.toBytes("cf");
  static final byte[] CF2 = Bytes.toBytes("cf2");

  public static void main(String[] args) throws Exception {
    String host = System.getenv("BIGTABLE_EMULATOR_HOST");
    if (host == null || host.isEmpty()) {
      System.err.println("Smoke: set BIGTABLE_EMULATOR_HOST=host:port");
      System.exit(2);
    }
    TableName name = TableName.valueOf("bt_hbase_smoke_" + ProcessHandle.current().pid());
    Checks c = new Checks();
    System.out.println("bigtable-hbase smoke against " + host + ", table " + name);
    try (Connection conn = BigtableConfiguration.connect("p", "default");
        Admin admin = conn.getAdmin()) {
      createTable(c, admin, name);
      try (Table table = conn.getTable(name)) {
        new ReadChecks(c, table).run();
        new ScanChecks(c, table).run();
        new MutationChecks(c, conn, table).run();
        new BulkChecks(c, table).run();
        new ConcurrencyChecks(c, table).run();
      }
      adminChecks(c, conn, admin, name);
      truncateTable(c, conn, admin, name);
      dropTable(c, admin, name);
    }
    System.out.println("bigtable-hbase smoke: " + c.summary());
    System.exit(c.failures() == 0 ? 0 : 1);
  }

  private static void createTable(Checks c, Admin admin, TableName name) {
    c.check("createTable with families cf (VERSIONS 3) and cf2 (VERSIONS 1), split at 'n'", () -> {
      TableDescriptor desc = TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(CF).setMaxVersions(3).build())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(CF2).setMaxVersions(1).build())
          .build();
      admin.createTable(desc, new byte[][] {Bytes.toBytes("n")});
      expect("tableExists", true, admin.tableExists(name));
    });
    c.check("listTableNames includes the table", () -> {
      List<String> names = new ArrayList<>();
      for (TableName t : admin.listTableNames()) {
        names.add(t.getNameAsString());
      }
      expect("contains " + name, true, names.contains(name.getNameAsString()));
    });
    c.check("getDescriptor: families and VERSIONS", () -> {
      TableDescriptor d = admin.getDescriptor(name);
      expect("families", "cf,cf2", families(d));
      expect("cf VERSIONS", 3, d.getColumnFamily(CF).getMaxVersions());
      expect("cf2 VERSIONS", 1, d.getColumnFamily(CF2).getMaxVersions());
    });
  }

  private static void adminChecks(Checks c, Connection conn, Admin admin, TableName name) {
    c.check("RegionLocator: two regions split at 'n'", () -> {
      try (RegionLocator locator = conn.getRegionLocator(name)) {
        List<String> bounds = new ArrayList<>();
        for (HRegionLocation loc : locator.getAllRegionLocations()) {
          bounds.add("[" + Bytes.toString(loc.getRegion().getStartKey()) + ","
              + Bytes.toString(loc.getRegion().getEndKey()) + ")");
        }
        expect("regions", "[,n) [n,)", String.join(" ", bounds));
      }
    });
    c.check("addColumnFamily cf3 (VERSIONS 2), then getDescriptor shows it", () -> {
      admin.addColumnFamily(name,
          ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("cf3")).setMaxVersions(2).build());
      TableDescriptor d = admin.getDescriptor(name);
      expect("families", "cf,cf2,cf3", families(d));
      expect("cf3 VERSIONS", 2, d.getColumnFamily(Bytes.toBytes("cf3")).getMaxVersions());
    });
    c.check("modifyColumnFamily cf3 to VERSIONS 5", () -> {
      admin.modifyColumnFamily(name,
          ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("cf3")).setMaxVersions(5).build());
      expect("cf3 VERSIONS", 5,
          admin.getDescriptor(name).getColumnFamily(Bytes.toBytes("cf3")).getMaxVersions());
    });
    c.check("addColumnFamily cf4 with VERSIONS 4 and TTL 1 day round-trips both", () -> {
      admin.addColumnFamily(name, ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("cf4"))
          .setMaxVersions(4).setTimeToLive(86400).build());
      ColumnFamilyDescriptor f = admin.getDescriptor(name).getColumnFamily(Bytes.toBytes("cf4"));
      expect("VERSIONS, TTL", "4, 86400", f.getMaxVersions() + ", " + f.getTimeToLive());
      admin.deleteColumnFamily(name, Bytes.toBytes("cf4"));
    });
    c.check("listTableDescriptors and isTableAvailable", () -> {
      boolean listed = false;
      for (TableDescriptor d : admin.listTableDescriptors()) {
        listed |= d.getTableName().equals(name) && d.getColumnFamilies().length == 3;
      }
      expect("listed with cf, cf2, cf3", true, listed);
      expect("available", true, admin.isTableAvailable(name));
    });
    c.check("deleteColumnFamily cf3", () -> {
      admin.deleteColumnFamily(name, Bytes.toBytes("cf3"));
      expect("families", "cf,cf2", families(admin.getDescriptor(name)));
    });
  }

  private static void truncateTable(Checks c, Connection conn, Admin admin, TableName name) {
    c.check("disableTable, truncateTable(preserveSplits): no rows left", () -> {
      admin.disableTable(name);
      admin.truncateTable(name, true);
      try (Table table = conn.getTable(name)) {
        expect("rows", "", Checks.rows(table.getScanner(new Scan())));
      }
    });
  }

  private static void dropTable(Checks c, Admin admin, TableName name) {
    c.check("disableTable, deleteTable, tableExists is false", () -> {
      if (admin.isTableEnabled(name)) {
        admin.disableTable(name);
      }
      admin.deleteTable(name);
      expect("tableExists", false, admin.tableExists(name));
    });
  }

  private static String families(TableDescriptor d) {
    List<String> out = new ArrayList<>();
    for (ColumnFamilyDescriptor f : d.getColumnFamilies()) {
      out.add(f.getNameAsString());
    }
    return String.join(",", out);
  }
}
