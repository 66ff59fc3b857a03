package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Expect.throwsError;
import static hnative.Show.b;

import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.SnapshotDescription;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.snapshot.SnapshotExistsException;

/** Snapshots through Admin: take, list, restore, clone, delete, and their errors. */
final class SnapshotChecks {
  private SnapshotChecks() {}

  static List<Check> all() {
    return List.of(
        new Check("snapshot.take_list_restore_clone_delete", SnapshotChecks::lifecycle),
        new Check("snapshot.duplicate_name_fails", SnapshotChecks::duplicate));
  }

  private static String snapshotName(Run r, String suffix) {
    return r.tableName(suffix).getNameAsString();
  }

  private static boolean listed(Admin admin, String name, TableName table) throws Exception {
    for (SnapshotDescription d : admin.listSnapshots()) {
      if (d.getName().equals(name)) {
        return d.getTableName().equals(table);
      }
    }
    return false;
  }

  static void lifecycle(Run r) throws Exception {
    Table t = r.table(AdminChecks.SPLITS, "cf");
    TableName name = r.tableName();
    for (String row : new String[] {"a", "h", "z"}) {
      t.put(new Put(b(row)).addColumn(b("cf"), b("q"), b("v1")));
    }
    Admin admin = r.admin();
    String snap = snapshotName(r, "_s");
    admin.snapshot(snap, name);
    try {
      isTrue("listed with its table", listed(admin, snap, name));
      t.put(new Put(b("m")).addColumn(b("cf"), b("q"), b("later")));
      t.put(new Put(b("a")).addColumn(b("cf"), b("q"), b("v2")));
      TableName clone = r.track(r.tableName("_clone"));
      admin.cloneSnapshot(snap, clone);
      isTrue("the clone is enabled", admin.isTableEnabled(clone));
      eq("the clone's rows", "a{cf:q=v1} h{cf:q=v1} z{cf:q=v1}",
          Show.rowsWithCells(r.open(clone).getScanner(new Scan())));
      admin.disableTable(name);
      admin.restoreSnapshot(snap);
      admin.enableTable(name);
      eq("the restored table's rows", "a{cf:q=v1} h{cf:q=v1} z{cf:q=v1}",
          Show.rowsWithCells(t.getScanner(new Scan())));
      eq("the restored table's regions", "[,g) [g,p) [p,)",
          AdminChecks.bounds(admin.getRegions(name)));
    } finally {
      admin.deleteSnapshot(snap);
    }
    isTrue("no longer listed", !listed(admin, snap, name));
  }

  static void duplicate(Run r) throws Exception {
    r.table("cf");
    Admin admin = r.admin();
    String snap = snapshotName(r, "_s");
    admin.snapshot(snap, r.tableName());
    try {
      throwsError("a second snapshot of the same name", SnapshotExistsException.class,
          () -> admin.snapshot(snap, r.tableName()));
    } finally {
      admin.deleteSnapshot(snap);
    }
  }
}
