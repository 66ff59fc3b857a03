package hnative;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * What the checks of one run share: the client configuration, the run-unique prefix of every
 * table and namespace they create, and one connection of each kind, opened on first use.
 */
final class Session implements AutoCloseable {
  final Configuration conf;
  final String prefix;
  private Connection conn;
  private Admin admin;
  private AsyncConnection async;

  Session(Configuration conf, String prefix) {
    this.conf = conf;
    this.prefix = prefix;
  }

  synchronized Connection conn() throws IOException {
    if (conn == null) {
      conn = ConnectionFactory.createConnection(conf);
    }
    return conn;
  }

  synchronized Admin admin() throws IOException {
    if (admin == null) {
      admin = conn().getAdmin();
    }
    return admin;
  }

  synchronized AsyncConnection async() throws Exception {
    if (async == null) {
      async = ConnectionFactory.createAsyncConnection(conf).get(30, TimeUnit.SECONDS);
    }
    return async;
  }

  @Override
  public synchronized void close() {
    for (AutoCloseable c : new AutoCloseable[] {admin, conn, async}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        System.err.println("closing " + c.getClass().getSimpleName() + ": " + Show.error(e));
      }
    }
  }
}
