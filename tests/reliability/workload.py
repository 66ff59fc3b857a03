"""The crash test's mixed load: one worker per thread, each on its own rows.

Row kinds (per worker `w`):
* `d<w>-<i>`: puts of several columns in two families, through happybase batches
  (mutateRowsTs, several rows per call), and deletes of every kind Thrift1 has: a column
  (all versions), a column through deleteAllTs, a family, the whole row (deleteAllRowTs).
  Every put and delete carries an explicit, strictly increasing timestamp, so each delete
  covers exactly the writes before it.
* `n<w>-<i>`: counters (happybase counter_inc = atomicIncrement).
* `a<w>-<i>`: appends (raw thriftpy2 append).
* `c<w>-<i>`: check-and-put (raw thriftpy2 checkAndPut), with checks that must pass and
  checks that must fail.
"""

import random
import struct

import happybase

from ledger import Failure
from server import H, raw_client

TABLE = b"crash"
FAMILIES = {"cf": {"max_versions": 3}, "cg": {"max_versions": 1}}
DATA_COLUMNS = [b"cf:a", b"cf:b", b"cf:c", b"cg:x", b"cg:y"]
ROWS_PER_KIND = 40
# Exceptions that mean the test itself is wrong, never the server.
PROGRAMMING_ERRORS = (AttributeError, TypeError, NameError, KeyError, IndexError)


def create_table(port):
    conn = happybase.Connection("127.0.0.1", port, timeout=30_000)
    try:
        if TABLE not in conn.tables():
            conn.create_table(TABLE, FAMILIES)
    finally:
        conn.close()


class Worker:
    """Runs random operations until `stop` is set or a call fails (the server died)."""

    def __init__(self, index, port, ledger, rng, clock_start, stop):
        self.index = index
        self.port = port
        self.ledger = ledger
        self.rng = rng
        self.clock = clock_start
        self.stop = stop
        self.errors = []  # (op, repr(exception)) of calls that failed
        self.problems = []  # Failure texts found while running (wrong replies)

    def row(self, kind):
        return b"%s%d-%03d" % (kind, self.index, self.rng.randrange(ROWS_PER_KIND))

    def tick(self):
        self.clock += 1
        return self.clock

    def run(self):
        try:
            conn = happybase.Connection("127.0.0.1", self.port, timeout=30_000)
            raw, transport = raw_client(self.port)
        except Exception as e:  # noqa: BLE001 - the server died before we connected
            self.errors.append(("connect", repr(e)))
            return
        table = conn.table(TABLE)
        ops = [
            (30, self.batch_put, table),
            (6, self.delete_column, raw),
            (4, self.delete_all_ts, raw),
            (4, self.delete_family, table),
            (3, self.delete_row, raw),
            (15, self.increment, table),
            (12, self.append, raw),
            (12, self.check_and_put, raw),
        ]
        weights = [w for w, _, _ in ops]
        try:
            while not self.stop.is_set():
                _, op, client = self.rng.choices(ops, weights)[0]
                try:
                    op(client)
                except Failure as f:
                    self.problems.append(str(f))
                    return
                except PROGRAMMING_ERRORS as e:
                    self.problems.append("crash test bug in %s: %r" % (op.__name__, e))
                    return
                except Exception as e:  # noqa: BLE001 - connection loss or a server error
                    self.errors.append((op.__name__, repr(e)))
                    return
        finally:
            for closer in (conn.close, transport.close):
                try:
                    closer()
                except Exception:  # noqa: BLE001
                    pass

    def attempt(self, rows_after, call):
        """Runs `call` as one op changing `rows_after` (row -> new state); acknowledged
        only when it returns. Returns what `call` returned."""
        befores = {row: self.ledger.state(row) for row in rows_after}
        try:
            result = call()
        except BaseException:
            self.ledger.in_doubt(befores, rows_after)
            raise
        self.ledger.ack(rows_after)
        return result

    def value(self):
        size = self.rng.choice((8, 100, 700, 2000))
        return self.rng.randbytes(size)

    def batch_put(self, table):
        ts = self.tick()
        rows = {}
        for _ in range(self.rng.randint(1, 3)):
            row = self.row(b"d")
            if row in rows:
                continue  # one mutation per row: two puts of a column at one timestamp are ambiguous
            state = self.ledger.state(row)
            cols = {c: self.value() for c in self.rng.sample(DATA_COLUMNS, self.rng.randint(1, 3))}
            state.update(cols)
            rows[row] = (state, cols)
        afters = {row: state for row, (state, _) in rows.items()}

        def send():
            with table.batch(timestamp=ts) as b:
                for row, (_, cols) in rows.items():
                    b.put(row, cols)

        self.attempt(afters, send)

    def delete_column(self, raw):
        row, column = self.row(b"d"), self.rng.choice(DATA_COLUMNS)
        after = {c: v for c, v in self.ledger.state(row).items() if c != column}
        mutation = H.Mutation(isDelete=True, column=column)
        self.attempt({row: after}, lambda: raw.mutateRowTs(TABLE, row, [mutation], self.tick(), {}))

    def delete_all_ts(self, raw):
        row, column = self.row(b"d"), self.rng.choice(DATA_COLUMNS)
        after = {c: v for c, v in self.ledger.state(row).items() if c != column}
        self.attempt({row: after}, lambda: raw.deleteAllTs(TABLE, row, column, self.tick(), {}))

    def delete_family(self, table):
        row, family = self.row(b"d"), self.rng.choice((b"cf", b"cg"))
        after = {c: v for c, v in self.ledger.state(row).items() if not c.startswith(family + b":")}
        ts = self.tick()
        self.attempt({row: after}, lambda: table.delete(row, columns=[family], timestamp=ts))

    def delete_row(self, raw):
        row = self.row(b"d")
        self.attempt({row: {}}, lambda: raw.deleteAllRowTs(TABLE, row, self.tick(), {}))

    def increment(self, table):
        row, delta = self.row(b"n"), self.rng.randint(1, 5)
        state = self.ledger.state(row)
        current = struct.unpack(">q", state[b"cf:n"])[0] if b"cf:n" in state else 0
        want = current + delta
        got = self.attempt({row: {b"cf:n": struct.pack(">q", want)}}, lambda: table.counter_inc(row, b"cf:n", delta))
        if got != want:
            raise Failure("counter %r: increment by %d returned %d, the ledger says %d" % (row, delta, got, want))

    def append(self, raw):
        row, suffix = self.row(b"a"), b"%d;" % self.rng.randrange(1000)
        state = self.ledger.state(row)
        want = state.get(b"cf:s", b"") + suffix
        op = H.TAppend(table=TABLE, row=row, columns=[b"cf:s"], values=[suffix])
        cells = self.attempt({row: {b"cf:s": want}}, lambda: raw.append(op))
        if [c.value for c in cells] != [want]:
            raise Failure("append to %r returned %r, the ledger says %r" % (row, cells, want))

    def check_and_put(self, raw):
        row = self.row(b"c")
        state = self.ledger.state(row)
        current = state.get(b"cf:v")
        should_pass = self.rng.random() < 0.7
        expected = current if should_pass else (current or b"") + b"-not"
        new = b"v%d" % self.rng.randrange(10**6)
        after = {b"cf:v": new} if should_pass else state
        mutation = H.Mutation(column=b"cf:v", value=new)
        passed = self.attempt({row: after}, lambda: raw.checkAndPut(TABLE, row, b"cf:v", expected, mutation, {}))
        if passed != should_pass:
            raise Failure("checkAndPut %r expecting %r (ledger %r) returned %r" % (row, expected, current, passed))
