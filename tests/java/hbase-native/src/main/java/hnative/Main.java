package hnative;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;

/**
 * Runs the checks of HBase's Java client against one server and prints a line per check:
 * "ok NAME (time)" or "FAIL NAME: reason". Exits 1 if any check failed, 2 on bad arguments.
 *
 * <pre>
 *   --zk HOST:PORT          discover the cluster through ZooKeeper
 *   --bootstrap HOST:PORT   discover it through the RPC registry (hbase.client.bootstrap.servers)
 *   --only GROUP,...        run only these groups (see GROUPS)
 *   --check-timeout SECS    fail a check that takes longer (default 60)
 *   --secure                the server checks permissions, and this run's user is a
 *                           superuser: also run the access group (give it before --only)
 *   --list                  print the check names and exit
 *   --churn STOP_FILE       instead of the checks: write until STOP_FILE appears, then read
 *                           every acknowledged write back (see Churn)
 * </pre>
 */
public final class Main {
  /** The groups in the order a server can be brought up, each with its checks. */
  static final Map<String, List<Check>> GROUPS = new LinkedHashMap<>();

  static {
    GROUPS.put("connect", ConnectChecks.all());
    GROUPS.put("admin", AdminChecks.all());
    GROUPS.put("namespace", NamespaceChecks.all());
    GROUPS.put("data", DataChecks.all());
    GROUPS.put("scan", ScanChecks.all());
    GROUPS.put("mutator", MutatorChecks.all());
    GROUPS.put("atomic", AtomicChecks.all());
    GROUPS.put("filter", FilterChecks.all());
    GROUPS.put("async", AsyncChecks.all());
    GROUPS.put("regions", RegionChecks.all());
    GROUPS.put("snapshot", SnapshotChecks.all());
  }

  /** Run only with --secure: they expect a server that checks permissions. */
  static final Map<String, List<Check>> SECURE_GROUPS = Map.of("access", AccessChecks.all());

  /** Checks in a row that find no server before the run stops (keeps a dead server's run short). */
  static final int GIVE_UP_AFTER = 3;
  static final String TIMED_OUT = "timed out";

