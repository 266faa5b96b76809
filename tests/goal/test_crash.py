"""A writer killed mid-loop loses no acknowledged change and corrupts nothing."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
from pathlib import Path

from bridge.goal import rules
from bridge.goal.model import Action, Change, utc_now
from bridge.goal.store import GoalStore

ACKS_BEFORE_KILL = 40
CONTEXT = multiprocessing.get_context("fork")


def write_forever(db: Path, ack_fd: int) -> None:
    """Edit the goal again and again, acknowledging each commit on the pipe."""
    with GoalStore.open(db) as store:
        while True:
            with store.write() as tx:
                goal = tx.current_goal("s")
                assert goal is not None
                edited = rules.update(
                    goal, goal_id=goal.id, revision=goal.revision, action=Action.EDIT,
                    objective=f"edit {goal.revision}", now=utc_now(),
                )  # fmt: skip
                tx.commit_change("s", Change(Action.EDIT, edited))
            os.write(ack_fd, f"{edited.revision}\n".encode())


def kill_writer_after_acks(db: Path) -> list[int]:
    read_fd, write_fd = os.pipe()
    writer = CONTEXT.Process(target=write_forever, args=(db, write_fd))
    writer.start()
    os.close(write_fd)
    acked: list[int] = []
    buffer = b""
    with os.fdopen(read_fd, "rb") as pipe:
        while len(acked) < ACKS_BEFORE_KILL:
            chunk = pipe.read1(4096)
            assert chunk, "the writer died before it was killed"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            acked += [int(line) for line in lines]
        assert writer.pid is not None
        os.kill(writer.pid, signal.SIGKILL)
        writer.join()
        rest = buffer + pipe.read()
    acked += [int(line) for line in rest.split(b"\n") if line]
    assert writer.exitcode == -signal.SIGKILL
    return acked


def test_sigkilled_writer_loses_no_acknowledged_change(tmp_path: Path) -> None:
    db = tmp_path / "goals.sqlite3"
    with GoalStore.open(db) as store, store.write() as tx:
        goal = rules.create(None, goal_id="g1", objective="start", max_rounds=5, now=utc_now())
        tx.commit_change("s", Change(Action.CREATE, goal))

    for _ in range(3):
        acked = kill_writer_after_acks(db)
        raw = sqlite3.connect(db)
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        raw.close()
        with GoalStore.open(db) as store, store.read() as tx:
            log = tx.changes("s")
            head = rules.replay(log)
        assert head is not None
        assert head == log[-1].goal
        assert max(acked) <= head.revision
        assert [change.goal.revision for change in log] == list(range(1, head.revision + 1))
