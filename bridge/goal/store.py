"""The durable goal store: one SQLite file in WAL mode shared by every hook process.

SQLite (standard library) because hook processes are short-lived and concurrent: `BEGIN
IMMEDIATE` serialises writers across processes, so a revision check followed by an insert is
an exactly-once compare-and-set; UNIQUE(goal_id, revision) backs that up in the schema; and the
WAL journal with synchronous=FULL means a killed writer leaves either its whole transaction or
none of it. Reads of the current goal and of the turn window use indexes and never scan the
history, so their cost does not grow with it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.audit.log import lock_within
from bridge.goal.activation import ProcessIdentity
from bridge.goal.authority import (
    EventKind,
    MessageSource,
    SessionEvent,
    SourceKind,
    Window,
    window_of,
)
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import Change, Goal
from bridge.goal.rules import check_change, parse_change
from bridge.goal.typed import PromptRef
from bridge.paths import open_regular

SCHEMA_VERSION = 3
_SCHEMA_V1 = """
CREATE TABLE goal_changes (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    goal_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (goal_id, revision)
) WITHOUT ROWID;
CREATE TABLE session_events (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    source_kind TEXT,
    goal_id TEXT,
    revision INTEGER,
    round INTEGER,
    at TEXT NOT NULL
);
CREATE INDEX session_events_by_session ON session_events (session_id);
CREATE INDEX session_events_by_kind ON session_events (session_id, kind);
CREATE INDEX session_events_by_source ON session_events (session_id, kind, source_kind);
CREATE TABLE activation (
    session_id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    start_time INTEGER NOT NULL,
    boot_id TEXT NOT NULL
);
CREATE TABLE outcomes (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    turn_id INTEGER,
    tool_use_id TEXT NOT NULL,
    request_key TEXT NOT NULL,
    outcome TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX outcomes_by_request ON outcomes (session_id, request_key, turn_id);
"""
# A judged goal change waits here for evidence that Claude Code ran its command.
_SCHEMA_V2 = """
CREATE TABLE pending (
    session_id TEXT NOT NULL,
    tool_use_id TEXT NOT NULL,
    command TEXT NOT NULL,
    turn_id INTEGER,
    head_goal_id TEXT,
    head_revision INTEGER,
    change TEXT NOT NULL,
    outcome TEXT NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (session_id, tool_use_id)
) WITHOUT ROWID;
"""
# Which prompt a turn start recorded at UserPromptSubmit stands for (see bridge/goal/typed.py).
_SCHEMA_V3 = """
ALTER TABLE session_events ADD COLUMN prompt_id TEXT;
ALTER TABLE session_events ADD COLUMN prompt_digest TEXT;
"""
# Each entry takes a store from version i + 1 to i + 2.
_MIGRATIONS = (_SCHEMA_V1, _SCHEMA_V2, _SCHEMA_V3)


def _storage_error(error: sqlite3.Error) -> GoalError:
    return GoalError(Code.STORAGE_ERROR, f"the goal state store failed: {error}")


def _corrupt(position: int, why: str) -> GoalError:
    return GoalError(Code.CORRUPT_LOG, f"change {position} in the goal log {why}")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class Transaction:
    """Reads and writes inside one SQLite transaction of a GoalStore."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    # -- goal changes -------------------------------------------------------------------------

    def _head(self, session_id: str) -> tuple[int, Goal | None]:
        row = self._db.execute(
            "SELECT seq, event FROM goal_changes WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        if row is None:
            return 0, None
        return row[0], _parse_change(row[0], row[1]).goal

    def current_goal(self, session_id: str) -> Goal | None:
        return self._head(session_id)[1]

    def current_goals(self) -> dict[str, Goal]:
        """Every session's current goal, by session id."""
        rows = self._db.execute(
            "SELECT session_id, seq, event FROM goal_changes JOIN (SELECT session_id, "
            "MAX(seq) AS seq FROM goal_changes GROUP BY session_id) USING (session_id, seq) "
            "ORDER BY session_id"
        ).fetchall()
        return {row[0]: _parse_change(row[1], row[2]).goal for row in rows}

    def commit_change(self, session_id: str, change: Change) -> None:
        """Append a change after checking it against the head; callers hold a write lock."""
        seq, head = self._head(session_id)
        check_change(head, change, seq + 1)
        self._db.execute(
            "INSERT INTO goal_changes (session_id, seq, goal_id, revision, event) "
            "VALUES (?, ?, ?, ?, ?)",
            (session_id, seq + 1, change.goal.id, change.goal.revision, _dumps(change.to_event())),
        )

    def changes(self, session_id: str) -> list[Change]:
        """The whole log, checked for gaps and for rows whose keys disagree with their event."""
        rows = self._db.execute(
            "SELECT seq, goal_id, revision, event FROM goal_changes WHERE session_id = ? "
            "ORDER BY seq",
            (session_id,),
        ).fetchall()
        log = []
        for position, (seq, goal_id, revision, event) in enumerate(rows, start=1):
            if seq != position:
                raise _corrupt(position, f"is missing (found sequence number {seq})")
            change = _parse_change(position, event)
            if (change.goal.id, change.goal.revision) != (goal_id, revision):
                raise _corrupt(position, "has keys that disagree with its snapshot")
            log.append(change)
        return log

    # -- session events -----------------------------------------------------------------------

    def append_event(self, session_id: str, event: SessionEvent, at: str) -> None:
        source = event.source
        prompt = None if source is None else source.prompt
        self._db.execute(
            "INSERT INTO session_events "
            "(session_id, kind, source_kind, goal_id, revision, round, prompt_id, prompt_digest, "
            "at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                event.kind.value,
                None if source is None else source.kind.value,
                None if source is None else source.goal_id,
                None if source is None else source.revision,
                None if source is None else source.round,
                None if prompt is None else prompt.prompt_id,
                None if prompt is None else prompt.digest,
                at,
            ),
        )

    def turn_id(self, session_id: str) -> int | None:
        row = self._db.execute(
            "SELECT MAX(id) FROM session_events WHERE session_id = ? AND kind = ?",
            (session_id, EventKind.TURN_START.value),
        ).fetchone()
        return None if row is None else row[0]

    def window(self, session_id: str) -> Window | None:
        """The open turn's events, read from the latest turn start on and nothing earlier."""
        start = self.turn_id(session_id)
        if start is None:
            return None
        rows = self._db.execute(
            "SELECT kind, source_kind, goal_id, revision, round, prompt_id, prompt_digest "
            "FROM session_events WHERE session_id = ? AND id >= ? ORDER BY id",
            (session_id, start),
        ).fetchall()
        return window_of([_event(*row) for row in rows])

    def rounds_since_human(self, session_id: str) -> int:
        """Continuation turns since the latest prompt Claude Code submitted (a person's or a
        delivery): Claude Code's consecutive blocks."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM session_events WHERE session_id = ? AND kind = ? "
            "AND source_kind = ? AND id > COALESCE((SELECT MAX(id) FROM session_events "
            "WHERE session_id = ? AND kind = ? AND source_kind IN (?, ?)), 0)",
            (
                session_id,
                EventKind.TURN_START.value,
                SourceKind.CONTINUATION.value,
                session_id,
                EventKind.TURN_START.value,
                SourceKind.HUMAN.value,
                SourceKind.DELIVERY.value,
            ),
        ).fetchone()
        return int(row[0])

    # -- activation ---------------------------------------------------------------------------

    def is_armed(self, session_id: str, identity: ProcessIdentity | None) -> bool:
        if identity is None:
            return False
        row = self._db.execute(
            "SELECT pid, start_time, boot_id FROM activation WHERE session_id = ?", (session_id,)
        ).fetchone()
        return row is not None and tuple(row) == (
            identity.pid,
            identity.start_time,
            identity.boot_id,
        )

    def arm(self, session_id: str, identity: ProcessIdentity) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO activation (session_id, pid, start_time, boot_id) "
            "VALUES (?, ?, ?, ?)",
            (session_id, identity.pid, identity.start_time, identity.boot_id),
        )

    def disarm(self, session_id: str) -> None:
        self._db.execute("DELETE FROM activation WHERE session_id = ?", (session_id,))

    # -- outcomes of goal commands ------------------------------------------------------------

    def record_outcome(
        self,
        session_id: str,
        tool_use_id: str,
        request_key: str,
        outcome: Mapping[str, Any],
        at: str,
    ) -> None:
        self._db.execute(
            "INSERT INTO outcomes (session_id, turn_id, tool_use_id, request_key, outcome, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, self.turn_id(session_id), tool_use_id, request_key, _dumps(outcome), at),
        )

    def outcome_for(self, session_id: str, request_key: str) -> dict[str, Any] | None:
        """The latest outcome recorded for this request during the current turn, if any."""
        row = self._db.execute(
            "SELECT outcome FROM outcomes WHERE session_id = ? AND request_key = ? "
            "AND turn_id IS ? ORDER BY id DESC LIMIT 1",
            (session_id, request_key, self.turn_id(session_id)),
        ).fetchone()
        if row is None:
            return None
        value = json.loads(row[0])
        return value if isinstance(value, dict) else None

    # -- judged changes waiting for their command ---------------------------------------------

    def put_pending(self, session_id: str, tool_use_id: str, pending: Pending, now: float) -> None:
        self._db.execute("DELETE FROM pending WHERE expires < ?", (now,))
        head_id, head_revision = pending.head or (None, None)
        self._db.execute(
            "INSERT OR REPLACE INTO pending (session_id, tool_use_id, command, turn_id, "
            "head_goal_id, head_revision, change, outcome, expires) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                tool_use_id,
                pending.command,
                pending.turn_id,
                head_id,
                head_revision,
                _dumps(pending.change.to_event()),
                _dumps(pending.outcome),
                pending.expires,
            ),
        )

    def take_pending(self, session_id: str, tool_use_id: str) -> Pending | None:
        """The change judged for this call, removed so that no event can apply it twice."""
        rows = self._db.execute(
            "DELETE FROM pending WHERE session_id = ? AND tool_use_id = ? RETURNING "
            "command, turn_id, head_goal_id, head_revision, change, outcome, expires",
            (session_id, tool_use_id),
        ).fetchall()
        if not rows:
            return None
        command, turn_id, head_id, head_revision, change, outcome, expires = rows[0]
        head = None if head_id is None else (str(head_id), int(head_revision))
        return Pending(
            command, turn_id, head, _parse_change(0, change), json.loads(outcome), expires
        )


@dataclass(frozen=True, slots=True)
class Pending:
    """A judged goal change waiting for its command to run (see GoalKeeper.judge)."""

    command: str
    turn_id: int | None
    head: tuple[str, int] | None
    change: Change
    outcome: dict[str, Any]
    expires: float


def _event(
    kind: str,
    source_kind: str | None,
    goal_id: str | None,
    revision: int | None,
    round: int | None,
    prompt_id: str | None,
    prompt_digest: str | None,
) -> SessionEvent:
    prompt = (
        None if prompt_id is None or prompt_digest is None else PromptRef(prompt_id, prompt_digest)
    )
    known = source_kind in {member.value for member in SourceKind}
    # A source this version does not know is no source: it never counts as human.
    source = (
        MessageSource(SourceKind(source_kind), goal_id, revision, round, prompt)
        if known and source_kind is not None
        else None
    )
    return SessionEvent(EventKind(kind), source)


def _private_file(path: Path) -> None:
    """The store's directory 0700 and its file 0600 (SQLite gives -wal and -shm the file's
    mode): goal state is the authority, and other users have no business reading it."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _restrict(path.parent, 0o700)
    # A FIFO in its place would hang SQLite's reads, which retry past any signal.
    os.close(open_regular(path, os.O_RDWR | os.O_CREAT))
    _restrict(path, 0o600)