  static boolean unanswered(String failure) {
    return failure != null && (failure.startsWith(TIMED_OUT)
        || failure.contains("Connection refused") || failure.contains("ConnectException")
        || failure.contains("ConnectionLoss"));
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    List<String> groups = new ArrayList<>(GROUPS.keySet());
    long timeoutSecs = 60;
    String discovery = null;
    String churnStopFile = null;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--zk" -> {
          String[] hp = hostPort(value);
          conf.set("hbase.zookeeper.quorum", hp[0]);
          conf.set("hbase.zookeeper.property.clientPort", hp[1]);
          discovery = "zookeeper " + value;
          i++;
        }
        case "--bootstrap" -> {
          hostPort(value);
          conf.set("hbase.client.registry.impl",
              "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
          conf.set("hbase.client.bootstrap.servers", value);
          discovery = "bootstrap " + value;
          i++;
        }
        case "--secure" -> {
          GROUPS.putAll(SECURE_GROUPS);
          groups = new ArrayList<>(GROUPS.keySet());
        }
        case "--only" -> {
          groups = Arrays.asList(value.split(","));
          for (String g : groups) {
            if (!GROUPS.containsKey(g)) {
              die("unknown group " + g + " (groups: " + String.join(",", GROUPS.keySet()) + ")");
            }
          }
          i++;
        }
        case "--check-timeout" -> {
          if (!value.matches("[0-9]+")) {
            die("--check-timeout wants seconds, got '" + value + "'");
          }
          timeoutSecs = Long.parseLong(value);
          i++;
        }
        case "--churn" -> {
          churnStopFile = value;
          i++;
        }
        case "--list" -> {
          GROUPS.values().forEach(cs -> cs.forEach(c -> System.out.println(c.name())));
          return;
        }
        default -> die("unknown argument " + args[i]);
      }
    }
    if (discovery == null) {
      die("give --zk HOST:PORT or --bootstrap HOST:PORT");
    }
    failFast(conf);
    String prefix = "hn" + Long.toString(System.currentTimeMillis() / 1000 % 1_000_000_000L, 36)
        + Long.toString(ProcessHandle.current().pid(), 36) + "_";
    if (churnStopFile != null) {
      System.exit(Churn.run(conf, prefix, java.nio.file.Path.of(churnStopFile)));
    }
    System.out.println("hbase-native: " + discovery + ", groups " + String.join(",", groups)
        + ", table prefix " + prefix);
    int failed = 0;
    int passed = 0;
    ExecutorService pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "check");
      t.setDaemon(true);
      return t;
    });
    List<Check> selected = new ArrayList<>();
    for (String g : groups) {
      selected.addAll(GROUPS.get(g));
    }
    try (Session session = new Session(conf, prefix)) {
      int unansweredInARow = 0;
      for (int i = 0; i < selected.size(); i++) {
        if (unansweredInARow == GIVE_UP_AFTER) {
          int rest = selected.size() - i;
          System.out.println("FAIL " + rest + " checks not run: " + unansweredInARow
              + " checks in a row timed out or found no server to connect to");
          failed += rest;
          break;
        }
        String failure = runOne(pool, session, selected.get(i), timeoutSecs);
        if (failure == null) {
          passed++;
        } else {
          failed++;
        }
        unansweredInARow = unanswered(failure) ? unansweredInARow + 1 : 0;
      }
      sweep(pool, session);
    }
    System.out.println("hbase-native: " + passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }

  /** Retries and timeouts small enough that a missing server answer fails a check quickly. */
  static void failFast(Configuration conf) {
    conf.setInt("hbase.client.retries.number", 3);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 5000);
    conf.setInt("hbase.client.operation.timeout", 20000);
    conf.setInt("hbase.client.meta.operation.timeout", 20000);
    conf.setInt("hbase.client.scanner.timeout.period", 20000);
    // How long a synchronous Admin call waits for its master procedure (default 10 min).
    conf.setInt("hbase.client.sync.wait.timeout.msec", 15000);
    conf.setInt("zookeeper.recovery.retry", 1);
    conf.setInt("zookeeper.session.timeout", 20000);
  }

  /** Runs one check and prints its line; returns null when it passed, else the failure. */
  private static String runOne(ExecutorService pool, Session session, Check c, long timeoutSecs) {
    Run run = new Run(session, c.name());
    long start = System.nanoTime();
    Future<?> f = pool.submit(() -> {
      try {
        c.body().run(run);
      } finally {
        run.cleanup();
      }
      return null;
    });
    String failure = null;
    try {
      f.get(timeoutSecs, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      failure = TIMED_OUT + " after " + timeoutSecs + " s";
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      failure = cause instanceof Mismatch ? cause.getMessage() : "threw " + Show.error(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = "interrupted";
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    if (failure == null) {
      System.out.println("ok " + c.name() + " (" + ms + " ms)");
    } else {
      System.out.println("FAIL " + c.name() + ": " + failure + " [" + ms + " ms]");
    }
    return failure;
  }

  /** Drops whatever a timed-out or failed check left behind under this run's prefix. */
  private static void sweep(ExecutorService pool, Session session) {
    Future<?> f = pool.submit(() -> {
      Admin admin = session.admin();
      for (TableName t : admin.listTableNames(Pattern.compile(session.prefix + ".*"))) {
        Run.drop(admin, t);
      }
      for (NamespaceDescriptor ns : admin.listNamespaceDescriptors()) {
        if (ns.getName().startsWith(session.prefix)) {
          Run.dropNamespace(admin, ns.getName());
        }
      }
      return null;
    });
    try {
      f.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      f.cancel(true);
      System.out.println("hbase-native: could not drop this run's leftovers: " + Show.error(e));
    }
  }

  private static String[] hostPort(String value) {
    String[] hp = value.split(":");
    if (hp.length != 2 || hp[0].isEmpty() || !hp[1].matches("[0-9]+")) {
      die("expected HOST:PORT, got '" + value + "'");
    }
    return hp;
  }

  private static void die(String problem) {
    System.err.println("hbase-native: " + problem);
    System.err.println("usage: Main (--zk HOST:PORT | --bootstrap HOST:PORT) [--only GROUP,...]"
        + " [--check-timeout SECS] [--list] [--churn STOP_FILE]");
    System.exit(2);
  }
}
