from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from bridge.goal import rules
from bridge.goal.activation import ProcessIdentity
from bridge.goal.authority import EventKind, MessageSource, SessionEvent
from bridge.goal.errors import Code
from bridge.goal.model import Action, Change, Goal
from bridge.goal.store import _SCHEMA_V1, SCHEMA_VERSION, GoalStore, Pending, _dumps

from .driver import refused

NOW = "2026-01-01T00:00:05.000Z"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "goals.sqlite3"


def created() -> Change:
    return Change(
        Action.CREATE, rules.create(None, goal_id="g1", objective="o", max_rounds=3, now=NOW)
    )


def paused(goal: Goal) -> Change:
    return Change(
        Action.PAUSE,
        rules.update(goal, goal_id=goal.id, revision=goal.revision, action=Action.PAUSE, now=NOW),
    )


def test_opens_in_wal_mode_with_its_schema(db: Path) -> None:
    with GoalStore.open(db):
        pass
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_the_store_is_private_to_its_user(db: Path) -> None:
    db.parent.mkdir(mode=0o755)
    db.parent.chmod(0o755)  # whatever the umask, as another tool might have left it
    with GoalStore.open(db) as store, store.write() as tx:
        tx.append_event("s", SessionEvent(EventKind.TURN_START, MessageSource.human()), NOW)
        files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
        assert {path.name: stat.S_IMODE(path.stat().st_mode) for path in files} == {
            path.name: 0o600 for path in files
        }
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


def test_a_version_1_store_gains_the_pending_table(db: Path) -> None:
    db.parent.mkdir()
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("PRAGMA journal_mode = WAL")
    for statement in _SCHEMA_V1.split(";"):
        if statement.strip():
            raw.execute(statement)
    raw.execute("PRAGMA user_version = 1")
    raw.execute(
        "INSERT INTO goal_changes VALUES ('s', 1, 'g1', 1, ?)", (_dumps(created().to_event()),)
    )
    raw.close()
    with GoalStore.open(db) as store, store.read() as tx:
        assert tx.current_goal("s") == created().goal
        assert tx.take_pending("s", "t") is None


def test_a_pending_change_is_taken_once(db: Path) -> None:
    pending = Pending("cmd", 3, ("g1", 1), created(), {"ok": True}, expires=100.0)
    with GoalStore.open(db) as store:
        with store.write() as tx:
            tx.put_pending("s", "t1", pending, now=50.0)
        with store.write() as tx:
            assert tx.take_pending("s", "t1") == pending
            assert tx.take_pending("s", "t1") is None


def test_expired_pending_changes_are_swept(db: Path) -> None:
    old = Pending("cmd", 3, None, created(), {}, expires=10.0)
    with GoalStore.open(db) as store, store.write() as tx:
        tx.put_pending("s", "t1", old, now=5.0)
        tx.put_pending("s", "t2", old, now=20.0)
        assert tx.take_pending("s", "t1") is None


def test_commit_checks_each_change_against_the_head(db: Path) -> None:
    first = created()
    with GoalStore.open(db) as store:
        with store.write() as tx:
            tx.commit_change("s", first)
        with refused(Code.CORRUPT_LOG), store.write() as tx:
            tx.commit_change("s", first)
        with store.write() as tx:
            tx.commit_change("s", paused(first.goal))
        with store.read() as tx:
            assert [c.action for c in tx.changes("s")] == [Action.CREATE, Action.PAUSE]
            assert tx.current_goal("s") == paused(first.goal).goal
            assert tx.current_goal("other") is None


def test_a_failed_transaction_writes_nothing(db: Path) -> None:
    with GoalStore.open(db) as store:
        with pytest.raises(RuntimeError), store.write() as tx:
            tx.commit_change("s", created())
            raise RuntimeError("crash inside the transaction")
        with store.read() as tx:
            assert tx.changes("s") == []


def test_unique_revision_constraint_backs_compare_and_set(db: Path) -> None:
    with GoalStore.open(db) as store, store.write() as tx:
        tx.commit_change("s", created())
    raw = sqlite3.connect(db)
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute(
            "INSERT INTO goal_changes VALUES ('other', 1, 'g1', 1, '{}')",
        )


