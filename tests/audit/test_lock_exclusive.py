"""Real `ccbridge run` processes take the audit log's lock exclusively: while anyone else holds
it, even shared, none of them has it (a shared lock would let two writers rotate and append at
once, and records would be lost or interleaved), and none waits for it for ever: a lock held for
ever must not hold up every hook call, so each appends its record whole after `LOCK_WAIT`,
without the lock and without rotating.

What shows a writer did not have the lock is its effect, not a time window: the log is past its
size cap, so a writer holding the lock would rotate it; while the test holds the lock, none
does, and the first run after it is released does."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import time
from pathlib import Path

from bridge.audit.log import LOCK_WAIT
from tests.support.sandbox import Sandbox, encode, pre_tool_use

RUNS = 3
CAP = 4096  # the smallest audit.max_bytes a config may set


def test_ccbridge_runs_never_take_the_audit_lock_another_holds(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    config = sandbox.write_config({}, audit={"max_bytes": CAP, "keep": 3})
    sandbox.state.mkdir(parents=True, exist_ok=True)
    full = b"".join(
        json.dumps({"session": f"old-{n}", "pad": "x" * 60}).encode() + b"\n" for n in range(64)
    )
    assert len(full) > CAP
    sandbox.audit_path.write_bytes(full)
    lock = os.open(sandbox.state / "audit.jsonl.lock", os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_SH)  # as a second writer would hold it, were writers to share
    try:
        started = time.monotonic()
        bridges = []
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
        for bridge in bridges:  # the lock is still held: each ends after its bounded wait
            _out, err = bridge.communicate(timeout=120)
            assert (bridge.returncode, err) == (0, b""), err
        # a lower bound only: load makes it longer, never shorter
        assert time.monotonic() - started >= LOCK_WAIT
        rotated = sorted(path.name for path in sandbox.state.glob("audit.jsonl.*[0-9]"))
        assert rotated == [], "a ccbridge run rotated the log while another held its lock"
        text = sandbox.audit_path.read_bytes()
        assert text.startswith(full)
        added = [json.loads(line)["session"] for line in text[len(full) :].splitlines()]
        assert sorted(added) == [f"session-{n}" for n in range(RUNS)]  # each whole, on its line
    finally:
        os.close(lock)  # releases the flock
    after = sandbox.call_executable(config, encode(pre_tool_use(session_id="after")))
    assert after.exit_code == 0, after.stderr
    assert (sandbox.state / "audit.jsonl.1").read_bytes() == text  # with the lock, it rotates
    assert [record["session"] for record in log_records(sandbox.audit_path)] == ["after"]


def log_records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]
