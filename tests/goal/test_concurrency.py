"""Many hook processes racing on one store: exactly one wins each revision."""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import sqlite3
import threading
import time
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from bridge.goal import rules
from bridge.goal.authority import EventKind, MessageSource, SessionEvent
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import Action, Change, utc_now
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore

from .driver import SessionDriver

WORKERS = 16
REVISIONS = 12
CONTEXT = multiprocessing.get_context("fork")


def run_workers(target: Any, *args: Any) -> list[tuple[Any, ...]]:
    """Start WORKERS processes at once; each reports tuples on the queue and then 'done'."""
    start = CONTEXT.Event()
    reports: multiprocessing.Queue[tuple[Any, ...]] = CONTEXT.Queue()
    processes = [
        CONTEXT.Process(target=target, args=(*args, worker, start, reports))
        for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    start.set()
    results: list[tuple[Any, ...]] = []
    done = 0
    while done < WORKERS:
        report = reports.get(timeout=120)
        if report[0] == "done":
            done += 1
        else:
            results.append(report)
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    return results


def race_revisions(db: Path, worker: int, start: Event, reports: Any) -> None:
    start.wait()
    with GoalStore.open(db) as store:
        for revision in range(1, REVISIONS + 1):
            try:
                with store.write() as tx:
                    goal = rules.update(
                        tx.current_goal("s"), goal_id="g1", revision=revision,
                        action=Action.EDIT, objective=f"worker {worker} won {revision}",
                        now=utc_now(),
                    )  # fmt: skip
                    tx.commit_change("s", Change(Action.EDIT, goal))
            except GoalError as error:
                if error.code is not Code.STALE_REVISION:
                    reports.put(("error", worker, error.to_dict()))
                continue
            reports.put(("won", worker, revision))
    reports.put(("done",))


def test_exactly_one_process_wins_each_revision(tmp_path: Path) -> None:
    db = tmp_path / "goals.sqlite3"
    with GoalStore.open(db) as store, store.write() as tx:
        goal = rules.create(None, goal_id="g1", objective="start", max_rounds=5, now=utc_now())
        tx.commit_change("s", Change(Action.CREATE, goal))

    results = run_workers(race_revisions, db)

    assert [r for r in results if r[0] == "error"] == []
    winners = {revision: worker for _, worker, revision in results}
    assert sorted(revision for _, _, revision in results) == list(range(1, REVISIONS + 1))
    with GoalStore.open(db) as store, store.read() as tx:
        log = tx.changes("s")
        assert rules.replay(log) == tx.current_goal("s")
    assert len(log) == REVISIONS + 1
    for change in log[1:]:
        revision = change.goal.revision - 1
        assert change.goal.objective == f"worker {winners[revision]} won {revision}"


def race_hook(settings: GoalSettings, worker: int, start: Event, reports: Any) -> None:
    start.wait()
    driver = SessionDriver(settings, "s", tool_uses=1000 * worker)  # ids unique, as in CC
    command = (
        f"ccbridge goal update --id g1 --revision 1 --action edit --objective 'worker {worker}'"
    )
    try:
        reports.put(("answer", worker, driver.bash(command)))
    except BaseException as error:  # report instead of dying silently in the child
        reports.put(("crash", worker, repr(error)))
    reports.put(("done",))


def test_racing_hook_processes_apply_one_change_per_revision(tmp_path: Path) -> None:
    settings = GoalSettings(state_dir=tmp_path, identity=lambda: None)
    driver = SessionDriver(settings, "s")
    driver.prompt()
    with GoalStore.open(settings.db_path) as store, store.write() as tx:
        goal = rules.create(None, goal_id="g1", objective="start", max_rounds=5, now=utc_now())
        tx.commit_change("s", Change(Action.CREATE, goal))

    results = run_workers(race_hook, settings)

    assert [r for r in results if r[0] == "crash"] == []
    applied = [worker for _, worker, answer in results if answer is None]
    denied = [answer for _, _, answer in results if answer is not None]
    assert len(applied) == 1
    assert len(denied) == WORKERS - 1
    assert all('"stale_revision"' in answer for answer in denied)
    final = driver.goal()
    assert final is not None
    assert (final.revision, final.objective) == (2, f"worker {applied[0]}")


def open_fresh(db: Path, worker: int, start: Event, reports: Any) -> None:
    start.wait()
    try:
        with GoalStore.open(db) as store, store.write() as tx:
            tx.append_event(
                f"s{worker}", SessionEvent(EventKind.TURN_START, MessageSource.human()), "t"
            )
        reports.put(("ok", worker))
    except GoalError as error:
        reports.put(("error", worker, error.message))
    reports.put(("done",))


def test_many_processes_can_create_the_store_at_once(tmp_path: Path) -> None:
    db = tmp_path / "new" / "goals.sqlite3"
    results = run_workers(open_fresh, db)
    assert sorted(results) == [("ok", worker) for worker in range(WORKERS)]
    with GoalStore.open(db) as store, store.read() as tx:
        assert all(tx.window(f"s{worker}") is not None for worker in range(WORKERS))


def test_opening_waits_for_a_creator_midway_instead_of_failing(tmp_path: Path) -> None:
    """Another process is creating the store (it holds the set-up lock and an open write
    transaction on the still rollback-journal file): switching to WAL then fails at once with
    "database is locked" unless the opener waits its turn, as it must."""
    db = tmp_path / "goals.sqlite3"
    creator = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    lock = os.open(db.with_name(db.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    creator.execute("BEGIN IMMEDIATE")
    creator.execute("CREATE TABLE scratch (x)")

    def finish() -> None:
        time.sleep(0.5)
        creator.execute("ROLLBACK")
        creator.close()
        os.close(lock)

    finisher = threading.Thread(target=finish)
    finisher.start()
    try:
        with GoalStore.open(db) as store, store.write() as tx:
            tx.append_event("s", SessionEvent(EventKind.TURN_START, MessageSource.human()), "t")
    finally:
        finisher.join()
    with GoalStore.open(db) as store, store.read() as tx:
        assert tx.window("s") is not None
