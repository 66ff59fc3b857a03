package hnative;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.util.Bytes;

/** Renders results as short strings, so that expected and actual values print the same way. */
final class Show {
  private Show() {}

  static byte[] b(String s) {
    return Bytes.toBytes(s);
  }

  /** "cf:a=v1 cf2:b=v2": the cells of a result in the order the server returned them. */
  static String cells(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.rawCells()) {
      out.add(column(c) + "=" + Bytes.toStringBinary(CellUtil.cloneValue(c)));
    }
    return String.join(" ", out);
  }

  /** "cf:a=v3@300 cf:a=v2@200": cells with their timestamps. */
  static String versions(Result r) {
    List<String> out = new ArrayList<>();
    for (Cell c : r.rawCells()) {
      out.add(column(c) + "=" + Bytes.toStringBinary(CellUtil.cloneValue(c)) + "@"
          + c.getTimestamp());
    }
    return String.join(" ", out);
  }

  static String column(Cell c) {
    return Bytes.toStringBinary(CellUtil.cloneFamily(c)) + ":"
        + Bytes.toStringBinary(CellUtil.cloneQualifier(c));
  }

  /** "r1,r2": the row keys of a scanner, which this closes. */
  static String rows(ResultScanner scanner) {
    List<String> out = new ArrayList<>();
    try (scanner) {
      for (Result r : scanner) {
        out.add(Bytes.toStringBinary(r.getRow()));
      }
    }
    return String.join(",", out);
  }

  /** The number of results a scanner returns; closes it. */
  static int count(ResultScanner scanner) {
    int n = 0;
    try (scanner) {
      for (Result ignored : scanner) {
        n++;
      }
    }
    return n;
  }

  static String rows(List<Result> results) {
    List<String> out = new ArrayList<>();
    for (Result r : results) {
      out.add(Bytes.toStringBinary(r.getRow()));
    }
    return String.join(",", out);
  }

  /** "r1{cf:a=1} r2{cf:b=2}": rows with their cells; closes the scanner. */
  static String rowsWithCells(ResultScanner scanner) {
    List<String> out = new ArrayList<>();
    try (scanner) {
      for (Result r : scanner) {
        out.add(Bytes.toStringBinary(r.getRow()) + "{" + cells(r) + "}");
      }
    }
    return String.join(" ", out);
  }

  /** A throwable and its causes on one line. */
  static String error(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = t; c != null && s.length() < 700; c = c.getCause() == c ? null : c.getCause()) {
      if (s.length() > 0) {
        s.append(" <- ");
      }
      s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
    }
    return s.toString().replace('\n', ' ');
  }
}
