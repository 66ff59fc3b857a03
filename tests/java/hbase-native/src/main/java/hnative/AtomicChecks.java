package hnative;

import static hnative.Expect.eq;
import static hnative.Expect.isTrue;
import static hnative.Expect.throwsError;
import static hnative.Show.b;
import static hnative.Show.cells;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;

/** Row-atomic operations: increment, append, checkAndMutate, mutateRow. */
final class AtomicChecks {
  private AtomicChecks() {}

  static final byte[] CF = b("cf");
  static final byte[] ROW = b("row");

  static List<Check> all() {
    return List.of(
        new Check("atomic.increment", AtomicChecks::increment),
        new Check("atomic.increment_column_value", AtomicChecks::incrementColumnValue),
        new Check("atomic.increment_non_counter_fails", AtomicChecks::incrementNonCounterFails),
        new Check("atomic.append", AtomicChecks::append),
        new Check("atomic.check_and_mutate_if_equals_put", AtomicChecks::checkAndMutateIfEqualsPut),
        new Check("atomic.check_and_mutate_if_not_exists", AtomicChecks::checkAndMutateIfNotExists),
        new Check("atomic.check_and_mutate_if_matches_operator",
            AtomicChecks::checkAndMutateIfMatchesOperator),
        new Check("atomic.check_and_mutate_delete", AtomicChecks::checkAndMutateDelete),
        new Check("atomic.check_and_mutate_row_mutations", AtomicChecks::checkAndMutateRowMutations),
        new Check("atomic.check_and_mutate_older_builder", AtomicChecks::checkAndMutateOlderBuilder),
        new Check("atomic.check_and_mutate_with_a_filter", AtomicChecks::checkAndMutateFilter),
        new Check("atomic.mutate_row", AtomicChecks::mutateRow));
  }

  static String value(Table t, String qualifier) throws IOException {
    return Bytes.toString(t.get(new Get(ROW)).getValue(CF, b(qualifier)));
  }

  static Put put(String qualifier, String value) {
    return new Put(ROW).addColumn(CF, b(qualifier), b(value));
  }

  static void increment(Run r) throws Exception {
    Table t = r.table("cf");
    Result first = t.increment(new Increment(ROW).addColumn(CF, b("a"), 1).addColumn(CF, b("b"), 5));
    eq("first increment", "1 5", Bytes.toLong(first.getValue(CF, b("a"))) + " "
        + Bytes.toLong(first.getValue(CF, b("b"))));
    Result second = t.increment(new Increment(ROW).addColumn(CF, b("a"), 10).addColumn(CF, b("b"), -7));
    eq("second increment", "11 -2", Bytes.toLong(second.getValue(CF, b("a"))) + " "
        + Bytes.toLong(second.getValue(CF, b("b"))));
    eq("stored as 8 bytes", 8, t.get(new Get(ROW)).getValue(CF, b("a")).length);
    eq("stored value", 11L, Bytes.toLong(t.get(new Get(ROW)).getValue(CF, b("a"))));
  }

  static void incrementColumnValue(Run r) throws Exception {
    Table t = r.table("cf");
    eq("from nothing", 3L, t.incrementColumnValue(ROW, CF, b("n"), 3));
    eq("again", 10L, t.incrementColumnValue(ROW, CF, b("n"), 7));
    eq("by zero reads it", 10L, t.incrementColumnValue(ROW, CF, b("n"), 0));
    t.put(new Put(ROW).addColumn(CF, b("m"), Bytes.toBytes(Long.MAX_VALUE)));
    eq("wraps around", Long.MIN_VALUE, t.incrementColumnValue(ROW, CF, b("m"), 1));
  }

  static void incrementNonCounterFails(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(put("q", "abc"));
    // DoNotRetryIOException: the client gives up at once instead of retrying.
    throwsError("increment a 3-byte value", DoNotRetryIOException.class,
        () -> t.incrementColumnValue(ROW, CF, b("q"), 1));
    eq("value unchanged", "abc", value(t, "q"));
  }

  static void append(Run r) throws Exception {
    Table t = r.table("cf");
    Result first = t.append(new Append(ROW).addColumn(CF, b("s"), b("abc")));
    eq("append to nothing", "abc", Bytes.toString(first.getValue(CF, b("s"))));
    Result second = t.append(new Append(ROW).addColumn(CF, b("s"), b("def"))
        .addColumn(CF, b("t"), b("x")));
    eq("append again", "cf:s=abcdef cf:t=x", cells(second));
    eq("stored", "abcdef", value(t, "s"));
  }

