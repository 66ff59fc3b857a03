"""Fixtures for the Cloud Bigtable API suite (tests/bigtable).

The suite drives Strata's gRPC API with Google's own Python client
(``google-cloud-bigtable``) through ``BIGTABLE_EMULATOR_HOST``, the way users point that
client at an emulator.

Which server is tested:

* default: ``target/debug/strata`` (or ``STRATA_BIN``) is started on free loopback ports
  with a temporary data directory and stopped at the end;
* ``STRATA_BIGTABLE_SERVER=host:port``: an already running Bigtable API server, for
  example Google's Go emulator (``../shared/anchors/bench-tools/bigtable-emulator.sh``),
  to compare semantics. Tests that need Strata's Thrift port are skipped then, unless
  ``STRATA_BIGTABLE_THRIFT_PORT`` names it (a running Strata, e.g. a cluster endpoint).
"""

import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROJECT = "p"
INSTANCE = "default"  # a Bigtable instance is a Strata namespace


class Server:
    def __init__(self, host, grpc_port, thrift_port, started_by_us):
        self.host = host
        self.grpc_port = grpc_port
        self.thrift_port = thrift_port  # None when the server is not Strata
        self.started_by_us = started_by_us

    @property
    def grpc_address(self):
        return "%s:%d" % (self.host, self.grpc_port)

    @property
    def is_strata(self):
        return self.thrift_port is not None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class _Drain:
    """Keeps the last lines of a pipe so a failed start can be explained."""

    def __init__(self, pipe):
        self.lines = []
        threading.Thread(target=self._run, args=(pipe,), daemon=True).start()

    def _run(self, pipe):
        for raw in iter(pipe.readline, b""):
            self.lines.append(raw.decode("utf-8", "replace"))
            del self.lines[:-200]

    def text(self):
        return "".join(self.lines[-60:])


def _start_strata(tmpdir):
    binary = os.environ.get("STRATA_BIN", os.path.join("target", "debug", "strata"))
    if not os.path.isabs(binary):
        binary = os.path.join(REPO_ROOT, binary)
    if not os.path.isfile(binary):
        pytest.exit("bigtable: no Strata binary at %s; run cargo build -p strata" % binary, returncode=4)
    grpc_port, thrift_port = _free_port(), _free_port()
    cmd = [
        binary, "server",
        "--data-dir", os.path.join(tmpdir, "data"),
        "--listen", "127.0.0.1",
        "--thrift-port", str(thrift_port),
        "--grpc-port", str(grpc_port),
        "--http-port", "0",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmpdir)
    out, err = _Drain(proc.stdout), _Drain(proc.stderr)
    deadline = time.monotonic() + float(os.environ.get("STRATA_START_TIMEOUT", "60"))
    while not (_port_open("127.0.0.1", grpc_port) and _port_open("127.0.0.1", thrift_port)):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                proc.kill()
            time.sleep(0.2)
            pytest.exit(
                "bigtable: `%s` did not start.\n--- stderr ---\n%s\n--- stdout ---\n%s"
                % (" ".join(cmd), err.text(), out.text()),
                returncode=4,
            )
        time.sleep(0.05)
    return proc, grpc_port, thrift_port, err


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return proc.returncode


@pytest.fixture(scope="session")
def server():
    address = os.environ.get("STRATA_BIGTABLE_SERVER")
    if address:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise pytest.UsageError("STRATA_BIGTABLE_SERVER must be host:port, got %r" % address)
        thrift = os.environ.get("STRATA_BIGTABLE_THRIFT_PORT")
        srv = Server(host, int(port), int(thrift) if thrift else None, False)
        os.environ["BIGTABLE_EMULATOR_HOST"] = srv.grpc_address
        yield srv
        return
    with tempfile.TemporaryDirectory(prefix="strata-bigtable-") as tmpdir:
        proc, grpc_port, thrift_port, err = _start_strata(tmpdir)
        srv = Server("127.0.0.1", grpc_port, thrift_port, True)
        os.environ["BIGTABLE_EMULATOR_HOST"] = srv.grpc_address
        try:
            yield srv
        finally:
            code = _stop(proc)
            if code not in (0, -signal.SIGTERM):
                print("bigtable: strata server exited with status %s\n%s" % (code, err.text()))


