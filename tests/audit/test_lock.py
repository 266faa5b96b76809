"""Appends to the audit log are serialised by an flock on the side lock file: an append waits
while another writer holds it (without the lock, concurrent rotations lose records, rarely
enough that the load tests alone do not notice)."""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bridge.audit import log

HANG = 60.0  # seconds: a bound on a test whose writer is stuck, far past any start-up

# The writer reports on stdout the first time it finds the lock held (its first pause between
# two tries), and never gives up on it while the test runs: the test knows it is waiting by
# that handshake, not by how long it has been running.
APPEND = """
import sys, time, types
from pathlib import Path
from bridge.audit import log

def pause(seconds):
    print("paused", flush=True)
    time.sleep(seconds)

log.time = types.SimpleNamespace(monotonic=time.monotonic, sleep=pause)
log.LOCK_WAIT = 3600.0
log.append(Path(sys.argv[1]), {"n": 1}, 1 << 20, 2)
print("done", flush=True)
"""


def test_an_append_waits_while_another_writer_holds_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    lock = os.open(tmp_path / "audit.jsonl.lock", os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_SH)  # shared: a writer taking the lock shared would not wait
    writer = subprocess.Popen(
        [sys.executable, "-c", APPEND, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None
        # a writer stuck in a blocking flock says nothing: HANG bounds the test, not a window
        assert select.select([writer.stdout], [], [], HANG)[0], "the writer never tried again"
        assert writer.stdout.readline() == "paused\n", "the append did not wait for the lock"
        assert not path.exists() or path.read_bytes() == b""
    finally:
        os.close(lock)  # releases the flock
    out, _ = writer.communicate(timeout=60)
    assert writer.returncode == 0 and out.endswith("done\n")
    assert path.read_text() == '{"n":1}\n'


class _Paused:
    """log's clock and sleep, telling when a writer first found the lock held."""

    def __init__(self) -> None:
        self.seen = threading.Event()
        self.monotonic = time.monotonic

    def sleep(self, seconds: float) -> None:
        self.seen.set()
        time.sleep(seconds)


def test_an_audit_writer_waits_for_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ordered, not timed: the writer is seen finding the lock held (its first pause between two
    tries); while the lock is still held it has appended nothing; once released, the record
    lands."""
    paused = _Paused()
    monkeypatch.setattr(log, "time", paused)
    monkeypatch.setattr(log, "LOCK_WAIT", 3600.0)  # not given up while this test holds it
    path = tmp_path / "audit.jsonl"
    with open(tmp_path / "audit.jsonl.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_SH)  # shared: a writer taking it shared would not wait
        writer = threading.Thread(target=log.append, args=(path, {"n": 1}, 1 << 20, 2))
        writer.start()
        give_up = time.monotonic() + HANG  # a writer stuck in a blocking flock never pauses
        while not paused.seen.wait(0.01) and writer.is_alive() and time.monotonic() < give_up:
            pass
        assert paused.seen.is_set(), "the writer appended without waiting for the lock"
        assert not path.exists() or path.read_bytes() == b""
    writer.join(timeout=60)  # closing the file released the lock
    assert not writer.is_alive()
    assert [record["n"] for record in log.read(path, 2)] == [1]


def test_a_writer_that_gave_up_on_the_lock_does_not_rotate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past its wait, a writer appends its line whole but leaves the rotation to the lock's
    holder: two rotations at once would lose a generation."""
    monkeypatch.setattr(log, "LOCK_WAIT", 0.0)  # gives up at its first try
    path = tmp_path / "audit.jsonl"
    full = b"".join(b'{"n":%d}\n' % n for n in range(50))
    path.write_bytes(full)
    with open(tmp_path / "audit.jsonl.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        # in a thread: a writer stuck in a blocking flock must fail the test, not hang it
        writer = threading.Thread(
            target=log.append, args=(path, {"n": 50}, len(full), 3), daemon=True
        )
        writer.start()
        writer.join(timeout=HANG)
        assert not writer.is_alive(), "the writer did not give up on the held lock"
    assert not (tmp_path / "audit.jsonl.1").exists()
    assert path.read_bytes() == full + b'{"n":50}\n'
    log.append(path, {"n": 51}, len(full), 3)  # with the lock: over the cap, it rotates
    assert (tmp_path / "audit.jsonl.1").read_bytes() == full + b'{"n":50}\n'
    assert path.read_bytes() == b'{"n":51}\n'


class _Clock:
    """A clock that moves only when a writer sleeps: how long it waits, whatever the load."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_writer_gives_up_on_a_held_lock_after_lock_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = _Clock()
    monkeypatch.setattr(log, "time", clock)
    with open(tmp_path / "lock", "w") as held, open(tmp_path / "lock", "w") as writer:
        fcntl.flock(held, fcntl.LOCK_EX)
        had: list[bool] = []
        # in a thread: a writer stuck in a blocking flock must fail the test, not hang it
        trying = threading.Thread(
            target=lambda: had.append(log.lock_within(writer.fileno(), log.LOCK_WAIT)),
            daemon=True,
        )
        trying.start()
        trying.join(timeout=HANG)
        assert had == [False], "the writer did not give up on the held lock"
        assert log.LOCK_WAIT <= clock.now <= log.LOCK_WAIT + 0.05  # its last pause at most
        assert log.LOCK_WAIT <= 1.0  # a hook call is held up by a second at most
        fcntl.flock(held, fcntl.LOCK_UN)
        assert log.lock_within(writer.fileno(), log.LOCK_WAIT) is True
