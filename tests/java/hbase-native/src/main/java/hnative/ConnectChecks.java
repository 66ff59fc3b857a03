package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.TreeSet;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.ClusterMetrics.Option;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionLocator;

/** Connecting and the calls every client makes first: cluster id, table list, cluster status. */
final class ConnectChecks {
  private ConnectChecks() {}

  static List<Check> all() {
    return List.of(
        new Check("connect.connection_opens", ConnectChecks::connectionOpens),
        new Check("connect.meta_region_location", ConnectChecks::metaRegionLocation),
        new Check("connect.cluster_id", ConnectChecks::clusterId),
        new Check("connect.list_table_names_hides_system_tables",
            ConnectChecks::listTableNamesHidesSystemTables),
        new Check("connect.cluster_metrics", ConnectChecks::clusterMetrics));
  }

  static void connectionOpens(Run r) throws Exception {
    isTrue("connection is open", !r.conn().isClosed());
    isTrue("admin is on the connection", r.admin().getConnection() == r.conn());
  }

  /** The first thing a client looks up: where hbase:meta is (from ZooKeeper or the registry). */
  static void metaRegionLocation(Run r) throws Exception {
    try (RegionLocator locator = r.conn().getRegionLocator(TableName.META_TABLE_NAME)) {
      HRegionLocation meta = locator.getRegionLocation(HConstants.EMPTY_START_ROW, true);
      isTrue("a meta region", meta.getRegion().isMetaRegion());
      isTrue("a server for it", meta.getServerName() != null);
      r.note("hbase:meta on " + meta.getServerName());
    }
  }

  static void clusterId(Run r) throws Exception {
    String id = r.admin().getClusterMetrics(EnumSet.of(Option.CLUSTER_ID)).getClusterId();
    isTrue("cluster id is not empty: " + id, id != null && !id.isEmpty());
    eq("cluster id asked twice", id,
        r.admin().getClusterMetrics(EnumSet.of(Option.CLUSTER_ID)).getClusterId());
  }

  static void listTableNamesHidesSystemTables(Run r) throws Exception {
    for (TableName t : r.admin().listTableNames()) {
      isTrue("listTableNames lists a system table: " + t, !t.isSystemTable());
    }
    isTrue("hbase:meta exists", r.admin().tableExists(TableName.META_TABLE_NAME));
  }

  static void clusterMetrics(Run r) throws Exception {
    ClusterMetrics m = r.admin().getClusterMetrics();
    isTrue("a master: " + m.getMasterName(), m.getMasterName() != null);
    isTrue("at least one live region server: " + m.getLiveServerMetrics().keySet(),
        !m.getLiveServerMetrics().isEmpty());
    isTrue("a version: " + m.getHBaseVersion(),
        m.getHBaseVersion() != null && !m.getHBaseVersion().isEmpty());
    eq("region servers from Admin.getRegionServers", new TreeSet<>(m.getLiveServerMetrics().keySet()),
        new TreeSet<>(r.admin().getRegionServers()));
    r.note("master " + m.getMasterName() + ", version " + m.getHBaseVersion());
  }
}
