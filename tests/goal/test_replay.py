"""Replay laws: accepted changes replay to the same state; a tampered log is refused."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bridge.goal import rules
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import UPDATE_ACTIONS, Action, Change, Goal, Phase
from bridge.goal.store import GoalStore

from .driver import refused


def replay_raw(events: Any) -> Goal | None:
    """Replay `goal/change` events as decoded from JSON, as the store reads its log."""
    return rules.replay(rules.parse_change(n, event) for n, event in enumerate(events, 1))


texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12
).filter(str.strip)
seconds = st.integers(0, 59)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("create"), seconds, texts, st.integers(1, 5)),
        st.tuples(
            st.just("update"),
            seconds,
            st.sampled_from(UPDATE_ACTIONS),
            st.sampled_from([0, 0, 0, 1, -1]),
            st.none() | texts,
            st.none() | st.integers(0, 6),
            st.none() | texts,
        ),
        st.tuples(st.just("round"), seconds, st.sampled_from([0, 0, 0, 1, -1]), st.booleans()),
        st.tuples(st.just("limit"), seconds),
    ),
    max_size=40,
)


def apply(state: Goal | None, operation: tuple[Any, ...], serial: int) -> Change:
    kind, second, *args = operation
    now = f"2026-01-01T00:{second // 60:02d}:{second % 60:02d}.000Z"
    goal_id = state.id if state is not None else "none"
    revision = state.revision if state is not None else 1
    if kind == "create":
        objective, max_rounds = args
        new = rules.create(
            state, goal_id=f"g{serial}", objective=objective, max_rounds=max_rounds, now=now
        )
        return Change(Action.CREATE, new)
    if kind == "update":
        action, offset, objective, max_rounds, reason = args
        new = rules.update(
            state, goal_id=goal_id, revision=revision + offset, action=action, now=now,
            objective=objective if action is Action.EDIT else None,
            max_rounds=max_rounds if action is Action.EDIT else None,
            reason=reason if action is Action.BLOCKED else None,
        )  # fmt: skip
        return Change(action, new)
    if state is None:
        raise GoalError(Code.NO_GOAL, "no goal yet")
    if kind == "round":
        skip, armed = args
        new = rules.admit_round(
            state,
            goal_id=goal_id,
            revision=revision,
            round=state.rounds_started + 1 + skip,
            armed=armed,
            now=now,
        )
        return Change(Action.ROUND, new)
    return Change(Action.BLOCKED, rules.block_at_round_limit(state, now))


def accepted(operations: list[tuple[Any, ...]]) -> tuple[list[Change], Goal | None]:
    """Run the operations through the rules, keeping the changes they accept."""
    state: Goal | None = None
    log: list[Change] = []
    for serial, operation in enumerate(operations):
        try:
            change = apply(state, operation, serial)
        except GoalError:
            continue
        log.append(change)
        state = change.goal
    return log, state


def events(log: list[Change]) -> list[dict[str, Any]]:
    return [json.loads(json.dumps(change.to_event())) for change in log]


@given(operations)
def test_accepted_changes_replay_to_the_same_state(operations: list[tuple[Any, ...]]) -> None:
    log, state = accepted(operations)
    assert rules.replay(log) == state
    assert replay_raw(events(log)) == state


@settings(max_examples=25, deadline=None)
@given(operations)
def test_stored_log_replays_to_the_stored_head(operations: list[tuple[Any, ...]]) -> None:
    log, state = accepted(operations)
    with tempfile.TemporaryDirectory() as directory:
        with GoalStore.open(Path(directory) / "g.sqlite3") as store, store.write() as tx:
            for change in log:
                tx.commit_change("s", change)
        with GoalStore.open(Path(directory) / "g.sqlite3") as store, store.read() as tx:
            assert tx.current_goal("s") == state
            assert rules.replay(tx.changes("s")) == state


def tamper(log: list[dict[str, Any]], kind: str, index: int) -> None:
    goal = log[index]["goal"]
    if kind == "revision":
        goal["revision"] += 1
    elif kind == "phase":
        other = next(phase for phase in Phase if phase.value != goal["phase"])
        goal["phase"] = other.value
        goal["blocked_reason"] = "tampered" if other is Phase.BLOCKED else None
    elif kind == "skip_round":
        goal["rounds_started"] += 1
    elif kind == "objective":
        goal["objective"] += "!"
    elif kind == "created_at":
        goal["created_at"] = "2025-01-01T00:00:00.000Z"
    elif kind == "drop":
        del log[index]
    elif kind == "swap":
        log[index], log[index + 1] = log[index + 1], log[index]


TAMPERS = ["revision", "phase", "skip_round", "objective", "created_at", "drop", "swap"]


@given(operations, st.sampled_from(TAMPERS), st.data())
def test_any_tampered_log_is_refused(
    operations: list[tuple[Any, ...]], kind: str, data: st.DataObject
) -> None:
    log, _ = accepted(operations)
    raw = events(log)
    if kind in ("drop", "swap"):
        # Dropping the last change leaves a valid shorter log, so tamper before the end.
        assume(len(raw) >= 2)
        index = data.draw(st.integers(0, len(raw) - 2))
    else:
        eligible = [
            i
            for i, change in enumerate(log)
            if (kind != "skip_round" or change.action is Action.ROUND)
            and (kind != "objective" or change.action not in (Action.CREATE, Action.EDIT))
            and (kind != "created_at" or change.action is not Action.CREATE)
        ]
        assume(eligible)
        index = data.draw(st.sampled_from(eligible))
    tamper(raw, kind, index)
    with refused(Code.CORRUPT_LOG):
        replay_raw(raw)


def test_replay_names_the_offending_change() -> None:
    log, _ = accepted([("create", 1, "o", 3), ("round", 2, 0, True), ("round", 3, 0, True)])
    raw = events(log)
    raw[2]["goal"]["rounds_started"] = 3
    raw[2]["goal"]["revision"] = 3
    try:
        replay_raw(raw)
    except GoalError as error:
        assert error.message.startswith("change 3 (round)")
    else:
        raise AssertionError("a skipped round was replayed")
