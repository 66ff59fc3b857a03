"""Fixtures for the HBase Thrift1 compatibility suite.

The suite talks to one server, chosen once per session:

* ``STRATA_COMPAT_SERVER=host:port``: an already running server (a real HBase Thrift
  gateway, or a ``strata server`` started by hand).
* otherwise the Strata binary (``STRATA_BIN``, default ``target/debug/strata``) is started
  on a free loopback port with a temporary data directory and stopped at the end.

Other knobs (all optional):

* ``STRATA_COMPAT_TRANSPORTS``: comma-separated ``<transport>-<protocol>`` combinations the
  server speaks, e.g. ``buffered-binary`` or ``framed-compact``. Default: all four when the
  suite starts Strata itself, ``buffered-binary`` for ``STRATA_COMPAT_SERVER`` (HBase's
  ThriftServer serves exactly one combination per process). Tests parametrized over
  combinations skip the others.
* ``STRATA_COMPAT_FLAVOR``: ``hbase`` or ``strata``. Only decides which known HBase bugs are
  expected to fail. Default: ``strata`` when the suite starts the binary, otherwise detected
  (HBase has the region ``hbase:meta,,1``; override when the detection is wrong).
* ``STRATA_COMPAT_START_TIMEOUT``: seconds to wait for the binary to listen (default 60).
"""

import contextlib
import itertools
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid

import pytest

import happybase
import thriftpy2
from thriftpy2.protocol import TBinaryProtocol, TCompactProtocol
from thriftpy2.thrift import TClient
from thriftpy2.transport import TBufferedTransport, TFramedTransport, TSocket

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ALL_COMBOS = ("buffered-binary", "buffered-compact", "framed-binary", "framed-compact")
TRANSPORTS = {"buffered": TBufferedTransport, "framed": TFramedTransport}
PROTOCOLS = {"binary": TBinaryProtocol, "compact": TCompactProtocol}
SOCKET_TIMEOUT_MS = 30_000

# The Thrift IDL happybase ships, loaded a second time under our own module name for the
# raw-IDL tests (happybase loads it as ``Hbase_thrift``).
HBASE_THRIFT_PATH = os.path.join(os.path.dirname(happybase.__file__), "Hbase.thrift")
Hbase_thrift = thriftpy2.load(HBASE_THRIFT_PATH, module_name="strata_compat_Hbase_thrift")


# ---------------------------------------------------------------------------------------
# The server
# ---------------------------------------------------------------------------------------


class Server:
    def __init__(self, host, port, combos, flavor, started_by_us):
        self.host = host
        self.port = port
        self.combos = combos
        self.flavor = flavor
        self.started_by_us = started_by_us

    @property
    def is_hbase(self):
        return self.flavor == "hbase"

    @property
    def default_combo(self):
        return "buffered-binary" if "buffered-binary" in self.combos else self.combos[0]

    def __repr__(self):
        return "Server(%s:%d, %s, %s)" % (self.host, self.port, self.flavor, ",".join(self.combos))


def _parse_combos(value):
    combos = [c.strip() for c in value.split(",") if c.strip()]
    for c in combos:
        if c not in ALL_COMBOS:
            raise pytest.UsageError(
                "STRATA_COMPAT_TRANSPORTS: unknown combination %r (use %s)" % (c, ", ".join(ALL_COMBOS))
            )
    if not combos:
        raise pytest.UsageError("STRATA_COMPAT_TRANSPORTS is empty")
    return combos


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class _OutputCollector:
    """Reads a pipe in a thread, keeps the text and notices a line with 'listening'."""

    def __init__(self, pipe):
        self.lines = []
        self.listening = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(pipe,), daemon=True)
        self._thread.start()

    def _run(self, pipe):
        for raw in iter(pipe.readline, b""):
            line = raw.decode("utf-8", "replace")
            self.lines.append(line)
            if "listening" in line.lower():
                self.listening.set()
        pipe.close()

    def text(self, last=60):
        return "".join(self.lines[-last:])


