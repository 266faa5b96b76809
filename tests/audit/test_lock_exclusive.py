"""Real `ccbridge run` processes take the audit log's lock exclusively: while anyone else holds
it, even shared, each of them waits for it (a shared lock would let two writers rotate and
append at once, and records would be lost or interleaved), and for at most `LOCK_WAIT`: a lock
held for ever must not hold up every hook call, so each then appends its record whole, without
the lock and without rotating."""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from pathlib import Path

from bridge.audit.log import LOCK_WAIT
from tests.support.sandbox import Sandbox, encode, pre_tool_use

RUNS = 3


def test_ccbridge_runs_wait_while_another_holds_the_audit_lock(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    config = sandbox.write_config({})
    lock = os.open(sandbox.state / "audit.jsonl.lock", os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_SH)  # as a second writer would hold it, were writers to share
    bridges = []
    try:
        started = time.monotonic()
        for n in range(RUNS):
            event = tmp_path / f"event-{n}.json"
            event.write_bytes(encode(pre_tool_use(session_id=f"session-{n}")))
            with open(event, "rb") as stdin:
                bridges.append(
                    subprocess.Popen(
                        sandbox.command(config),
                        stdin=stdin,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                        env=sandbox.env,
                    )
                )
        time.sleep(LOCK_WAIT / 2)
        assert [bridge.pid for bridge in bridges if bridge.poll() is not None] == [], (
            "a ccbridge run finished at once while another held the audit lock"
        )
        assert not sandbox.audit_path.exists() or sandbox.audit_path.read_bytes() == b""
        for bridge in bridges:  # the lock is still held: each ends after its bounded wait
            _out, err = bridge.communicate(timeout=60)
            assert (bridge.returncode, err) == (0, b""), err
        assert time.monotonic() - started >= LOCK_WAIT
    finally:
        os.close(lock)  # releases the flock
    sessions = sorted(record["session"] for record in sandbox.audit())
    assert sessions == [f"session-{n}" for n in range(RUNS)]
