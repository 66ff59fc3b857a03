package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Expect.throwsError;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;

/** Namespaces: create, list, describe, tables inside one, delete, and the errors. */
final class NamespaceChecks {
  private NamespaceChecks() {}

  static List<Check> all() {
    return List.of(
        new Check("namespace.builtin_namespaces_listed", NamespaceChecks::builtinNamespacesListed),
        new Check("namespace.create_list_delete", NamespaceChecks::createListDelete),
        new Check("namespace.configuration_round_trip", NamespaceChecks::configurationRoundTrip),
        new Check("namespace.table_inside_namespace", NamespaceChecks::tableInsideNamespace),
        new Check("namespace.delete_non_empty_fails", NamespaceChecks::deleteNonEmptyFails),
        new Check("namespace.duplicate_create_fails", NamespaceChecks::duplicateCreateFails),
        new Check("namespace.missing_namespace_not_found",
            NamespaceChecks::missingNamespaceNotFound));
  }

  static void builtinNamespacesListed(Run r) throws Exception {
    List<String> names = names(r.admin());
    isTrue("default and hbase in " + names, names.contains("default") && names.contains("hbase"));
    isTrue("listNamespaces agrees", Arrays.asList(r.admin().listNamespaces()).containsAll(names));
  }

  static void createListDelete(Run r) throws Exception {
    String ns = r.namespace("");
    Admin admin = r.admin();
    admin.createNamespace(NamespaceDescriptor.create(ns).build());
    isTrue("listed after create", names(admin).contains(ns));
    eq("getNamespaceDescriptor", ns, admin.getNamespaceDescriptor(ns).getName());
    eq("no tables", 0, admin.listTableNamesByNamespace(ns).length);
    admin.deleteNamespace(ns);
    isTrue("not listed after delete", !names(admin).contains(ns));
  }

  static void configurationRoundTrip(Run r) throws Exception {
    String ns = r.namespace("");
    r.admin().createNamespace(
        NamespaceDescriptor.create(ns).addConfiguration("strata.test.key", "v1").build());
    eq("configuration", "v1",
        r.admin().getNamespaceDescriptor(ns).getConfigurationValue("strata.test.key"));
    r.admin().modifyNamespace(
        NamespaceDescriptor.create(ns).addConfiguration("strata.test.key", "v2").build());
    eq("after modifyNamespace", "v2",
        r.admin().getNamespaceDescriptor(ns).getConfigurationValue("strata.test.key"));
  }

  static void tableInsideNamespace(Run r) throws Exception {
    String ns = r.namespace("");
    r.admin().createNamespace(NamespaceDescriptor.create(ns).build());
    TableName name = TableName.valueOf(ns, "t");
    r.create(AdminChecks.oneFamily(name), null);
    eq("namespace of the name", ns, name.getNamespaceAsString());
    eq("listTableNamesByNamespace", "[" + ns + ":t]",
        Arrays.toString(r.admin().listTableNamesByNamespace(ns)));
    isTrue("listTableNames has it", Arrays.asList(r.admin().listTableNames()).contains(name));
    isTrue("tableExists", r.admin().tableExists(name));
  }

  static void deleteNonEmptyFails(Run r) throws Exception {
    String ns = r.namespace("");
    r.admin().createNamespace(NamespaceDescriptor.create(ns).build());
    r.create(AdminChecks.oneFamily(TableName.valueOf(ns, "t")), null);
    // The server's ConstraintException class is not in the client jar: it arrives as a
    // RemoteWithExtrasException that names it.
    IOException e = throwsError("delete a namespace that holds a table", IOException.class,
        () -> r.admin().deleteNamespace(ns));
    isTrue("names ConstraintException: " + Show.error(e),
        Show.error(e).contains("org.apache.hadoop.hbase.constraint.ConstraintException"));
    isTrue("still listed", names(r.admin()).contains(ns));
  }

  static void duplicateCreateFails(Run r) throws Exception {
    String ns = r.namespace("");
    r.admin().createNamespace(NamespaceDescriptor.create(ns).build());
    throwsError("create it again", NamespaceExistException.class,
        () -> r.admin().createNamespace(NamespaceDescriptor.create(ns).build()));
  }

  static void missingNamespaceNotFound(Run r) throws Exception {
    String ns = r.namespace("_missing");
    Admin admin = r.admin();
    throwsError("getNamespaceDescriptor", NamespaceNotFoundException.class,
        () -> admin.getNamespaceDescriptor(ns));
    throwsError("deleteNamespace", NamespaceNotFoundException.class,
        () -> admin.deleteNamespace(ns));
    throwsError("create a table in it", NamespaceNotFoundException.class,
        () -> admin.createTable(AdminChecks.oneFamily(TableName.valueOf(ns, "t"))));
  }

  private static List<String> names(Admin admin) throws Exception {
    List<String> out = new ArrayList<>();
    for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
      out.add(d.getName());
    }
    return out;
  }
}