def test_tampered_rows_are_refused_on_replay(db: Path) -> None:
    first = created()
    with GoalStore.open(db) as store, store.write() as tx:
        tx.commit_change("s", first)
        tx.commit_change("s", paused(first.goal))
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("UPDATE goal_changes SET revision = 9 WHERE seq = 2")
    with GoalStore.open(db) as store, store.read() as tx, refused(Code.CORRUPT_LOG):
        tx.changes("s")
    raw.execute("DELETE FROM goal_changes WHERE seq = 1")
    with GoalStore.open(db) as store, store.read() as tx, refused(Code.CORRUPT_LOG):
        tx.changes("s")
    raw.execute("UPDATE goal_changes SET event = 'not json'")
    with GoalStore.open(db) as store, store.read() as tx, refused(Code.CORRUPT_LOG):
        tx.current_goal("s")


def test_window_and_round_count_come_from_the_event_log(db: Path) -> None:
    human = SessionEvent(EventKind.TURN_START, MessageSource.human())
    round_one = SessionEvent(EventKind.TURN_START, MessageSource.continuation("g1", 2, 1))
    with GoalStore.open(db) as store, store.write() as tx:
        assert tx.window("s") is None
        tx.append_event("s", human, NOW)
        tx.append_event("s", SessionEvent(EventKind.TURN_END), NOW)
        assert tx.window("s") is None
        tx.append_event("s", human, NOW)
        tx.append_event("other", SessionEvent(EventKind.TURN_END), NOW)
        tx.append_event("s", round_one, NOW)
        tx.append_event("s", SessionEvent(EventKind.MESSAGE), NOW)
        assert tx.window("s") == (round_one, SessionEvent(EventKind.MESSAGE))
        assert tx.rounds_since_human("s") == 1
        tx.append_event("s", human, NOW)
        assert tx.rounds_since_human("s") == 0


def test_authority_reads_use_indexes_not_scans(db: Path) -> None:
    """Bounded cost: every per-session read is an index search, whatever the history size."""
    with GoalStore.open(db) as store, store.write() as tx:
        tx.append_event("s", SessionEvent(EventKind.TURN_START, MessageSource.human()), NOW)
    traced: list[str] = []
    raw = sqlite3.connect(db, isolation_level=None)
    raw.set_trace_callback(traced.append)
    store = GoalStore(raw)
    with store.read() as tx:
        tx.window("s")
        tx.current_goal("s")
        tx.rounds_since_human("s")
        tx.outcome_for("s", "key")
        tx.is_armed("s", ProcessIdentity(1, 2, "b"))
    queries = [q for q in traced if q.lstrip().upper().startswith("SELECT")]
    assert len(queries) >= 5
    for query in queries:
        plan = " ".join(row[3] for row in raw.execute(f"EXPLAIN QUERY PLAN {query}"))
        assert "SCAN" not in plan, (query, plan)


def test_activation_matches_only_the_same_process(db: Path) -> None:
    identity = ProcessIdentity(10, 20, "boot")
    with GoalStore.open(db) as store, store.write() as tx:
        assert not tx.is_armed("s", identity)
        tx.arm("s", identity)
        assert tx.is_armed("s", identity)
        assert not tx.is_armed("s", ProcessIdentity(10, 21, "boot"))
        assert not tx.is_armed("s", ProcessIdentity(10, 20, "other-boot"))
        assert not tx.is_armed("s", None)
        assert not tx.is_armed("s2", identity)
        tx.disarm("s")
        assert not tx.is_armed("s", identity)


def test_readonly_store_cannot_write(db: Path) -> None:
    assert GoalStore.open_readonly(db) is None
    with GoalStore.open(db):
        pass
    reader = GoalStore.open_readonly(db)
    assert reader is not None
    with reader, refused(Code.STORAGE_ERROR), reader.write() as tx:
        tx.commit_change("s", created())


def test_unknown_schema_version_is_a_clear_error(db: Path) -> None:
    with GoalStore.open(db):
        pass
    sqlite3.connect(db, isolation_level=None).execute("PRAGMA user_version = 7")
    with refused(Code.STORAGE_ERROR):
        GoalStore.open(db)


def test_unwritable_state_dir_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with refused(Code.STORAGE_ERROR):
        GoalStore.open(tmp_path / "file" / "goals.sqlite3")
