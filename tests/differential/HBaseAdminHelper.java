// The admin calls HBase's Thrift1 API lacks, for the differential test: a flush that waits,
// and a major compaction that waits. Runs as one long-lived JVM on the HBase anchor's
// classpath (started by hbase_admin.sh), reading one command per line on stdin and answering
// one line on stdout: "ok" or "error <message>".
//
//   flush <table>   Admin.flush (synchronous in HBase 2.6)
//   settle <table>  Admin.flush, then Admin.compact (a minor compaction: the files HBase's
//                   policy picks, as after any flush), then waits until the table's
//                   compaction state is NONE
//   major <table>   Admin.flush, then Admin.majorCompact, then waits until the table's
//                   compaction state is NONE (the state is set while the request is
//                   selected, before majorCompact returns)
//   quit
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

public class HBaseAdminHelper {
  static void waitForCompactions(Admin admin, TableName table) throws Exception {
    long deadline = System.currentTimeMillis() + 120_000;
    while (admin.getCompactionState(table) != CompactionState.NONE) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("compaction still running after 120 s");
      }
      Thread.sleep(20);
    }
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      System.out.println("ready");
      System.out.flush();
      String line;
      while ((line = in.readLine()) != null) {
        String[] parts = line.trim().split(" ", 2);
        if (parts[0].equals("quit")) {
          break;
        }
        try {
          if (parts.length != 2) {
            throw new IllegalArgumentException("usage: flush|settle|major <table>");
          }
          TableName table = TableName.valueOf(parts[1]);
          switch (parts[0]) {
            case "flush":
              admin.flush(table);
              break;
            case "settle":
              admin.flush(table);
              admin.compact(table);
              waitForCompactions(admin, table);
              break;
            case "major":
              admin.flush(table);
              admin.majorCompact(table);
              waitForCompactions(admin, table);
              break;
            default:
              throw new IllegalArgumentException("unknown command " + parts[0]);
          }
          System.out.println("ok");
        } catch (Exception e) {
          System.out.println("error " + String.valueOf(e).replace('\n', ' '));
        }
        System.out.flush();
      }
    }
  }
}
