"""TLS on the Thrift and HTTP ports, from Python clients: thriftpy2's SSL socket and
urllib, each trusting the server's CA (made here with ``openssl``). A client that does not
trust that CA, or speaks clear text, is refused. These tests start a server of their own,
so they run only when the suite starts Strata itself (docs/security.md)."""

import os
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.request

import pytest
from thriftpy2.rpc import make_client
from thriftpy2.protocol.exc import TProtocolException
from thriftpy2.transport import TTransportException

from conftest import Hbase_thrift, _free_port, _port_open, _stop_process

OPENSSL = shutil.which("openssl")


def _openssl(*args, cwd):
    subprocess.run([OPENSSL, *args], cwd=cwd, check=True, capture_output=True)


def _make_certificates(directory):
    """A CA (ca.pem) and a certificate it signed for 127.0.0.1 (server.pem, server.key)."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    _openssl("req", "-x509", *ec, "-days", "2", "-subj", "/CN=strata compat CA",
             "-keyout", "ca.key", "-out", "ca.pem", cwd=directory)
    _openssl("req", *ec, "-subj", "/CN=localhost", "-keyout", "server.key",
             "-out", "server.csr", cwd=directory)
    with open(os.path.join(directory, "san.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.pem",
             cwd=directory)


@pytest.fixture(scope="module")
def tls_server(server):
    if not server.started_by_us:
        pytest.skip("TLS is tried on a server these tests start themselves")
    if OPENSSL is None:
        pytest.skip("no openssl to make the test certificates")
    directory = tempfile.mkdtemp(prefix="strata-compat-tls-")
    _make_certificates(directory)
    thrift, http = _free_port(), _free_port()
    with open(os.path.join(directory, "strata.toml"), "w") as f:
        f.write('[tls]\ncert = "server.pem"\nkey = "server.key"\n'
                'listeners = ["thrift", "http"]\n')
    binary = os.environ.get("STRATA_BIN", os.path.join("target", "debug", "strata"))
    if not os.path.isabs(binary):
        binary = os.path.join(os.path.dirname(__file__), "..", "..", binary)
    proc = subprocess.Popen(
        [binary, "server", "--config", "strata.toml", "--data-dir", "data",
         "--thrift-port", str(thrift), "--http-port", str(http), "--grpc-port", "0",
         "--hbase-port", "0", "--zookeeper-port", "0"],
        cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (_port_open("127.0.0.1", thrift) and _port_open("127.0.0.1", http)):
        assert proc.poll() is None, "the TLS server exited with %s" % proc.returncode
        assert time.monotonic() < deadline, "the TLS server did not listen in 60 s"
        time.sleep(0.05)
    yield {"dir": directory, "thrift": thrift, "http": http,
           "ca": os.path.join(directory, "ca.pem")}
    _stop_process(proc)
    shutil.rmtree(directory, ignore_errors=True)


def test_thriftpy2_over_tls_creates_and_lists_a_table(tls_server):
    client = make_client(Hbase_thrift.Hbase, "127.0.0.1", tls_server["thrift"],
                         cafile=tls_server["ca"], timeout=20_000)
    try:
        family = Hbase_thrift.ColumnDescriptor(name=b"cf:")
        client.createTable(b"over_tls", [family])
        assert b"over_tls" in client.getTableNames()
    finally:
        client.close()


def test_a_client_that_does_not_trust_the_ca_is_refused(tls_server, tmp_path):
    _make_certificates(str(tmp_path))  # another CA
    with pytest.raises((TTransportException, ssl.SSLError, OSError)):
        client = make_client(Hbase_thrift.Hbase, "127.0.0.1", tls_server["thrift"],
                             cafile=str(tmp_path / "ca.pem"), timeout=5_000)
        client.getTableNames()


def test_a_clear_text_thrift_client_gets_no_answer(tls_server):
    client = make_client(Hbase_thrift.Hbase, "127.0.0.1", tls_server["thrift"], timeout=5_000)
    # The server answers the clear-text bytes with a TLS alert, which is no Thrift message
    # (thriftpy2's compiled protocol raises its own ProtocolError for it), or closes.
    with pytest.raises(Exception) as refused:
        client.getTableNames()
    assert isinstance(refused.value, (TTransportException, TProtocolException, OSError)) or \
        "protocol version" in str(refused.value), repr(refused.value)
    client.close()


def test_https_with_the_ca_answers_health(tls_server):
    context = ssl.create_default_context(cafile=tls_server["ca"])
    url = "https://127.0.0.1:%d/healthz" % tls_server["http"]
    with urllib.request.urlopen(url, context=context, timeout=10) as answer:
        assert answer.status == 200
