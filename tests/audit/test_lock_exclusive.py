"""Real `ccbridge run` processes take the audit log's lock exclusively: while anyone else holds
it, even shared, each of them waits and writes nothing. A shared lock would let two writers
rotate and append at once, and records would be lost or interleaved."""

from __future__ import annotations

import fcntl
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.sandbox import Sandbox, encode, pre_tool_use

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="needs /proc/locks")

RUNS = 3


def waiting_for_write(inode: int) -> set[int]:
    """The pids blocked on an exclusive POSIX lock (`lockf`) of the file with this inode
    (/proc/locks lists a waiter as `N: -> POSIX ADVISORY WRITE PID MAJ:MIN:INODE ...`)."""
    waiters = set()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        waits = fields[1:3] == ["->", "POSIX"] and fields[4] == "WRITE"
        if waits and int(fields[6].rsplit(":", 1)[1]) == inode:
            waiters.add(int(fields[5]))
    return waiters


def test_ccbridge_runs_wait_while_another_holds_the_audit_lock(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    config = sandbox.write_config({})
    lock = os.open(sandbox.state / "audit.jsonl.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.lockf(lock, fcntl.LOCK_SH)  # as a second writer would hold it, were writers to share
    inode = os.fstat(lock).st_ino
    bridges = []
    try:
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
        pids = {bridge.pid for bridge in bridges}
        deadline = time.monotonic() + 60  # bounded: start-up on a loaded machine
        while time.monotonic() < deadline:
            ended = [bridge.pid for bridge in bridges if bridge.poll() is not None]
            if ended or waiting_for_write(inode) >= pids:
                break
            time.sleep(0.02)
        assert ended == [], "a ccbridge run finished while another held the audit lock"
        assert waiting_for_write(inode) >= pids, "not every ccbridge run waits for the lock"
        assert not sandbox.audit_path.exists() or sandbox.audit_path.read_bytes() == b""
    finally:
        os.close(lock)  # releases the lock
    for bridge in bridges:
        _out, err = bridge.communicate(timeout=60)
        assert (bridge.returncode, err) == (0, b""), err
    sessions = sorted(record["session"] for record in sandbox.audit())
    assert sessions == [f"session-{n}" for n in range(RUNS)]