def _start_strata(tmpdir):
    binary = os.environ.get("STRATA_BIN", os.path.join("target", "debug", "strata"))
    if not os.path.isabs(binary):
        binary = os.path.join(REPO_ROOT, binary)
    if not os.path.isfile(binary):
        pytest.exit(
            "compat: no Strata binary at %s. Build it (cargo build -p strata), set STRATA_BIN, "
            "or point STRATA_COMPAT_SERVER=host:port at a running server." % binary,
            returncode=4,
        )
    port = _free_port()
    data_dir = os.path.join(tmpdir, "data")
    os.makedirs(data_dir, exist_ok=True)
    cmd = [
        binary, "server",
        "--data-dir", data_dir,
        "--listen", "127.0.0.1",
        "--thrift-port", str(port),
        "--http-port", "0",
        "--grpc-port", "0",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmpdir)
    out = _OutputCollector(proc.stdout)
    err = _OutputCollector(proc.stderr)
    timeout = float(os.environ.get("STRATA_COMPAT_START_TIMEOUT", "60"))
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            time.sleep(0.2)  # let the reader threads drain the pipes
            pytest.exit(
                "compat: `%s` exited with status %s before listening.\n--- stderr ---\n%s\n--- stdout ---\n%s"
                % (" ".join(cmd), proc.returncode, err.text(), out.text()),
                returncode=4,
            )
        if _port_open("127.0.0.1", port):
            break
        if time.monotonic() > deadline:
            _stop_process(proc)
            pytest.exit(
                "compat: `%s` did not accept connections on 127.0.0.1:%d within %.0f s.\n"
                "--- stderr ---\n%s\n--- stdout ---\n%s"
                % (" ".join(cmd), port, timeout, err.text(), out.text()),
                returncode=4,
            )
        # A 'listening' line is only a hint: the port check above is what counts.
        (out.listening.wait if not err.listening.is_set() else err.listening.wait)(0.1)
    return proc, port, err


def _stop_process(proc, grace=15.0):
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait(timeout=10)


def _detect_flavor(host, port, combo):
    """'hbase' when the server has HBase's meta region, else 'strata'."""
    try:
        with raw_client(host, port, combo) as client:
            regions = client.getTableRegions(b"hbase:meta")
        if any(r.name and r.name.startswith(b"hbase:meta,,1") for r in regions):
            return "hbase"
    except Exception:  # noqa: BLE001 - anything unexpected means "not HBase"
        pass
    return "strata"


@pytest.fixture(scope="session")
def server():
    """The server under test: a Server with host, port, combos, flavor."""
    address = os.environ.get("STRATA_COMPAT_SERVER")
    flavor = os.environ.get("STRATA_COMPAT_FLAVOR")
    if flavor not in (None, "", "hbase", "strata"):
        raise pytest.UsageError("STRATA_COMPAT_FLAVOR must be 'hbase' or 'strata'")
    combos_env = os.environ.get("STRATA_COMPAT_TRANSPORTS")
    if address:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise pytest.UsageError("STRATA_COMPAT_SERVER must be host:port, got %r" % address)
        combos = _parse_combos(combos_env or "buffered-binary")
        srv = Server(host, int(port), combos, None, False)
        if not _port_open(srv.host, srv.port):
            pytest.exit("compat: nothing listens on %s (STRATA_COMPAT_SERVER)" % address, returncode=4)
        srv.flavor = flavor or _detect_flavor(srv.host, srv.port, srv.default_combo)
        yield srv
        return

    combos = _parse_combos(combos_env or ",".join(ALL_COMBOS))
    with tempfile.TemporaryDirectory(prefix="strata-compat-") as tmpdir:
        proc, port, err = _start_strata(tmpdir)
        srv = Server("127.0.0.1", port, combos, flavor or "strata", True)
        try:
            yield srv
        finally:
            code = _stop_process(proc)
            if code not in (0, -signal.SIGTERM):
                print("compat: strata server exited with status %s\n%s" % (code, err.text()))


@pytest.fixture(scope="session")
def is_hbase(server):
    return server.is_hbase


def hbase_bug(request_or_server, reason):
    """Marks the running test xfail when the server is HBase (a known HBase bug)."""
    srv = request_or_server
    if srv.is_hbase:
        pytest.xfail("HBase bug: " + reason)


