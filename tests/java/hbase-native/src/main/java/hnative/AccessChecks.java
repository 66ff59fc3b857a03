package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Expect.throwsError;

import java.util.List;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.security.access.UserPermission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Access control with SIMPLE authentication (a server with [security] authorization on and
 * the run's own user a superuser; run with --secure): another user is refused until granted,
 * then allowed exactly what it was granted, through HBase's own AccessControlClient.
 */
final class AccessChecks {
  private AccessChecks() {}

  static final String OTHER = "hn_reader";

  static List<Check> all() {
    return List.of(
        new Check("access.other_user_refused_then_granted_read_only",
            AccessChecks::refusedThenGrantedReadOnly),
        new Check("access.permissions_listed_and_revoked", AccessChecks::listedAndRevoked));
  }

  /** AccessControlClient's calls declare Throwable; a check's body throws Exception. */
  interface AclCall {
    void run() throws Throwable;
  }

  static void acl(AclCall call) throws Exception {
    try {
      call.run();
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new Exception(t);
    }
  }

  static Connection as(Run r, String user) throws Exception {
    User other = User.createUserForTesting(r.session.conf, user, new String[0]);
    return ConnectionFactory.createConnection(r.session.conf, other);
  }

  static void refusedThenGrantedReadOnly(Run r) throws Exception {
    Table own = r.table("f");
    own.put(new Put(Bytes.toBytes("r1")).addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"),
        Bytes.toBytes("v")));
    try (Connection reader = as(r, OTHER); Table theirs = reader.getTable(r.tableName())) {
      throwsError("a get before any grant", AccessDeniedException.class,
          () -> theirs.get(new Get(Bytes.toBytes("r1"))));
      acl(() -> AccessControlClient.grant(r.conn(), r.tableName(), OTHER, null, null,
          Permission.Action.READ));
      eq("the get after the grant", "v", Bytes.toString(
          theirs.get(new Get(Bytes.toBytes("r1"))).getValue(Bytes.toBytes("f"),
              Bytes.toBytes("q"))));
      AccessDeniedException denied = throwsError("a put with READ only",
          AccessDeniedException.class, () -> theirs.put(new Put(Bytes.toBytes("r2"))
              .addColumn(Bytes.toBytes("f"), Bytes.toBytes("q"), Bytes.toBytes("x"))));
      isTrue("the denial names the user: " + denied.getMessage(),
          denied.getMessage().contains(OTHER));
    }
    eq("the refused put wrote nothing", false, own.exists(new Get(Bytes.toBytes("r2"))));
  }

  static void listedAndRevoked(Run r) throws Exception {
    r.table("f");
    String table = r.tableName().getNameAsString();
    acl(() -> AccessControlClient.grant(r.conn(), r.tableName(), OTHER, null, null,
        Permission.Action.READ, Permission.Action.WRITE));
    List<List<UserPermission>> box = new java.util.ArrayList<>();
    acl(() -> box.add(AccessControlClient.getUserPermissions(r.conn(), table)));
    List<UserPermission> listed = box.get(0);
    UserPermission theirs = listed.stream().filter(p -> p.getUser().equals(OTHER)).findFirst()
        .orElseThrow(() -> new Mismatch("no permission of " + OTHER + " in " + listed));
    isTrue("READ and WRITE listed: " + theirs,
        theirs.getPermission().implies(Permission.Action.READ)
            && theirs.getPermission().implies(Permission.Action.WRITE));
    acl(() -> AccessControlClient.revoke(r.conn(), r.tableName(), OTHER, null, null,
        Permission.Action.WRITE));
    try (Connection reader = as(r, OTHER); Table t = reader.getTable(r.tableName())) {
      throwsError("a put after WRITE was revoked", AccessDeniedException.class,
          () -> t.put(new Put(Bytes.toBytes("r")).addColumn(Bytes.toBytes("f"),
              Bytes.toBytes("q"), Bytes.toBytes("x"))));
      eq("a get still allowed (no such row)", true, t.get(new Get(Bytes.toBytes("r"))).isEmpty());
    }
  }
}