  static void checkAndMutateIfEqualsPut(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(put("q", "old"));
    CheckAndMutateResult miss = t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifEquals(CF, b("q"), b("other")).build(put("q", "wrong")));
    isTrue("mismatch is not a success", !miss.isSuccess());
    eq("value after a mismatch", "old", value(t, "q"));
    CheckAndMutateResult hit = t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifEquals(CF, b("q"), b("old")).build(put("q", "new")));
    isTrue("match is a success", hit.isSuccess());
    eq("value after a match", "new", value(t, "q"));
  }

  /** HBase 2.4's filter conditions: the mutation applies when the row passes the filter. */
  static void checkAndMutateFilter(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(new Put(ROW).addColumn(CF, b("q"), 10, b("old")));
    Filter matching = new SingleColumnValueFilter(CF, b("q"), CompareOperator.EQUAL, b("old"));
    Filter other = new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("nope")));
    isTrue("a filter the row fails", !t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifMatches(other).build(put("a", "x"))).isSuccess());
    isTrue("a filter the row passes", t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifMatches(matching).build(put("b", "x"))).isSuccess());
    isTrue("the same filter outside the time range of the value",
        !t.checkAndMutate(CheckAndMutate.newBuilder(ROW).ifMatches(matching)
            .timeRange(TimeRange.between(0, 10)).build(put("c", "x"))).isSuccess());
    isTrue("inside it", t.checkAndMutate(CheckAndMutate.newBuilder(ROW).ifMatches(matching)
        .timeRange(TimeRange.between(10, 11)).build(new Delete(ROW).addColumn(CF, b("b"))))
        .isSuccess());
    RowMutations both = new RowMutations(ROW)
        .add((Mutation) put("d", "x"))
        .add((Mutation) new Delete(ROW).addColumns(CF, b("q")));
    isTrue("row mutations under a filter", t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifMatches(new FilterList(matching)).build(both)).isSuccess());
    eq("columns written", "cf:d=x", cells(t.get(new Get(ROW))));
  }

  static void checkAndMutateIfNotExists(Run r) throws Exception {
    Table t = r.table("cf");
    isTrue("first: absent", t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifNotExists(CF, b("lock")).build(put("lock", "me"))).isSuccess());
    isTrue("second: present", !t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifNotExists(CF, b("lock")).build(put("lock", "you"))).isSuccess());
    eq("holder", "me", value(t, "lock"));
  }

  /**
   * ifMatches(op, v) compares the given v against the stored value as "v op stored": LESS
   * succeeds when v sorts before the stored value. Measured on HBase 2.6.
   */
  static void checkAndMutateIfMatchesOperator(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(put("q", "5"));
    eq("ifMatches(LESS, 3) with 5 stored", true, t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifMatches(CF, b("q"), CompareOperator.LESS, b("3")).build(put("a", "x"))).isSuccess());
    eq("ifMatches(GREATER, 3) with 5 stored", false, t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifMatches(CF, b("q"), CompareOperator.GREATER, b("3")).build(put("b", "x"))).isSuccess());
    eq("ifMatches(NOT_EQUAL, 5)", false, t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifMatches(CF, b("q"), CompareOperator.NOT_EQUAL, b("5")).build(put("c", "x"))).isSuccess());
    eq("ifMatches(GREATER_OR_EQUAL, 5)", true, t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifMatches(CF, b("q"), CompareOperator.GREATER_OR_EQUAL, b("5")).build(put("d", "x")))
        .isSuccess());
    eq("columns written", "cf:a=x cf:d=x cf:q=5", cells(t.get(new Get(ROW))));
  }

  static void checkAndMutateDelete(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(put("q", "v").addColumn(CF, b("other"), b("o")));
    isTrue("mismatch", !t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifEquals(CF, b("q"), b("x")).build(new Delete(ROW))).isSuccess());
    eq("row intact", "cf:other=o cf:q=v", cells(t.get(new Get(ROW))));
    isTrue("match", t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifEquals(CF, b("q"), b("v")).build(new Delete(ROW).addColumns(CF, b("q")))).isSuccess());
    eq("q deleted", "cf:other=o", cells(t.get(new Get(ROW))));
  }

  static void checkAndMutateRowMutations(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(put("state", "ready").addColumn(CF, b("tmp"), b("t")));
    RowMutations rm = RowMutations.of(List.of(put("state", "done"),
        new Delete(ROW).addColumns(CF, b("tmp"))));
    isTrue("match", t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifEquals(CF, b("state"), b("ready")).build(rm)).isSuccess());
    eq("both applied", "cf:state=done", cells(t.get(new Get(ROW))));
    isTrue("second time: mismatch", !t.checkAndMutate(CheckAndMutate.newBuilder(ROW)
        .ifEquals(CF, b("state"), b("ready")).build(rm)).isSuccess());
  }

  @SuppressWarnings("deprecation")
  static void checkAndMutateOlderBuilder(Run r) throws Exception {
    Table t = r.table("cf");
    isTrue("ifNotExists then put", t.checkAndMutate(ROW, CF).qualifier(b("q")).ifNotExists()
        .thenPut(put("q", "1")));
    isTrue("ifEquals then put", t.checkAndMutate(ROW, CF).qualifier(b("q")).ifEquals(b("1"))
        .thenPut(put("q", "2")));
    isTrue("ifEquals mismatch", !t.checkAndMutate(ROW, CF).qualifier(b("q")).ifEquals(b("1"))
        .thenDelete(new Delete(ROW)));
    eq("value", "2", value(t, "q"));
  }

  static void mutateRow(Run r) throws Exception {
    Table t = r.table("cf");
    t.put(put("gone", "x"));
    t.mutateRow(RowMutations.of(List.of(put("a", "1"), put("b", "2"),
        new Delete(ROW).addColumns(CF, b("gone")))));
    eq("row", "cf:a=1 cf:b=2", cells(t.get(new Get(ROW))));
  }
}
