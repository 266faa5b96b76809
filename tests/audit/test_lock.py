"""Appends to the audit log are serialised by an flock on the side lock file: an append waits
while another writer holds it (without the lock, concurrent rotations lose records, rarely
enough that the load tests alone do not notice)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from bridge.audit import log

APPEND = """
import sys
from pathlib import Path
from bridge.audit import log
print("ready", flush=True)
log.append(Path(sys.argv[1]), {"n": 1}, 1 << 20, 2)
"""


def test_an_append_waits_while_another_writer_holds_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lock = os.open(tmp_path / "audit.jsonl.lock", os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    writer = subprocess.Popen(
        [sys.executable, "-c", APPEND, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        time.sleep(0.5)  # an append takes well under a millisecond once started
        assert writer.poll() is None and not path.exists(), "the append did not wait"
    finally:
        os.close(lock)  # releases the flock
    assert writer.wait(timeout=30) == 0
    assert path.read_text() == '{"n":1}\n'


def test_an_audit_writer_waits_for_the_lock(tmp_path: Path) -> None:
    """In-process and deterministic where a race test is not: while someone holds the log's
    lock, a writer appends nothing; once it is released, the record lands."""
    path = tmp_path / "audit.jsonl"
    with open(tmp_path / "audit.jsonl.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        writer = threading.Thread(target=log.append, args=(path, {"n": 1}, 1 << 20, 2))
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive(), "the writer did not wait for the lock"
        assert not path.exists() or path.read_bytes() == b""
    writer.join(timeout=30)  # closing the file released the lock
    assert [record["n"] for record in log.read(path, 2)] == [1]
