package hnative;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The context of one check: names derived from the check's name and the run's prefix, and the
 * tables and namespaces the check created, which {@link #cleanup} drops afterwards.
 */
final class Run {
  final Session session;
  final String check;
  private final List<TableName> tables = new ArrayList<>();
  private final List<Table> opened = new ArrayList<>();
  private final List<String> namespaces = new ArrayList<>();

  Run(Session session, String check) {
    this.session = session;
    this.check = check;
  }

  Connection conn() throws IOException {
    return session.conn();
  }

  Admin admin() throws IOException {
    return session.admin();
  }

  AsyncConnection async() throws Exception {
    return session.async();
  }

  /** Prints a fact about the server's behaviour that the check recorded (not a failure). */
  void note(String fact) {
    System.out.println("note " + check + ": " + fact);
  }

  /** A table name of this check, in the default namespace; {@code suffix} tells several apart. */
  TableName tableName(String suffix) {
    return TableName.valueOf(baseName() + suffix);
  }

  TableName tableName() {
    return tableName("");
  }

  /** A namespace name of this check, dropped by {@link #cleanup} (with its tables). */
  String namespace(String suffix) {
    String ns = baseName() + suffix;
    namespaces.add(ns);
    return ns;
  }

  private String baseName() {
    return session.prefix + check.replace('.', '_');
  }

  /** Creates this check's table with the given families (VERSIONS 3 each) and opens it. */
  Table table(String... families) throws IOException {
    return table(null, families);
  }

  /** Like {@link #table(String...)}, pre-split at the given keys. */
  Table table(byte[][] splits, String... families) throws IOException {
    TableDescriptorBuilder d = TableDescriptorBuilder.newBuilder(tableName());
    for (String f : families) {
      d.setColumnFamily(
          ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(f)).setMaxVersions(3).build());
    }
    return open(create(d.build(), splits));
  }

  /** Creates a table and remembers it for {@link #cleanup}. */
  TableName create(TableDescriptor d, byte[][] splits) throws IOException {
    tables.add(d.getTableName());
    if (splits == null) {
      admin().createTable(d);
    } else {
      admin().createTable(d, splits);
    }
    return d.getTableName();
  }

  /** Remembers a table created some other way (say through AsyncAdmin) for {@link #cleanup}. */
  TableName track(TableName name) {
    tables.add(name);
    return name;
  }

  Table open(TableName name) throws IOException {
    Table t = conn().getTable(name);
    opened.add(t);
    return t;
  }

  /** Closes the tables this check opened and drops the tables and namespaces it created. */
  void cleanup() throws IOException {
    for (Table t : opened) {
      t.close();
    }
    for (TableName t : tables) {
      drop(admin(), t);
    }
    for (String ns : namespaces) {
      dropNamespace(admin(), ns);
    }
  }

  static void drop(Admin admin, TableName t) throws IOException {
    try {
      if (admin.isTableEnabled(t)) {
        admin.disableTable(t);
      }
      admin.deleteTable(t);
    } catch (TableNotFoundException gone) {
      // The check dropped it itself, or never got to create it.
    }
  }

  static void dropNamespace(Admin admin, String ns) throws IOException {
    boolean exists = false;
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      exists |= d.getName().equals(ns);
    }
    if (!exists) {
      return;
    }
    for (TableName t : admin.listTableNamesByNamespace(ns)) {
      drop(admin, t);
    }
    admin.deleteNamespace(ns);
  }
}
