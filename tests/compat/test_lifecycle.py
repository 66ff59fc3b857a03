"""The server process itself: a clean stop flushes and exits 0, and `kill -9` loses nothing
that was acknowledged. These tests start their own `strata server` (they are skipped when the
suite runs against an already running server)."""

import os
import signal
import time

import happybase
import pytest

from conftest import _start_strata, _stop_process

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("STRATA_COMPAT_SERVER")),
    reason="needs to start and kill its own strata server",
)


def _connect(port):
    return happybase.Connection("127.0.0.1", port, autoconnect=True)


def _write_round(conn, round_no, expected):
    """Acknowledged writes of every kind, recorded in `expected` (row -> value)."""
    t = conn.table("lifecycle")
    for i in range(50):
        row = b"r%03d" % i
        t.put(row, {b"cf:v": b"round%d" % round_no})
        expected[row] = b"round%d" % round_no
    with t.batch(batch_size=20) as b:
        for i in range(50, 100):
            row = b"r%03d" % i
            b.put(row, {b"cf:v": b"batch%d" % round_no})
            expected[row] = b"batch%d" % round_no
    t.delete(b"r%03d" % round_no)
    expected.pop(b"r%03d" % round_no)
    t.counter_inc(b"counter", b"cf:n", 7)


def _check(conn, expected, counter):
    t = conn.table("lifecycle")
    rows = {k: v[b"cf:v"] for k, v in t.scan(columns=[b"cf:v"]) if k != b"counter"}
    assert rows == expected
    assert t.counter_get(b"counter", b"cf:n") == counter


def test_kill_9_loses_no_acknowledged_write(tmp_path):
    proc, port, _ = _start_strata(str(tmp_path))
    try:
        conn = _connect(port)
        conn.create_table("lifecycle", {"cf": dict(max_versions=1)})
        expected, counter = {}, 0
        for round_no in range(3):
            _write_round(conn, round_no, expected)
            counter += 7
            conn.close()
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            proc, port, _ = _start_strata(str(tmp_path))
            conn = _connect(port)
            _check(conn, expected, counter)
        conn.close()
    finally:
        _stop_process(proc)


def test_sigterm_flushes_and_exits_cleanly(tmp_path):
    started = time.monotonic()
    proc, port, _ = _start_strata(str(tmp_path))
    ready_after = time.monotonic() - started
    try:
        conn = _connect(port)
        conn.create_table("lifecycle", {"cf": {}})
        expected = {}
        _write_round(conn, 0, expected)
        conn.close()
    finally:
        code = _stop_process(proc)
    assert code == 0, "SIGTERM must lead to a clean exit"
    assert ready_after < 10, "the server took %.1f s to accept connections" % ready_after
    # The flush on SIGTERM wrote SSTables; the restart finds everything.
    data = os.path.join(str(tmp_path), "data")
    tables = [f for _, _, files in os.walk(data) for f in files if f.endswith(".sst")]
    assert tables, "a clean stop flushes the memstores to SSTables"
    proc, port, _ = _start_strata(str(tmp_path))
    try:
        conn = _connect(port)
        _check(conn, expected, 7)
        conn.close()
    finally:
        assert _stop_process(proc) == 0
