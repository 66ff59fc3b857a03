"""Writers that keep putting rows through one Thrift endpoint and remember exactly which
puts were acknowledged, so a test can check that none of them is lost."""

import threading
import time

import happybase

SPLITS = [b"g", b"n", b"t"]  # four regions


def region_of(row):
    return sum(1 for s in SPLITS if row >= s)


class Writers:
    def __init__(self, port, table, count=8, prefixes=b"cjpw", value_bytes=0):
        self.value_bytes = value_bytes
        self.port = port
        self.table = table
        self.count = count
        self.prefixes = prefixes
        self.acked = {}  # row -> value
        self.ack_times = []  # (sent, acknowledged, region), monotonic times
        self.errors = 0
        self.error_messages = []  # the first few, for assertion messages
        self.lock = threading.Lock()
        self.stop_flag = threading.Event()
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                        for i in range(count)]

    def start(self):
        for t in self.threads:
            t.start()

    def stop(self):
        self.stop_flag.set()
        for t in self.threads:
            t.join(timeout=30)

    def _connect(self):
        conn = happybase.Connection("127.0.0.1", port=self.port, timeout=10_000)
        return conn, conn.table(self.table)

    def _run(self, index):
        seq = 0
        conn = table = None
        while not self.stop_flag.is_set():
            prefix = self.prefixes[(index + seq) % len(self.prefixes):][:1]
            row = b"%s-w%d-%07d" % (prefix, index, seq)
            value = (b"v%d-" % seq).ljust(self.value_bytes, b"x")
            try:
                if table is None:
                    conn, table = self._connect()
                sent = time.monotonic()
                table.put(row, {b"cf:q": value})
            except Exception as e:
                with self.lock:
                    self.errors += 1
                    if len(self.error_messages) < 5:
                        self.error_messages.append("%s: %r" % (type(e).__name__, e))
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:
                        pass
                conn = table = None
                time.sleep(0.05)
                seq += 1  # an unacknowledged row may or may not exist: never reuse it
                continue
            now = time.monotonic()
            with self.lock:
                self.acked[row] = value
                self.ack_times.append((sent, now, region_of(row)))
            seq += 1
        if conn is not None:
            conn.close()

    def first_ack_per_region_after(self, t0, sent_after=None):
        """Seconds from t0 to the first acknowledgement, per region, of a write sent after
        `sent_after` (default t0): a write in flight when a server died may have been
        acknowledged by it just before."""
        sent_after = t0 if sent_after is None else sent_after
        first = {}
        with self.lock:
            for sent, when, region in self.ack_times:
                if sent > sent_after and region not in first:
                    first[region] = when - t0
        return first


def missing_rows(port, table, acked):
    """Acknowledged rows that are absent or hold another value."""
    conn = happybase.Connection("127.0.0.1", port=port, timeout=30_000)
    try:
        found = {row: data.get(b"cf:q") for row, data in conn.table(table).scan()}
    finally:
        conn.close()
    return [row for row, value in acked.items() if found.get(row) != value]