@pytest.fixture(scope="session")
def client(server):
    """google.cloud.bigtable.Client with admin access, pointed at the server."""
    import warnings

    from google.cloud import bigtable

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "Connecting to Bigtable emulator"
        c = bigtable.Client(project=PROJECT, admin=True)
    yield c
    c.close()


@pytest.fixture(scope="session")
def instance(client):
    return client.instance(INSTANCE)


@pytest.fixture
def strata_only(server):
    """Skips a test that needs Strata's Thrift port (cross-API tests)."""
    if not server.is_strata:
        pytest.skip("needs Strata (Thrift port) rather than another Bigtable server")


def unique_name(hint="t"):
    return "%s_%s" % (hint, uuid.uuid4().hex[:10])


# --- Tables created through Thrift (happybase), for the Data API tests -------------------
#
# They do not depend on the Table Admin API's CreateTable. With STRATA_BIGTABLE_SERVER
# (another Bigtable server, no Thrift port) they are created through the Admin API instead.

ALL_VERSIONS = 2**31 - 1


@pytest.fixture
def thrift_connection(server):
    if not server.is_strata:
        pytest.skip("needs Strata's Thrift port")
    import happybase

    conn = happybase.Connection(server.host, server.thrift_port, autoconnect=True)
    yield conn
    conn.close()


@pytest.fixture
def data_table(server, instance):
    """data_table(families=("cf",), splits=None) -> classic google.cloud.bigtable Table.

    Every family keeps all versions (Bigtable's default: no GC rule). Created through Thrift
    on Strata (namespace ``default`` is the instance), through the Admin API elsewhere.
    """
    created = []
    conn = None

    def make(families=("cf",), splits=None):
        nonlocal conn
        name = unique_name()
        if server.is_strata:
            import happybase

            if conn is None:
                conn = happybase.Connection(server.host, server.thrift_port)
            # happybase has no split keys; tests needing regions use Thrift-free helpers.
            assert not splits, "pre-split tables need the Admin API"
            conn.create_table(name, {f: dict(max_versions=ALL_VERSIONS) for f in families})
        else:
            instance.table(name).create(
                initial_split_keys=splits or [], column_families={f: None for f in families}
            )
        created.append(name)
        return instance.table(name)

    yield make
    for name in created:
        try:
            if server.is_strata:
                conn.delete_table(name, disable=True)
            else:
                instance.table(name).delete()
        except Exception:  # noqa: BLE001 - a test may have deleted it already
            pass
    if conn is not None:
        conn.close()


@pytest.fixture(scope="session")
def data_client(server):
    """google.cloud.bigtable.data.BigtableDataClient (the new data API), via the emulator host."""
    import warnings

    from google.cloud.bigtable.data import BigtableDataClient

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        c = BigtableDataClient(project=PROJECT)
    yield c
    c.close()


@pytest.fixture
def make_table(instance):
    """make_table({"cf": gc_rule_or_None, ...}, splits=[...]) -> google.cloud.bigtable Table.

    Tables are created through the Table Admin API and deleted after the test.
    """
    created = []

    def make(families=None, splits=None, name=None):
        table = instance.table(name or unique_name())
        table.create(initial_split_keys=splits or [], column_families=families or {"cf": None})
        created.append(table)
        return table

    yield make
    for table in created:
        try:
            table.delete()
        except Exception:  # noqa: BLE001 - a test may have deleted it already
            pass


@pytest.fixture
def hbase(server, strata_only):
    """A happybase connection to the same Strata server's Thrift port (cross-API checks).

    Tables of the Bigtable instance ``default`` have their plain names in HBase; those of
    instance ``ns`` are ``ns:name``.
    """
    import happybase

    conn = happybase.Connection(server.host, server.thrift_port)
    yield conn
    conn.close()
