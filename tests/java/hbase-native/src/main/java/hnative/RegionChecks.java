package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Expect.throwsError;
import static hnative.Show.b;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.UnknownRegionException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/** Region operations through Admin: split at a row, merge, the balancer switch. */
final class RegionChecks {
  private RegionChecks() {}

  static final String ROWS = "a,f,k,q,w";

  static List<Check> all() {
    return List.of(
        new Check("regions.split_at_a_row", RegionChecks::splitAtRow),
        new Check("regions.merge_two_adjacent", RegionChecks::mergeAdjacent),
        new Check("regions.split_outside_the_region_fails", RegionChecks::splitOutside),
        new Check("regions.merge_of_an_unknown_region_fails", RegionChecks::mergeUnknown),
        new Check("regions.balancer_switch_off_then_balance", RegionChecks::balancerOff));
  }

  private static Table withRows(Run r, byte[][] splits) throws Exception {
    Table t = r.table(splits, "cf");
    for (String row : ROWS.split(",")) {
      t.put(new Put(b(row)).addColumn(b("cf"), b("q"), b(row)));
    }
    return t;
  }

  static void splitAtRow(Run r) throws Exception {
    Table t = withRows(r, null);
    Admin admin = r.admin();
    RegionInfo only = admin.getRegions(r.tableName()).get(0);
    admin.splitRegionAsync(only.getRegionName(), b("k")).get(60, TimeUnit.SECONDS);
    eq("regions after the split", "[,k) [k,)", AdminChecks.bounds(admin.getRegions(r.tableName())));
    eq("rows after the split", ROWS, Show.rows(t.getScanner(new Scan())));
  }

  // HBase merges a split's daughters only once compactions have rewritten their reference
  // files ("is not mergeable"), so the regions merged here come from a pre-split.
  static void mergeAdjacent(Run r) throws Exception {
    Table t = withRows(r, AdminChecks.SPLITS);
    Admin admin = r.admin();
    List<RegionInfo> regions = admin.getRegions(r.tableName());
    byte[][] pair = {regions.get(0).getEncodedNameAsBytes(), regions.get(1).getEncodedNameAsBytes()};
    admin.mergeRegionsAsync(pair, false).get(60, TimeUnit.SECONDS);
    eq("regions after the merge", "[,p) [p,)", AdminChecks.bounds(admin.getRegions(r.tableName())));
    eq("rows after the merge", ROWS, Show.rows(t.getScanner(new Scan())));
  }

  static void splitOutside(Run r) throws Exception {
    r.table(AdminChecks.SPLITS, "cf");
    RegionInfo first = r.admin().getRegions(r.tableName()).get(0);
    throwsError("split of [,g) at z", DoNotRetryIOException.class,
        () -> r.admin().splitRegionAsync(first.getRegionName(), b("z")).get(30, TimeUnit.SECONDS));
    eq("the regions are unchanged", "[,g) [g,p) [p,)",
        AdminChecks.bounds(r.admin().getRegions(r.tableName())));
  }

  static void mergeUnknown(Run r) throws Exception {
    r.table("cf");
    RegionInfo only = r.admin().getRegions(r.tableName()).get(0);
    byte[][] pair = {only.getEncodedNameAsBytes(), b("0123456789abcdef0123456789abcdef")};
    throwsError("merge with a region that does not exist", UnknownRegionException.class,
        () -> r.admin().mergeRegionsAsync(pair, false).get(30, TimeUnit.SECONDS));
  }

  static void balancerOff(Run r) throws Exception {
    Admin admin = r.admin();
    boolean before = admin.balancerSwitch(false, true);
    try {
      isTrue("a balancer switched off does not run", !admin.balance());
      isTrue("switched off, it says so", !admin.balancerSwitch(false, true));
    } finally {
      admin.balancerSwitch(before, true);
    }
  }
}
