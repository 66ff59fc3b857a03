"""Starts, kills and restarts one `strata server` process on a persistent data directory,
for the reliability scripts (crash_loop.py, recovery_time.py)."""

import os
import signal
import socket
import subprocess
import time

import thriftpy2
import happybase
from thriftpy2.protocol import TBinaryProtocol
from thriftpy2.thrift import TClient
from thriftpy2.transport import TBufferedTransport, TSocket

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HBASE_THRIFT_PATH = os.path.join(os.path.dirname(happybase.__file__), "Hbase.thrift")
H = thriftpy2.load(HBASE_THRIFT_PATH, module_name="strata_reliability_Hbase_thrift")


def default_binary():
    binary = os.environ.get("STRATA_BIN", os.path.join("target", "debug", "strata"))
    return binary if os.path.isabs(binary) else os.path.join(REPO_ROOT, binary)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def raw_client(port, timeout_ms=30_000):
    """A thriftpy2 client of the whole Hbase IDL; returns (client, transport)."""
    transport = TBufferedTransport(TSocket(host="127.0.0.1", port=port, socket_timeout=timeout_ms))
    client = TClient(H.Hbase, TBinaryProtocol(transport, decode_response=False))
    transport.open()
    return client, transport


def config_text(engine):
    """A TOML config with the given [engine] keys (ints, bools or strings)."""
    lines = ["[engine]"]
    for key, value in engine.items():
        if isinstance(value, bool):
            lines.append("%s = %s" % (key, "true" if value else "false"))
        elif isinstance(value, str):
            lines.append('%s = "%s"' % (key, value))
        else:
            lines.append("%s = %d" % (key, value))
    return "\n".join(lines) + "\n"


class StrataProcess:
    """One server on `workdir/data`, restartable; its stderr goes to `workdir/server.log`."""

    def __init__(self, binary, workdir, engine_config, start_timeout=120.0):
        self.binary = binary
        self.workdir = workdir
        self.data_dir = os.path.join(workdir, "data")
        self.config_path = os.path.join(workdir, "strata.toml")
        self.log_path = os.path.join(workdir, "server.log")
        self.start_timeout = start_timeout
        self.port = free_port()
        self.proc = None
        os.makedirs(self.data_dir, exist_ok=True)
        with open(self.config_path, "w") as f:
            f.write(config_text(engine_config))

    def start(self):
        """Starts the server and returns the seconds until it accepted a connection."""
        if not os.path.isfile(self.binary):
            raise RuntimeError("no Strata binary at %s (cargo build -p strata, or set STRATA_BIN)" % self.binary)
        cmd = [
            self.binary, "server",
            "--config", self.config_path,
            "--data-dir", self.data_dir,
            "--listen", "127.0.0.1",
            "--thrift-port", str(self.port),
            "--http-port", "0",
            "--grpc-port", "0",
        ]
        log = open(self.log_path, "ab")
        started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=log, cwd=self.workdir)
        log.close()
        deadline = started + self.start_timeout
        while not port_open(self.port):
            if self.proc.poll() is not None:
                raise RuntimeError(
                    "strata server exited with status %s before listening; log:\n%s"
                    % (self.proc.returncode, self.log_tail())
                )
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("strata server did not listen within %.0f s; log:\n%s" % (self.start_timeout, self.log_tail()))
            time.sleep(0.01)
        return time.monotonic() - started

    def kill(self):
        """SIGKILL: no shutdown code runs, exactly like a crash of the process."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None

    def stop(self):
        """A clean shutdown (SIGTERM), for the end of a run."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
        self.proc = None

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return "(no log)"
