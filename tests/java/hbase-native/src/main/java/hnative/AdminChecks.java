package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Expect.throwsError;
import static hnative.Show.b;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.hbase.HColumnDescriptor;
import org.apache.hadoop.hbase.HTableDescriptor;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotDisabledException;
import org.apache.hadoop.hbase.TableNotEnabledException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/** Table administration: create, describe, disable/enable, regions, truncate, delete, errors. */
final class AdminChecks {
  private AdminChecks() {}

  static final byte[][] SPLITS = {b("g"), b("p")};

  static List<Check> all() {
    return List.of(
        new Check("admin.create_one_family", AdminChecks::createOneFamily),
        new Check("admin.create_with_split_keys", AdminChecks::createWithSplitKeys),
        new Check("admin.family_versions_and_ttl_round_trip",
            AdminChecks::familyVersionsAndTtlRoundTrip),
        new Check("admin.create_with_hcolumndescriptor", AdminChecks::createWithHColumnDescriptor),
        new Check("admin.descriptor_families_and_table_attribute",
            AdminChecks::descriptorFamiliesAndTableAttribute),
        new Check("admin.list_tables_includes_new_table", AdminChecks::listTablesIncludesNewTable),
        new Check("admin.disable_then_enable", AdminChecks::disableThenEnable),
        new Check("admin.disable_twice_or_enable_twice_fails",
            AdminChecks::disableTwiceOrEnableTwiceFails),
        new Check("admin.regions_of_split_table", AdminChecks::regionsOfSplitTable),
        new Check("admin.truncate_preserving_splits", AdminChecks::truncatePreservingSplits),
        new Check("admin.truncate_without_splits", AdminChecks::truncateWithoutSplits),
        new Check("admin.add_modify_delete_family", AdminChecks::addModifyDeleteFamily),
        new Check("admin.delete_table", AdminChecks::deleteTable),
        new Check("admin.delete_enabled_table_fails", AdminChecks::deleteEnabledTableFails),
        new Check("admin.missing_table_not_found", AdminChecks::missingTableNotFound),
        new Check("admin.duplicate_create_fails", AdminChecks::duplicateCreateFails));
  }

