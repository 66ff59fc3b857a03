package strataycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.util.Bytes;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB {@link DB} over HBase's own client (hbase-client 2.x, native RPC), written for Strata's
 * tests: one record is one row, one field is one column of a single family.
 *
 * <p>YCSB makes one instance per client thread. The instances share one {@link Connection}
 * (thread-safe, opened by the first {@link #init()}, closed by the last {@link #cleanup()}); each
 * instance has its own {@link Table} and, when writes are buffered, its own
 * {@link BufferedMutator}.
 *
 * <p>Properties (YCSB's {@code -p} or a workload file):
 * <ul>
 *   <li>{@code columnfamily} (default {@code family}): the family of every field;</li>
 *   <li>{@code hbase.*}: copied into the client's configuration on top of the hbase-site.xml on
 *       the classpath (e.g. {@code hbase.zookeeper.quorum});</li>
 *   <li>{@code strata.ycsb.buffered} (default false): writes go through a BufferedMutator,
 *       flushed at cleanup; {@code strata.ycsb.buffer.bytes} sets its write buffer size;</li>
 *   <li>{@code strata.ycsb.skipwal} (default false): writes with {@link Durability#SKIP_WAL};</li>
 *   <li>{@code strata.ycsb.debug} (default false): print every failed call's exception.</li>
 * </ul>
 */
public class HBaseNativeDB extends DB {
  private static final Object SHARED_LOCK = new Object();
  private static Connection shared;
  private static int users;

  private byte[] family;
  private Table table;
  private String tableName;
  private BufferedMutator mutator;
  private boolean buffered;
  private long bufferBytes;
  private boolean skipWal;
  private boolean debug;

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    family = Bytes.toBytes(p.getProperty("columnfamily", "family"));
    buffered = Boolean.parseBoolean(p.getProperty("strata.ycsb.buffered", "false"));
    bufferBytes = Long.parseLong(p.getProperty("strata.ycsb.buffer.bytes", "2097152"));
    skipWal = Boolean.parseBoolean(p.getProperty("strata.ycsb.skipwal", "false"));
    debug = Boolean.parseBoolean(p.getProperty("strata.ycsb.debug", "false"));
    synchronized (SHARED_LOCK) {
      if (shared == null) {
        Configuration conf = HBaseConfiguration.create();
        for (String key : p.stringPropertyNames()) {
          if (key.startsWith("hbase.")) {
            conf.set(key, p.getProperty(key));
          }
        }
        try {
          shared = ConnectionFactory.createConnection(conf);
        } catch (IOException e) {
          throw new DBException("cannot connect: " + e, e);
        }
      }
      users++;
    }
  }

  @Override
  public void cleanup() throws DBException {
    IOException failure = null;
    try {
      if (mutator != null) {
        mutator.close(); // flushes what is still buffered
      }
    } catch (IOException e) {
      failure = e;
    }
    try {
      if (table != null) {
        table.close();
      }
    } catch (IOException e) {
      failure = failure == null ? e : failure;
    }
    synchronized (SHARED_LOCK) {
      users--;
      if (users == 0 && shared != null) {
        try {
          shared.close();
        } catch (IOException e) {
          failure = failure == null ? e : failure;
        }
        shared = null;
      }
    }
    if (failure != null) {
      throw new DBException("cleanup failed: " + failure, failure);
    }
  }

  /** The Table (and BufferedMutator) of this thread for the named table, opened on first use. */
  private Table tableFor(String name) throws IOException {
    if (table == null || !name.equals(tableName)) {
      if (mutator != null) {
        mutator.close();
        mutator = null;
      }
      if (table != null) {
        table.close();
      }
      TableName tn = TableName.valueOf(name);
      table = shared.getTable(tn);
      tableName = name;
      if (buffered) {
        mutator = shared.getBufferedMutator(new BufferedMutatorParams(tn).writeBufferSize(bufferBytes));
      }
    }
    return table;
  }

  private Status failed(String what, String key, Exception e) {
    if (debug) {
      System.err.println("HBaseNativeDB " + what + " " + key + ": " + e);
    }
    return Status.ERROR;
  }

  private void copyCells(Result r, Map<String, ByteIterator> into) {
    for (Cell c : r.rawCells()) {
      into.put(Bytes.toString(CellUtil.cloneQualifier(c)),
          new ByteArrayByteIterator(CellUtil.cloneValue(c)));
    }
  }

  @Override
  public Status read(String tbl, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      Get get = new Get(Bytes.toBytes(key));
      if (fields == null) {
        get.addFamily(family);
      } else {
        for (String f : fields) {
          get.addColumn(family, Bytes.toBytes(f));
        }
      }
      Result r = tableFor(tbl).get(get);
      if (r.isEmpty()) {
        return Status.NOT_FOUND;
      }
      if (result != null) {
        copyCells(r, result);
      }
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed("read", key, e);
    }
  }

  @Override
  public Status scan(String tbl, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    Scan scan = new Scan().withStartRow(Bytes.toBytes(startkey)).setCaching(recordcount);
    // The page filter stops each region's scan after recordcount rows; the client loop below
    // stops the whole scan (a page filter counts per region, not per scan).
    scan.setFilter(new FilterList(new PageFilter(recordcount)));
    if (fields == null) {
      scan.addFamily(family);
    } else {
      for (String f : fields) {
        scan.addColumn(family, Bytes.toBytes(f));
      }
    }
    try (ResultScanner rs = tableFor(tbl).getScanner(scan)) {
      int rows = 0;
      while (rows < recordcount) {
        Result r = rs.next();
        if (r == null) {
          break;
        }
        HashMap<String, ByteIterator> row = new HashMap<>();
        copyCells(r, row);
        if (result != null) {
          result.add(row);
        }
        rows++;
      }
      return rows == 0 ? Status.NOT_FOUND : Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed("scan", startkey, e);
    }
  }

  private Status write(String what, String tbl, String key, Mutation m) {
    try {
      Table t = tableFor(tbl);
      if (skipWal) {
        m.setDurability(Durability.SKIP_WAL);
      }
      if (mutator != null) {
        mutator.mutate(m);
      } else if (m instanceof Put) {
        t.put((Put) m);
      } else {
        t.delete((Delete) m);
      }
      return Status.OK;
    } catch (IOException | RuntimeException e) {
      return failed(what, key, e);
    }
  }

  private static Put putOf(String key, byte[] family, Map<String, ByteIterator> values) {
    Put put = new Put(Bytes.toBytes(key));
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      put.addColumn(family, Bytes.toBytes(e.getKey()), e.getValue().toArray());
    }
    return put;
  }

  @Override
  public Status update(String tbl, String key, Map<String, ByteIterator> values) {
    return write("update", tbl, key, putOf(key, family, values));
  }

  @Override
  public Status insert(String tbl, String key, Map<String, ByteIterator> values) {
    return write("insert", tbl, key, putOf(key, family, values));
  }

  @Override
  public Status delete(String tbl, String key) {
    return write("delete", tbl, key, new Delete(Bytes.toBytes(key)));
  }
}
