"""The short crash test for CI: a few SIGKILL cycles per durability level (crash_loop.py).

The soak (hundreds of cycles) is the same code run from the command line; see
docs/reliability.md."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import crash_loop  # noqa: E402


@pytest.mark.parametrize("durability,seed", [("sync_wal", 11), ("fsync_wal", 12)])
def test_acknowledged_operations_survive_kill_9(tmp_path, durability, seed):
    args = crash_loop.parse_args([
        "--cycles", "4", "--seed", str(seed), "--durability", durability,
        "--min-run", "0.3", "--max-run", "1.5", "--workdir", str(tmp_path),
    ])
    summary = crash_loop.run(args)
    assert summary["failures"] == [], summary["failures"]
    assert summary["cycles"] == 4
    # the load really ran and was checked: many acknowledged ops, some cut off by a kill
    assert summary["acked_ops"] > 40, summary
    assert summary["lost_or_wrong"] == 0


def test_the_ledger_catches_a_lost_write_and_a_resurrected_delete():
    """The checker itself: a missing acknowledged column and a column that must be absent
    are both reported, and an in-doubt op accepts either outcome."""
    from ledger import Ledger

    ledger = Ledger()
    ledger.ack({b"r1": {b"cf:a": b"1"}})
    ledger.ack({b"r2": {}})
    problems = ledger.verify({b"r2": {b"cf:a": b"old"}})
    assert any("r1" in p and "lost" in p for p in problems)
    assert any("r2" in p and "must be absent" in p for p in problems)
    ledger.in_doubt({b"r3": {}}, {b"r3": {b"cf:n": b"x"}})
    assert ledger.verify({b"r2": {b"cf:a": b"old"}, b"r3": {b"cf:n": b"x"}}) == []
