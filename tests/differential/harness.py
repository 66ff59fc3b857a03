"""Two servers side by side for the differential tests: the HBase anchor and a Strata server,
each reached through happybase, plus the admin calls happybase lacks (flush, major
compaction).

* HBase: the anchor's Thrift1 gateway (``--hbase host:port``, default 127.0.0.1:9090). Flush
  and compactions go through HBase's Java admin API (``hbase_admin.sh`` runs
  ``HBaseAdminHelper.java`` on the anchor's classpath), and wait until done.
* Strata: a running server (``--strata host:port``) or, by default, ``target/debug/strata``
  started on a free port with a temporary data directory. Flush is Strata's Thrift extension
  ``strataFlush``; compactions are Thrift1's ``compact`` / ``majorCompact``, which on Strata
  return when done (``majorCompact`` flushes first). HBase's own Thrift compactions only queue
  the request.

``settle`` is a flush followed by the minor compaction the flush may trigger, waited for on
both servers, so that both have rewritten the same files when the next call comes: a
compaction that takes every file of a store drops delete markers (in HBase and in Strata),
which changes what later reads return.

Results are compared after :func:`normalize`: timestamps the servers assigned themselves
(their clocks differ by the time between the two calls) become ``"now"``; explicit
timestamps stay.
"""

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections import OrderedDict

import happybase
import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
STRATA_IDL = os.path.join(REPO_ROOT, "crates", "strata-thrift", "idl", "hbase.thrift")

# Timestamps at or above this are server-assigned clocks (2001-09-09 in ms); explicit
# timestamps of the tests stay below it, or at FUTURE and above.
SERVER_CLOCK_MIN = 10**12
# Explicit timestamps "in the future" (year 2096): above every server clock.
FUTURE = 4 * 10**12


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(host, port, timeout, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("server exited with %s" % proc.returncode)
        with contextlib.suppress(OSError), socket.create_connection((host, port), 0.5):
            return
        time.sleep(0.1)
    raise RuntimeError("%s:%d not listening after %ds" % (host, port, timeout))


class HBaseAdmin:
    """Flush / major compaction on the HBase anchor through its Java admin API."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [os.path.join(HERE, "hbase_admin.sh")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError("HBaseAdminHelper did not start: %r" % line)

    def _call(self, verb, table):
        self.proc.stdin.write("%s %s\n" % (verb, table))
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if answer != "ok":
            raise RuntimeError("HBase %s %s: %s" % (verb, table, answer))

    def flush(self, table):
        self._call("flush", table)

    def settle(self, table):
        self._call("settle", table)

    def major_compact(self, table):
        self._call("major", table)

    def close(self):
        with contextlib.suppress(Exception):
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(10)
        if self.proc.poll() is None:
            self.proc.kill()


class StrataAdmin:
    """Flush / major compaction on Strata through its Thrift API."""

    def __init__(self, host, port):
        idl = thriftpy2.load(STRATA_IDL, module_name="strata_diff_thrift")
        self.client = make_client(
            idl.Hbase,
            host,
            port,
            proto_factory=TBinaryProtocolFactory(),
            trans_factory=TBufferedTransportFactory(),
            timeout=120_000,
        )

    def flush(self, table):
        self.client.strataFlush(table.encode())

    def settle(self, table):
        # Thrift1's compact runs a minor compaction (what the policy picks) and returns when
        # done; the flush's own background request then finds nothing left to do.
        self.client.strataFlush(table.encode())
        self.client.compact(table.encode())

    def major_compact(self, table):
        self.client.majorCompact(table.encode())

    def close(self):
        with contextlib.suppress(Exception):
            self.client.close()


class StrataProcess:
    """``strata server`` on a free Thrift port with a temporary data directory."""

    def __init__(self, binary, start_timeout=60):
        self.dir = tempfile.mkdtemp(prefix="strata-diff-")
        self.port = free_port()
        self.log = open(os.path.join(self.dir, "server.log"), "wb")
        self.proc = subprocess.Popen(
            [binary, "server", "--data-dir", os.path.join(self.dir, "data"),
             "--listen", "127.0.0.1", "--thrift-port", str(self.port),
             "--http-port", "0", "--grpc-port", "0"],
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        wait_port("127.0.0.1", self.port, start_timeout, self.proc)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Side:
    """One server: its happybase connection and its admin calls."""

    def __init__(self, name, host, port, admin):
        self.name = name
        self.host = host
        self.port = port
        self.admin = admin
        self.conn = happybase.Connection(host, port, timeout=120_000, autoconnect=True)

    def table(self, name):
        return self.conn.table(name)

    def reconnect(self):
        """A fresh connection (after a transport error the old one may be out of step)."""
        with contextlib.suppress(Exception):
            self.conn.close()
        self.conn = happybase.Connection(self.host, self.port, timeout=120_000)

    def close(self):
        with contextlib.suppress(Exception):
            self.conn.close()
        self.admin.close()


def parse_addr(text):
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


@contextlib.contextmanager
def sides(hbase="127.0.0.1:9090", strata=None, strata_bin=None):
    """Yields (hbase_side, strata_side). Starts Strata unless ``strata`` is host:port."""
    proc = None
    hb = st = None
    try:
        hhost, hport = parse_addr(hbase)
        hb = Side("hbase", hhost, hport, HBaseAdmin())
        if strata:
            shost, sport = parse_addr(strata)
        else:
            binary = strata_bin or os.environ.get("STRATA_BIN") or os.path.join(
                REPO_ROOT, "target", "debug", "strata")
            proc = StrataProcess(binary)
            shost, sport = "127.0.0.1", proc.port
        st = Side("strata", shost, sport, StrataAdmin(shost, sport))
        yield hb, st
    finally:
        for s in (hb, st):
            if s is not None:
                s.close()
        if proc is not None:
            proc.close()


# ---------------------------------------------------------------------------------------
# Calls and their normalized results
# ---------------------------------------------------------------------------------------


def norm_ts(ts):
    return "now" if SERVER_CLOCK_MIN <= ts < FUTURE else ts


def normalize(value):
    """Lists, tuples, dicts and (value, timestamp) pairs with server clocks made "now". An
    OrderedDict (happybase's ``sorted_columns``) becomes a list of pairs, keeping its order."""
    if isinstance(value, OrderedDict):
        return [(k, normalize(v)) for k, v in value.items()]
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], int) \
            and isinstance(value[0], bytes):
        return (value[0], norm_ts(value[1]))
    if isinstance(value, (list, tuple)):
        return type(value)(normalize(v) for v in value)
    return value


def outcome(fn):
    """Runs ``fn()``: ("ok", normalized result) or ("error", exception class name)."""
    try:
        result = fn()
        if hasattr(result, "__next__"):
            result = list(result)
        return ("ok", normalize(result))
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return ("error", type(e).__name__)
