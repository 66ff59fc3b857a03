"""Starts a Strata cluster of real processes on loopback: etcd (scripts/etcd-env), S3Proxy
(scripts/s3proxy-env) and strata servers on free ports. Every process is started and
stopped by PID.

STRATA_CLUSTER_S3=minio puts the objects in MinIO (scripts/minio-env) instead of S3Proxy,
and STRATA_CLUSTER_S3=hdfs in a MiniDFSCluster (scripts/minidfs-env; the strata binary
then needs the `hdfs` feature): the opt-in runners scripts/cluster-minio-test and
scripts/cluster-hdfs-test set them."""

import json
import os
import signal
import socket
import subprocess
import tempfile
import time

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


# The object store: the script that starts and stops it, and the variable naming its PID.
S3_SERVERS = {"s3proxy": ("s3proxy-env", "S3PROXY_PID"), "minio": ("minio-env", "MINIO_PID"),
              "hdfs": ("minidfs-env", "MINIDFS_PID")}


def s3_server():
    name = os.environ.get("STRATA_CLUSTER_S3", "s3proxy")
    if name not in S3_SERVERS:
        raise ValueError("STRATA_CLUSTER_S3=%r: expected one of %s" % (name, sorted(S3_SERVERS)))
    return S3_SERVERS[name]


def binary():
    path = os.environ.get("STRATA_BIN", os.path.join("target", "debug", "strata"))
    return path if os.path.isabs(path) else os.path.join(REPO_ROOT, path)


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


def _exports(script, *args):
    """Runs `script start` and parses its `export K=V` lines."""
    out = subprocess.run([os.path.join(REPO_ROOT, "scripts", script), *args], check=True,
                         capture_output=True, text=True, cwd=REPO_ROOT).stdout
    env = {}
    for line in out.splitlines():
        if line.startswith("export "):
            key, _, value = line[len("export "):].partition("=")
            env[key] = value.strip("'\"")
    return env


class Server:
    def __init__(self, cluster, index):
        self.index = index
        self.thrift, self.grpc, self.http = free_port(), free_port(), free_port()
        self.peer = free_port()
        self.hbase, self.zookeeper = free_port(), free_port()
        self.data_dir = os.path.join(cluster.tmp, "server%d" % index)
        self.log_path = os.path.join(cluster.tmp, "server%d.log" % index)
        self.proc = None
        self.sid = None

    def current_sid(self):
        """The id of the server's latest membership (it joins again after losing a lease)."""
        text = self.log()
        marker = "as server "
        at = text.rfind(marker)
        return text[at + len(marker):].split(";")[0].strip() if at >= 0 else None

    def log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except OSError:
            return ""


class Cluster:
    def __init__(self, name="test", lease_ttl_ms=2000, extra_config=""):
        self.name = name
        self.tmp = tempfile.mkdtemp(prefix="strata-cluster-")
        self.etcd = _exports("etcd-env", "start")
        try:
            self.s3_script, self.s3_pid_var = s3_server()
            self.s3 = _exports(self.s3_script, "start")
        except Exception:
            self._stop_etcd()
            raise
        if "STRATA_S3_TEST_STORE" in self.s3:
            self.store_url = self.s3["STRATA_S3_TEST_STORE"]
        else:
            self.store_url = self.s3["STRATA_HDFS_URL"] + "/strata"
        self.lease_ttl_ms = lease_ttl_ms
        self.servers = []
        self.started = 0  # servers started so far: each gets its own index, log and data
        self.config = os.path.join(self.tmp, "cluster.toml")
        with open(self.config, "w") as f:
            f.write("[cluster]\nlease_ttl_ms = %d\n%s" % (lease_ttl_ms, extra_config))

    @property
    def etcd_endpoint(self):
        return self.etcd["STRATA_ETCD_ENDPOINT"]

    def start_server(self, wait_for="standing by", env_extra=None, attempts=3):
        """Starts a server on free ports and waits for `wait_for` in its log. A port is
        free when picked but only bound when the server starts, so another process can
        take it in between: a start that fails on a taken port is tried again on new ports."""
        for attempt in range(attempts):
            try:
                return self._start_server_once(wait_for, env_extra)
            except AssertionError as failure:
                taken = "Address already in use" in str(failure)
                if not taken or attempt + 1 == attempts:
                    raise
                self.servers.pop()

    def _start_server_once(self, wait_for, env_extra):
        self.started += 1
        server = Server(self, self.started)
        env = dict(os.environ)
        env.update({k: v for k, v in self.s3.items() if k.startswith("AWS_")})
        env.update(env_extra or {})
        env.setdefault("STRATA_LOG", "info")
        log = open(server.log_path, "a")
        server.proc = subprocess.Popen(
            [binary(), "server", "--config", self.config, "--cluster", self.name,
             "--etcd", self.etcd_endpoint, "--store", self.store_url,
             "--data-dir", server.data_dir, "--thrift-port", str(server.thrift),
             "--grpc-port", str(server.grpc), "--http-port", str(server.http),
             "--peer-port", str(server.peer), "--hbase-port", str(server.hbase),
             "--zookeeper-port", str(server.zookeeper)],
            stdout=log, stderr=subprocess.STDOUT, cwd=REPO_ROOT, env=env)
        self.servers.append(server)
        self.wait_for_log(server, wait_for)
        server.sid = server.current_sid()
        return server

    def restart_exited(self):
        """Starts a new server for each one that exited with status 3 (its lease lost), as
        a supervisor would; returns how many."""
        exited = [s for s in self.servers if s.proc.poll() == 3]
        for server in exited:
            self.servers.remove(server)
            self.start_server(wait_for="")
        return len(exited)

    def wait_for_log(self, server, text, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in server.log():
                return
            if server.proc.poll() is not None:
                raise AssertionError("server %d exited (%s):\n%s" % (
                    server.index, server.proc.returncode, server.log()[-3000:]))
            time.sleep(0.05)
        raise AssertionError("server %d: %r not logged in %d s:\n%s" % (
            server.index, text, timeout, server.log()[-3000:]))

    def status(self):
        out = subprocess.run([binary(), "cluster", "status", "--etcd", self.etcd_endpoint,
                              "--cluster", self.name, "--json"],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def master(self):
        sid = self.status()["master"]
        for server in self.servers:
            server.sid = server.current_sid()
            if server.sid == sid and server.proc.poll() is None:
                return server
        return None

    def wait_for_master(self, other_than=None, timeout=30):
        """The serving master (its Thrift port answers), other than `other_than`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            master = self.master()
            if master is not None and master is not other_than and "acting as master" in master.log():
                return master
            time.sleep(0.05)
        raise AssertionError("no master within %d s" % timeout)

    def standbys(self):
        master = self.master()
        return [s for s in self.servers if s.proc.poll() is None and s is not master]

    def kill9(self, server):
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(timeout=10)

    def stop(self):
        for server in self.servers:
            if server.proc.poll() is None:
                try:
                    server.proc.send_signal(signal.SIGCONT)
                    server.proc.terminate()
                    server.proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    server.proc.kill()
                    server.proc.wait(timeout=10)
        subprocess.run([os.path.join(REPO_ROOT, "scripts", self.s3_script), "stop",
                        self.s3[self.s3_pid_var]], cwd=REPO_ROOT)
        self._stop_etcd()

    def _stop_etcd(self):
        subprocess.run([os.path.join(REPO_ROOT, "scripts", "etcd-env"), "stop",
                        self.etcd["ETCD_PID"]], cwd=REPO_ROOT)