  static TableDescriptor oneFamily(TableName name) {
    return TableDescriptorBuilder.newBuilder(name)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("cf")).build();
  }

  static void createOneFamily(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    Admin admin = r.admin();
    isTrue("tableExists", admin.tableExists(name));
    isTrue("isTableEnabled", admin.isTableEnabled(name));
    isTrue("isTableAvailable", admin.isTableAvailable(name));
    isTrue("not isTableDisabled", !admin.isTableDisabled(name));
    ColumnFamilyDescriptor cf = admin.getDescriptor(name).getColumnFamily(b("cf"));
    eq("default VERSIONS of a Java-created family", 1, cf.getMaxVersions());
    eq("default TTL (forever)", Integer.MAX_VALUE, cf.getTimeToLive());
    eq("one region", 1, admin.getRegions(name).size());
  }

  static void createWithSplitKeys(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), SPLITS);
    eq("regions", "[,g) [g,p) [p,)", bounds(r.admin().getRegions(name)));
  }

  static void familyVersionsAndTtlRoundTrip(Run r) throws Exception {
    TableName name = r.create(TableDescriptorBuilder.newBuilder(r.tableName())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("cf"))
            .setMaxVersions(5).setMinVersions(1).setTimeToLive(3600).build())
        .build(), null);
    ColumnFamilyDescriptor cf = r.admin().getDescriptor(name).getColumnFamily(b("cf"));
    eq("VERSIONS, MIN_VERSIONS, TTL", "5 1 3600",
        cf.getMaxVersions() + " " + cf.getMinVersions() + " " + cf.getTimeToLive());
  }

  @SuppressWarnings("deprecation")
  static void createWithHColumnDescriptor(Run r) throws Exception {
    HTableDescriptor d = new HTableDescriptor(r.tableName());
    HColumnDescriptor f = new HColumnDescriptor("old");
    f.setMaxVersions(4);
    f.setTimeToLive(7200);
    d.addFamily(f);
    TableName name = r.create(d, null);
    ColumnFamilyDescriptor cf = r.admin().getDescriptor(name).getColumnFamily(b("old"));
    eq("VERSIONS, TTL", "4 7200", cf.getMaxVersions() + " " + cf.getTimeToLive());
  }

  static void descriptorFamiliesAndTableAttribute(Run r) throws Exception {
    TableName name = r.create(TableDescriptorBuilder.newBuilder(r.tableName())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("b2")).setMaxVersions(2).build())
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("a1")).setMaxVersions(7).build())
        .setValue("STRATA_TEST_ATTRIBUTE", "some value")
        .build(), null);
    TableDescriptor d = r.admin().getDescriptor(name);
    eq("name", name, d.getTableName());
    List<String> families = new ArrayList<>();
    for (ColumnFamilyDescriptor f : d.getColumnFamilies()) {
      families.add(f.getNameAsString() + "/" + f.getMaxVersions());
    }
    eq("families, sorted by name, with VERSIONS", "[a1/7, b2/2]", families);
    eq("table attribute", "some value", d.getValue("STRATA_TEST_ATTRIBUTE"));
    eq("descriptor of Table", d.getValue("STRATA_TEST_ATTRIBUTE"),
        r.open(name).getDescriptor().getValue("STRATA_TEST_ATTRIBUTE"));
  }

  static void listTablesIncludesNewTable(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    isTrue("listTableNames", Arrays.asList(r.admin().listTableNames()).contains(name));
    eq("listTableNames(pattern)", "[" + name + "]",
        Arrays.toString(r.admin().listTableNames(Pattern.compile(Pattern.quote(name.toString())))));
    boolean described = false;
    for (TableDescriptor d : r.admin().listTableDescriptors()) {
      described |= d.getTableName().equals(name) && d.hasColumnFamily(b("cf"));
    }
    isTrue("listTableDescriptors has it with cf", described);
  }

  static void disableThenEnable(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    Admin admin = r.admin();
    admin.disableTable(name);
    isTrue("isTableDisabled", admin.isTableDisabled(name));
    isTrue("not isTableEnabled", !admin.isTableEnabled(name));
    Table t = r.open(name);
    throwsError("put to a disabled table", TableNotEnabledException.class,
        () -> t.put(new Put(b("r")).addColumn(b("cf"), b("q"), b("v"))));
    admin.enableTable(name);
    isTrue("isTableEnabled again", admin.isTableEnabled(name));
    t.put(new Put(b("r")).addColumn(b("cf"), b("q"), b("v")));
    eq("get after enable", "v", Bytes.toString(t.get(new Get(b("r"))).getValue(b("cf"), b("q"))));
  }

  static void disableTwiceOrEnableTwiceFails(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    Admin admin = r.admin();
    throwsError("enable an enabled table", TableNotDisabledException.class,
        () -> admin.enableTable(name));
    admin.disableTable(name);
    throwsError("disable a disabled table", TableNotEnabledException.class,
        () -> admin.disableTable(name));
  }

  static void regionsOfSplitTable(Run r) throws Exception {
    byte[][] splits = {b("b"), b("d"), b("f"), b("h")};
    TableName name = r.create(oneFamily(r.tableName()), splits);
    List<RegionInfo> regions = r.admin().getRegions(name);
    eq("count", splits.length + 1, regions.size());
    eq("bounds", "[,b) [b,d) [d,f) [f,h) [h,)", bounds(regions));
    for (RegionInfo info : regions) {
      eq("region's table", name, info.getTable());
    }
    try (RegionLocator locator = r.conn().getRegionLocator(name)) {
      eq("RegionLocator start keys", "[, b, d, f, h]", keys(locator.getStartKeys()));
      eq("RegionLocator end keys", "[b, d, f, h, ]", keys(locator.getEndKeys()));
      eq("region of 'e'", "[d,f)", bounds(List.of(locator.getRegionLocation(b("e")).getRegion())));
    }
  }

  static void truncatePreservingSplits(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), SPLITS);
    Table t = r.open(name);
    for (String row : new String[] {"a", "h", "z"}) {
      t.put(new Put(b(row)).addColumn(b("cf"), b("q"), b("v")));
    }
    r.admin().disableTable(name);
    r.admin().truncateTable(name, true);
    isTrue("enabled after truncate", r.admin().isTableEnabled(name));
    eq("regions", "[,g) [g,p) [p,)", bounds(r.admin().getRegions(name)));
    eq("rows after truncate", "", Show.rows(t.getScanner(new Scan())));
  }

  static void truncateWithoutSplits(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), SPLITS);
    r.open(name).put(new Put(b("h")).addColumn(b("cf"), b("q"), b("v")));
    r.admin().disableTable(name);
    r.admin().truncateTable(name, false);
    eq("regions", "[,)", bounds(r.admin().getRegions(name)));
    eq("rows after truncate", "", Show.rows(r.open(name).getScanner(new Scan())));
  }

  static void addModifyDeleteFamily(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    Admin admin = r.admin();
    admin.addColumnFamily(name,
        ColumnFamilyDescriptorBuilder.newBuilder(b("extra")).setMaxVersions(2).build());
    eq("after add", "2", admin.getDescriptor(name).getColumnFamily(b("extra")).getMaxVersions());
    admin.modifyColumnFamily(name,
        ColumnFamilyDescriptorBuilder.newBuilder(b("extra")).setMaxVersions(6).build());
    eq("after modify", "6", admin.getDescriptor(name).getColumnFamily(b("extra")).getMaxVersions());
    admin.deleteColumnFamily(name, b("extra"));
    eq("families after delete", 1, admin.getDescriptor(name).getColumnFamilyCount());
  }

  static void deleteTable(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    r.admin().disableTable(name);
    r.admin().deleteTable(name);
    isTrue("tableExists after delete", !r.admin().tableExists(name));
    isTrue("not listed", !Arrays.asList(r.admin().listTableNames()).contains(name));
  }

  static void deleteEnabledTableFails(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    throwsError("delete an enabled table", TableNotDisabledException.class,
        () -> r.admin().deleteTable(name));
    isTrue("still exists", r.admin().tableExists(name));
  }

  static void missingTableNotFound(Run r) throws Exception {
    TableName name = r.tableName("_missing");
    Admin admin = r.admin();
    isTrue("tableExists", !admin.tableExists(name));
    throwsError("getDescriptor", TableNotFoundException.class, () -> admin.getDescriptor(name));
    throwsError("disableTable", TableNotFoundException.class, () -> admin.disableTable(name));
    throwsError("deleteTable", TableNotFoundException.class, () -> admin.deleteTable(name));
    throwsError("isTableEnabled", TableNotFoundException.class, () -> admin.isTableEnabled(name));
    Table t = r.open(name);
    throwsError("Table.get", TableNotFoundException.class, () -> t.get(new Get(b("r"))));
    throwsError("Table.put", TableNotFoundException.class,
        () -> t.put(new Put(b("r")).addColumn(b("cf"), b("q"), b("v"))));
  }

  static void duplicateCreateFails(Run r) throws Exception {
    TableName name = r.create(oneFamily(r.tableName()), null);
    throwsError("create it again", TableExistsException.class,
        () -> r.admin().createTable(oneFamily(name)));
  }

  /** "[,g) [g,p) [p,)": the key range of each region, in order. */
  static String bounds(List<RegionInfo> regions) {
    List<String> out = new ArrayList<>();
    for (RegionInfo info : regions) {
      out.add("[" + Bytes.toStringBinary(info.getStartKey()) + ","
          + Bytes.toStringBinary(info.getEndKey()) + ")");
    }
    return String.join(" ", out);
  }

  private static String keys(byte[][] keys) {
    List<String> out = new ArrayList<>();
    for (byte[] k : keys) {
      out.add(Bytes.toStringBinary(k));
    }
    return out.toString();
  }
}
