package smoke;

import static smoke.Checks.expect;
import static smoke.ReadChecks.b;
import static smoke.Smoke.CF;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

/** Row atomicity seen from several client threads at once (one shared Connection). */
final class ConcurrencyChecks {
  private static final int THREADS = 8;
  private static final int PER_THREAD = 100;

  private final Checks c;
  private final Table table;

  ConcurrencyChecks(Checks c, Table table) {
    this.c = c;
    this.table = table;
  }

  void run() {
    c.check(THREADS + " threads x " + PER_THREAD + " increments of one counter lose none", () -> {
      List<Long> all = runAll(() -> {
        long last = 0;
        for (int i = 0; i < PER_THREAD; i++) {
          long now = table.incrementColumnValue(b("race-ctr"), CF, b("n"), 1);
          if (now <= last) {
            throw new IllegalStateException("counter went from " + last + " to " + now);
          }
          last = now;
        }
        return last;
      });
      long total = THREADS * PER_THREAD;
      expect("final value", total,
          Bytes.toLong(table.get(new Get(b("race-ctr"))).getValue(CF, b("n"))));
      expect("some thread saw the final value", true, all.contains(total));
    });
    c.check(THREADS + " threads race checkAndMutate ifNotExists: exactly one wins", () -> {
      List<Long> wins = runAll(() -> {
        String me = Thread.currentThread().getName();
        boolean won = table.checkAndMutate(b("race-lock"), CF).qualifier(b("owner"))
            .ifNotExists().thenPut(new Put(b("race-lock")).addColumn(CF, b("owner"), b(me)));
        return won ? 1L : 0L;
      });
      expect("winners", 1L, wins.stream().mapToLong(Long::longValue).sum());
    });
    c.check(THREADS + " threads append to one cell: every piece is there once", () -> {
      runAll(() -> {
        for (int i = 0; i < 20; i++) {
          table.append(new org.apache.hadoop.hbase.client.Append(b("race-app"))
              .addColumn(CF, b("s"), b("x")));
        }
        return 0L;
      });
      byte[] v = table.get(new Get(b("race-app"))).getValue(CF, b("s"));
      expect("length", THREADS * 20, v == null ? 0 : v.length);
    });
  }

  private static List<Long> runAll(Callable<Long> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<Long>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        futures.add(pool.submit(task));
      }
      List<Long> out = new ArrayList<>();
      for (Future<Long> f : futures) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
