// Creates YCSB's table on the HBase anchor through HBase's Java Admin API: `usertable` with the
// one family `family`, pre-split into N regions on YCSB's key prefixes (user1 .. user9), so
// HBase gets the same region layout as Strata in bench/ycsb-compare.sh.
// Run as a source file: java -cp <anchor classpath> CreateUsertable.java N
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

public class CreateUsertable {
  public static void main(String[] args) throws Exception {
    int regions = Integer.parseInt(args[0]);
    try (Connection connection = ConnectionFactory.createConnection(HBaseConfiguration.create());
        Admin admin = connection.getAdmin()) {
      TableName name = TableName.valueOf("usertable");
      if (admin.tableExists(name)) {
        admin.disableTable(name);
        admin.deleteTable(name);
      }
      byte[][] splits = new byte[regions - 1][];
      for (int i = 1; i < regions; i++) {
        splits[i - 1] = Bytes.toBytes("user" + (i * 10 / regions));
      }
      admin.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of("family"))
              .build(),
          splits);
      System.out.println("created usertable with " + regions + " regions");
    }
  }
}
