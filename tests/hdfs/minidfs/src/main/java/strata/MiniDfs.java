package strata;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * Runs a MiniDFSCluster (one NameNode, two DataNodes) on loopback until the process is stopped.
 *
 * <p>Arguments: BASE_DIR NAMENODE_PORT. Prints "MINIDFS READY hdfs://127.0.0.1:PORT" once
 * the cluster takes writes, which is what scripts/minidfs-env waits for.
 */
public final class MiniDfs {
  private MiniDfs() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: MiniDfs BASE_DIR NAMENODE_PORT");
      System.exit(2);
    }
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(args[0]).getAbsolutePath());
    // Everything on loopback, on ports the OS picks (except the NameNode's, the store URL's).
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    // No permission checks for a test user.
    conf.setBoolean("dfs.permissions.enabled", false);
    // Let a file close while its last block is committed but not yet reported by the
    // DataNodes. Without it the first close of most small files is refused, and the Rust
    // client (hdfs-native 0.14) waits 500 ms before asking again: every WAL PUT took
    // ~0.5 s. The NameNode allows it only for blocks expecting more replicas than the
    // minimum (1), hence two DataNodes and two replicas.
    conf.setInt("dfs.namenode.file.close.num-committed-allowed", 1);
    conf.setInt("dfs.replication", 2);
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(conf)
            .nameNodePort(Integer.parseInt(args[1]))
            .numDataNodes(2)
            .build();
    cluster.waitActive();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));
    System.out.println("MINIDFS READY hdfs://127.0.0.1:" + cluster.getNameNodePort());
    System.out.flush();
    Thread.currentThread().join();
  }
}
