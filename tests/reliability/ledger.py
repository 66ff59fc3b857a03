"""The crash test's ledger: what every row must hold, from acknowledged operations only.

Each worker thread owns its rows, so within a row operations are strictly ordered and the
model is exact. An operation in flight when the server dies (or that failed) is
*uncertain*: its rows may hold the state before it or after it, nothing else. The check
after a restart accepts either, then adopts what it saw, so the next cycle starts exact.
"""

import threading


class Failure(Exception):
    """A broken durability or consistency promise."""


class Ledger:
    def __init__(self):
        self._lock = threading.Lock()
        self.rows = {}  # row -> {column: value}; absent or {} = the row must not exist
        self.uncertain = {}  # row -> list of allowed states
        self.acked_ops = 0
        self.uncertain_ops = 0
        self.checked_ops = 0  # acknowledged ops covered by a post-restart check

    def state(self, row):
        with self._lock:
            if row in self.uncertain:
                raise Failure("row %r is uncertain while a worker uses it" % row)
            return dict(self.rows.get(row, {}))

    def ack(self, changes):
        """An acknowledged op: `changes` maps each row it touched to its new state."""
        with self._lock:
            for row, after in changes.items():
                self.rows[row] = dict(after)
            self.acked_ops += 1

    def in_doubt(self, befores, afters):
        """An op whose outcome is unknown: each row is before or after, independently (a
        multi-row batch is atomic per row only)."""
        with self._lock:
            for row, before in befores.items():
                self.uncertain[row] = [dict(before), dict(afters[row])]
            self.uncertain_ops += 1

    def verify(self, actual):
        """Checks `actual` (row -> {column: value}, from a full scan) against the ledger;
        returns a list of failure descriptions (empty = all good) and adopts the resolved
        states of uncertain rows."""
        problems = []
        with self._lock:
            for row in sorted(set(self.rows) | set(self.uncertain) | set(actual)):
                got = actual.get(row, {})
                allowed = self.uncertain.get(row) or [self.rows.get(row, {})]
                if got not in allowed:
                    problems.append(describe(row, allowed, got))
                self.rows[row] = got
            self.uncertain.clear()
            self.checked_ops = self.acked_ops
        return problems


def describe(row, allowed, got):
    want = allowed[-1] if len(allowed) == 1 else allowed
    expected = allowed[0]
    lost = sorted(set(expected) - set(got))
    back = sorted(set(got) - set(expected))
    wrong = sorted(c for c in set(expected) & set(got) if expected[c] != got[c])
    kind = []
    if lost:
        kind.append("lost acknowledged columns %r" % lost)
    if back:
        kind.append("columns that must be absent (deleted or never written) %r" % back)
    if wrong:
        kind.append("wrong values in %r" % wrong)
    return "row %r: %s; allowed %s, got %s" % (row, "; ".join(kind), _short(want), _short(got))


def _short(value, limit=300):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