def strata_gap(request_or_server, reason):
    """Marks the running test xfail when the server is Strata and the behaviour is known to
    be missing there (open work, listed in tests/compat/README.md)."""
    if not request_or_server.is_hbase:
        pytest.xfail("Strata gap: " + reason)


# ---------------------------------------------------------------------------------------
# Connections and tables
# ---------------------------------------------------------------------------------------


def connect(server, combo=None, **kwargs):
    transport, protocol = (combo or server.default_combo).split("-")
    kwargs.setdefault("timeout", SOCKET_TIMEOUT_MS)
    return happybase.Connection(
        server.host, server.port, transport=transport, protocol=protocol, **kwargs
    )


@contextlib.contextmanager
def raw_client(host, port, combo="buffered-binary", timeout_ms=SOCKET_TIMEOUT_MS):
    """A thriftpy2 client of the whole Hbase IDL (not limited to what happybase calls)."""
    transport_name, protocol_name = combo.split("-")
    sock = TSocket(host=host, port=port, socket_timeout=timeout_ms)
    transport = TRANSPORTS[transport_name](sock)
    protocol = PROTOCOLS[protocol_name](transport, decode_response=False)
    client = TClient(Hbase_thrift.Hbase, protocol)
    transport.open()
    try:
        yield client
    finally:
        transport.close()


@pytest.fixture
def conn(server):
    """A happybase Connection with the server's default transport/protocol."""
    c = connect(server)
    yield c
    c.close()


def _combo_params():
    return [pytest.param(c, id=c) for c in ALL_COMBOS]


@pytest.fixture(params=_combo_params())
def combo(request, server):
    """Each transport-protocol combination; skipped when the server does not speak it."""
    if request.param not in server.combos:
        pytest.skip("server speaks only %s (STRATA_COMPAT_TRANSPORTS)" % ",".join(server.combos))
    return request.param


@pytest.fixture
def any_conn(server, combo):
    """A happybase Connection for each transport-protocol combination the server speaks."""
    c = connect(server, combo)
    yield c
    c.close()


_counter = itertools.count()
_RUN_ID = uuid.uuid4().hex[:6]


def unique_name(hint="t"):
    safe = "".join(ch if ch.isalnum() else "_" for ch in hint)[:40]
    return "compat_%s_%s_%d" % (safe, _RUN_ID, next(_counter))


class TableFactory:
    """Creates uniquely named tables and drops them (disable + delete) afterwards."""

    def __init__(self, server, hint):
        self.server = server
        self.hint = hint
        self.created = []
        self._conn = connect(server)

    def name(self):
        return unique_name(self.hint)

    def __call__(self, families=None, conn=None, name=None):
        """Creates a table (default: family 'cf' with default options) and returns a
        happybase Table on `conn` (default: the factory's own connection)."""
        if families is None:
            families = {"cf": {}}
        name = name or self.name()
        self._conn.create_table(name, families)
        self.created.append(name)
        return (conn or self._conn).table(name)

    def track(self, name):
        """Drops `name` too at the end (for tables a test created itself)."""
        self.created.append(name if isinstance(name, str) else name.decode())

    def cleanup(self):
        try:
            conn = connect(self.server)
        except Exception:  # noqa: BLE001
            return
        try:
            existing = set(conn.tables())
            for name in self.created:
                if name.encode() not in existing:
                    continue
                try:
                    if conn.is_table_enabled(name):
                        conn.disable_table(name)
                except Exception:  # noqa: BLE001
                    pass
                try:
                    conn.delete_table(name)
                except Exception:  # noqa: BLE001
                    pass
        finally:
            conn.close()
            self._conn.close()


@pytest.fixture
def make_table(server, request):
    factory = TableFactory(server, request.node.name)
    yield factory
    factory.cleanup()


@pytest.fixture
def table(make_table, conn):
    """A fresh table with one family 'cf' (Thrift defaults: 3 versions), on `conn`."""
    return make_table({"cf": {}}, conn=conn)


@pytest.fixture
def raw(server):
    """A raw thriftpy2 client (full Hbase IDL) with the default combination."""
    with raw_client(server.host, server.port, server.default_combo) as client:
        yield client


@pytest.fixture
def idl():
    """The thriftpy2 module loaded from happybase's Hbase.thrift (types and exceptions)."""
    return Hbase_thrift