def _restrict(target: Path, mode: int) -> None:
    status = target.stat()
    if status.st_mode & 0o077 and status.st_uid == os.getuid():
        target.chmod(mode)


# A process that holds the set-up lock this long is stuck: the call fails (closed) instead of
# waiting for it.
STORE_LOCK_WAIT = 10.0


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    try:
        descriptor = open_regular(lock_path, os.O_RDWR | os.O_CREAT)
    except OSError as error:
        raise GoalError(Code.STORAGE_ERROR, f"cannot open {lock_path}: {error}") from None
    try:
        if not lock_within(descriptor, STORE_LOCK_WAIT):
            raise GoalError(
                Code.STORAGE_ERROR,
                f"{lock_path} has been held by another process for over {STORE_LOCK_WAIT:g} s",
            )
        yield
    finally:
        os.close(descriptor)


def _parse_change(position: int, text: str) -> Change:
    try:
        event = json.loads(text)
    except json.JSONDecodeError:
        raise _corrupt(position, "is not JSON") from None
    return parse_change(position, event)


class GoalStore:
    """One connection to the goal database; use `write()` or `read()` for each unit of work."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    @classmethod
    def open(cls, path: Path, *, timeout: float = 30.0) -> GoalStore:
        try:
            _private_file(path)
            db = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        except OSError as error:
            raise GoalError(Code.STORAGE_ERROR, f"cannot create {path}: {error}") from None
        except sqlite3.Error as error:
            raise _storage_error(error) from None
        store = cls(db)
        try:
            db.execute("PRAGMA synchronous = FULL")
            if store._schema_version() != SCHEMA_VERSION:
                store._set_up(path)
        except sqlite3.Error as error:
            store.close()
            raise _storage_error(error) from None
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def open_readonly(cls, path: Path, *, timeout: float = 30.0) -> GoalStore | None:
        """A reader that can never write; None when no goal was ever stored there.

        Where the directory is read-only (a command in Claude Code's sandbox, which keeps the
        state directory from the agent) SQLite cannot make the WAL index a reader needs, so the
        file is read as immutable instead: what the last writer committed, which every hook
        process checkpoints when it closes the store."""
        if not path.exists():
            return None
        uri = path.resolve().as_uri()
        try:
            db = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=timeout, isolation_level=None)
            try:
                db.execute("PRAGMA user_version").fetchone()
            except sqlite3.OperationalError:
                db.close()
                db = sqlite3.connect(
                    f"{uri}?mode=ro&immutable=1", uri=True, timeout=timeout, isolation_level=None
                )
        except sqlite3.Error as error:
            raise _storage_error(error) from None
        return cls(db)

    def _schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _set_up(self, path: Path) -> None:
        """WAL mode and the schema, for a new or older store. Switching to WAL needs the file
        to itself and SQLite may answer "database is locked" instead of waiting, so every
        process that sets up takes a lock file first; checking again under it settles a race."""
        with _exclusive(path.with_name(path.name + ".lock")):
            version = self._schema_version()
            if version == 0:
                self._db.execute("PRAGMA journal_mode = WAL")
            if version > SCHEMA_VERSION:
                raise GoalError(
                    Code.STORAGE_ERROR,
                    f"goal store has schema version {version}; ccbridge knows {SCHEMA_VERSION}",
                )
            with self.write():
                for schema in _MIGRATIONS[version:]:
                    for statement in schema.split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def write(self) -> Iterator[Transaction]:
        """An exclusive-writer transaction: committed whole when the block ends, else undone."""
        with self._transaction("BEGIN IMMEDIATE") as tx:
            yield tx

    @contextmanager
    def read(self) -> Iterator[Transaction]:
        with self._transaction("BEGIN") as tx:
            yield tx

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[Transaction]:
        try:
            self._db.execute(begin)
        except sqlite3.Error as error:
            raise _storage_error(error) from None
        try:
            yield Transaction(self._db)
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            self._rollback()
            raise _storage_error(error) from None
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> GoalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
