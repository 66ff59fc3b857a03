package smoke;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Runs named checks, prints one line per check ("ok  what" or "FAIL what: expected vs actual")
 * and counts failures. A check is a block of code that throws {@link Mismatch} (through
 * {@link #expect}) when the server's answer is not the HBase one.
 */
final class Checks {
  interface Body {
    void run() throws Exception;
  }

  /** The first difference a check found between what HBase would answer and what came back. */
  static final class Mismatch extends Exception {
    Mismatch(String what, Object expected, Object actual) {
      super(what + ": " + expected + " vs " + actual);
    }
  }

  private int passed;
  private int failed;
  private int refusedByClient;

  /** Runs one check: every {@link #expect} in it must hold and nothing may throw. */
  void check(String what, Body body) {
    try {
      body.run();
      passed++;
      System.out.println("ok    " + what);
    } catch (Mismatch m) {
      failed++;
      System.out.println("FAIL  " + what + ": " + m.getMessage());
    } catch (Throwable t) {
      failed++;
      System.out.println("FAIL  " + what + ": threw " + describe(t));
    }
  }

  /**
   * Runs a check of a call that bigtable-hbase documents as unsupported on Bigtable. The client
   * refusing it before any RPC (an exception with no gRPC status in its causes) is reported as
   * "client" and does not fail the run; an answer from the server is checked like any other.
   */
  void checkOrClientRefuses(String what, Body body) {
    try {
      body.run();
      passed++;
      System.out.println("ok    " + what);
    } catch (Mismatch m) {
      failed++;
      System.out.println("FAIL  " + what + ": " + m.getMessage());
    } catch (Throwable t) {
      if (cameFromServer(t)) {
        failed++;
        System.out.println("FAIL  " + what + ": threw " + describe(t));
      } else {
        refusedByClient++;
        System.out.println("client " + what + ": refused by bigtable-hbase: " + describe(t));
      }
    }
  }

  static void expect(String what, Object expected, Object actual) throws Mismatch {
    if (!String.valueOf(expected).equals(String.valueOf(actual))) {
      throw new Mismatch(what, expected, actual);
    }
  }

  /** Checks that the body fails with an error that the server sent (a gRPC status). */
  static void expectServerError(String what, Body body) throws Mismatch {
    try {
      body.run();
    } catch (Throwable t) {
      if (cameFromServer(t)) {
        return;
      }
      throw new Mismatch(what, "an error from the server", describe(t));
    }
    throw new Mismatch(what, "an error from the server", "success");
  }

  int failures() {
    return failed;
  }

  String summary() {
    return passed + " passed, " + failed + " failed" + ", " + refusedByClient + " skipped";
  }

  /** True when a gRPC status (io.grpc or gax's ApiException) is among the causes. */
  static boolean cameFromServer(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      // The client shades grpc and gax under com.google.bigtable.repackaged.
      String name = c.getClass().getName();
      if (name.endsWith("io.grpc.StatusRuntimeException")
          || name.endsWith("io.grpc.StatusException")
          || name.contains("com.google.api.gax.rpc.")) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }

  static String describe(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = t; c != null && s.length() < 600; c = c.getCause()) {
      if (s.length() > 0) {
        s.append(" <- ");
      }
      s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
      if (c.getCause() == c) {
        break;
      }
    }
    return s.toString().replace('\n', ' ');
  }

  // ---- rendering of results, so that expected and actual print the same way ----

  /** "cf:a=v1 cf2:c=c1": the cells of one row, in the order the server returned them. */
  static String cells(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.listCells() == null ? List.<Cell>of() : r.listCells()) {
      out.add(family(c) + ":" + qualifier(c) + "=" + value(c));
    }
    return String.join(" ", out);
  }

  /** "v3@300 v2@200": values with their HBase timestamps (ms), newest first as returned. */
  static String versions(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.listCells() == null ? List.<Cell>of() : r.listCells()) {
      out.add(value(c) + "@" + c.getTimestamp());
    }
    return String.join(" ", out);
  }

  /** "row-01,row-02": the row keys a scanner returns, in order. */
  static String rows(ResultScanner scanner) {
    List<String> out = new ArrayList<>();
    for (Result r : scanner) {
      out.add(Bytes.toString(r.getRow()));
    }
    scanner.close();
    return String.join(",", out);
  }

  /** "row-01{cf:a=a1} row-03{cf:b=b3}": rows with their cells, in order. */
  static String rowsWithCells(ResultScanner scanner) {
    List<String> out = new ArrayList<>();
    for (Result r : scanner) {
      out.add(Bytes.toString(r.getRow()) + "{" + cells(r) + "}");
    }
    scanner.close();
    return String.join(" ", out);
  }

  /** The family map of a Result, rendered like {@link #cells}, to check the map view too. */
  static String familyMap(Result r) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<byte[], NavigableMap<byte[], byte[]>> f : r.getNoVersionMap().entrySet()) {
      for (Map.Entry<byte[], byte[]> q : f.getValue().entrySet()) {
        out.add(Bytes.toString(f.getKey()) + ":" + Bytes.toString(q.getKey()) + "="
            + Bytes.toString(q.getValue()));
      }
    }
    return String.join(" ", out);
  }

  private static String family(Cell c) {
    return Bytes.toString(CellUtil.cloneFamily(c));
  }

  private static String qualifier(Cell c) {
    return Bytes.toString(CellUtil.cloneQualifier(c));
  }

  private static String value(Cell c) {
    return Bytes.toString(CellUtil.cloneValue(c));
  }
}
