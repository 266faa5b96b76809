"""The goal rules as pure functions: each takes the current snapshot and returns the next one.

The same functions judge live requests and replayed logs, so a log is valid exactly when every
change in it is what the rules would have produced.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields, replace
from typing import Any

from bridge.goal.errors import Code, GoalError
from bridge.goal.model import (
    MAX_REASON_CHARS,
    ROUND_LIMIT_REASON,
    Action,
    Change,
    Goal,
    Phase,
    check_max_rounds,
    check_text,
)


def _later(now: str, previous: str) -> str:
    """A change is never stamped before the one it follows, even if the clock stepped back."""
    return max(now, previous)


def _invalid_transition(goal: Goal, action: Action, why: str) -> GoalError:
    return GoalError(
        Code.INVALID_TRANSITION,
        f"cannot {action.value} goal {goal.id}: it is {goal.phase.value}; {why}",
        phase=goal.phase.value,
    )


def create(
    current: Goal | None, *, goal_id: str, objective: str, max_rounds: int, now: str
) -> Goal:
    if current is not None and current.phase is not Phase.COMPLETE:
        raise _invalid_transition(
            current,
            Action.CREATE,
            "a new goal may be created only when the current one is complete",
        )
    if current is not None and goal_id == current.id:
        raise GoalError(Code.INVALID_REQUEST, "a new goal needs an id of its own")
    at = now if current is None else _later(now, current.updated_at)
    return Goal(
        id=goal_id,
        revision=1,
        objective=objective,
        phase=Phase.ACTIVE,
        max_rounds=max_rounds,
        blocked_reason=None,
        rounds_started=0,
        created_at=at,
        updated_at=at,
    )


def expect(current: Goal | None, goal_id: str, revision: int) -> Goal:
    """Compare-and-set: the caller must name the current goal and its exact revision."""
    if current is None:
        raise GoalError(Code.NO_GOAL, "this session has no goal")
    if goal_id != current.id:
        raise GoalError(
            Code.UNKNOWN_GOAL,
            f"goal {goal_id} is not this session's current goal ({current.id})",
            current_id=current.id,
        )
    if revision != current.revision:
        raise GoalError(
            Code.STALE_REVISION,
            f"stale revision: the request expects revision {revision} but goal {current.id} "
            f"is at revision {current.revision}",
            current_revision=current.revision,
        )
    return current


def _no_extra(action: Action, **given: object) -> None:
    extra = sorted(name.replace("_", " ") for name, value in given.items() if value is not None)
    if extra:
        raise GoalError(Code.INVALID_REQUEST, f"{action.value} takes no {', '.join(extra)}")


def update(
    current: Goal | None,
    *,
    goal_id: str,
    revision: int,
    action: Action,
    now: str,
    objective: str | None = None,
    max_rounds: int | None = None,
    reason: str | None = None,
) -> Goal:
    goal = expect(current, goal_id, revision)
    at = _later(now, goal.updated_at)
    if action is Action.EDIT:
        _no_extra(action, reason=reason)
        return _edit(goal, objective, max_rounds, at)
    if action is Action.BLOCKED:
        _no_extra(action, objective=objective, max_rounds=max_rounds)
        if reason is None:
            raise GoalError(Code.INVALID_REQUEST, "blocked needs a reason")
        check_text("reason", reason, MAX_REASON_CHARS)
        if goal.phase is not Phase.ACTIVE:
            raise _invalid_transition(goal, action, "only an active goal can be blocked")
        return _next(goal, at, phase=Phase.BLOCKED, blocked_reason=reason)
    _no_extra(action, objective=objective, max_rounds=max_rounds, reason=reason)
    if action is Action.PAUSE:
        if goal.phase is not Phase.ACTIVE:
            raise _invalid_transition(goal, action, "only an active goal can be paused")
        return _next(goal, at, phase=Phase.PAUSED)
    if action is Action.RESUME:
        if goal.phase is Phase.COMPLETE:
            raise _invalid_transition(goal, action, "a complete goal stays complete")
        if goal.rounds_started >= goal.max_rounds:
            raise _invalid_transition(
                goal, action, "no rounds are left; raise max rounds with edit first"
            )
        return _next(goal, at, phase=Phase.ACTIVE, blocked_reason=None)
    if action is Action.COMPLETE:
        if goal.phase is Phase.COMPLETE:
            raise _invalid_transition(goal, action, "it is already complete")
        return _next(goal, at, phase=Phase.COMPLETE, blocked_reason=None)
    raise GoalError(Code.INVALID_REQUEST, f"{action.value} is not an update action")


def _edit(goal: Goal, objective: str | None, max_rounds: int | None, at: str) -> Goal:
    if goal.phase is Phase.COMPLETE:
        raise _invalid_transition(goal, Action.EDIT, "create a new goal instead")
    if objective is None and max_rounds is None:
        raise GoalError(Code.INVALID_REQUEST, "edit needs a new objective or max rounds")
    if max_rounds is not None:
        check_max_rounds(max_rounds)
        if max_rounds < goal.rounds_started:
            raise GoalError(
                Code.INVALID_REQUEST,
                f"max rounds cannot go below the {goal.rounds_started} rounds already started",
            )
    return _next(
        goal,
        at,
        objective=goal.objective if objective is None else objective,
        max_rounds=goal.max_rounds if max_rounds is None else max_rounds,
    )


def _next(goal: Goal, at: str, **changes: object) -> Goal:
    return replace(goal, revision=goal.revision + 1, updated_at=at, **changes)  # type: ignore[arg-type]


def admit_round(
    current: Goal | None, *, goal_id: str, revision: int, round: int, armed: bool, now: str
) -> Goal:
    """Start continuation round `round`; the result's revision is the one the round carries."""
    goal = expect(current, goal_id, revision)
    if goal.phase is not Phase.ACTIVE:
        raise _invalid_transition(goal, Action.ROUND, "rounds run only while the goal is active")
    if not armed:
        raise GoalError(
            Code.NOT_ARMED, f"goal {goal.id} is not armed in this process; a human must resume it"
        )
    if round != goal.rounds_started + 1:
        raise GoalError(
            Code.ROUND_MISMATCH,
            f"round {round} does not follow round {goal.rounds_started} of goal {goal.id}",
        )
    if round > goal.max_rounds:
        raise GoalError(
            Code.ROUND_LIMIT, f"round {round} is past goal {goal.id}'s cap of {goal.max_rounds}"
        )
    return _next(goal, _later(now, goal.updated_at), rounds_started=round)


def block_at_round_limit(goal: Goal, now: str) -> Goal:
    if goal.rounds_started < goal.max_rounds:
        raise GoalError(Code.INVALID_REQUEST, f"goal {goal.id} still has rounds left")
    return update(
        goal,
        goal_id=goal.id,
        revision=goal.revision,
        action=Action.BLOCKED,
        reason=ROUND_LIMIT_REASON,
        now=now,
    )


def expected_after(previous: Goal | None, change: Change) -> Goal:
    """What the rules produce for `change.action` with the parameters its snapshot shows."""
    goal = change.goal
    if change.action is Action.CREATE:
        return create(
            previous,
            goal_id=goal.id,
            objective=goal.objective,
            max_rounds=goal.max_rounds,
            now=goal.created_at,
        )
    base_revision = previous.revision if previous is not None else 0
    if change.action is Action.ROUND:
        return admit_round(
            previous,
            goal_id=goal.id,
            revision=base_revision,
            round=goal.rounds_started,
            armed=True,
            now=goal.updated_at,
        )
    return update(
        previous,
        goal_id=goal.id,
        revision=base_revision,
        action=change.action,
        now=goal.updated_at,
        objective=goal.objective if change.action is Action.EDIT else None,
        max_rounds=goal.max_rounds if change.action is Action.EDIT else None,
        reason=goal.blocked_reason if change.action is Action.BLOCKED else None,
    )


def check_change(previous: Goal | None, change: Change, position: int) -> None:
    """Refuse a change the rules would not have produced; `position` counts from 1."""
    label = f"change {position} ({change.action.value})"
    try:
        expected = expected_after(previous, change)
    except GoalError as error:
        raise GoalError(
            Code.CORRUPT_LOG, f"{label} breaks the goal rules: {error.message}"
        ) from None
    if expected != change.goal:
        differing = [
            f.name
            for f in fields(Goal)
            if getattr(expected, f.name) != getattr(change.goal, f.name)
        ]
        raise GoalError(
            Code.CORRUPT_LOG,
            f"{label} snapshot differs from what the rules produce in: {', '.join(differing)}",
        )


def replay(changes: Iterable[Change]) -> Goal | None:
    """Fold a session's log into its current goal, validating every change on the way. No call
    needs it (the store reads the latest snapshot); kept as the spec's law that replaying the log
    reproduces the state (docs/spec/goal-authority.md), which tests/goal/test_replay.py holds."""
    state: Goal | None = None
    for position, change in enumerate(changes, start=1):
        check_change(state, change, position)
        state = change.goal
    return state


def parse_change(position: int, event: Any) -> Change:
    """A logged `goal/change` event; a malformed one makes the whole log refused."""
    try:
        return Change.from_event(event)
    except GoalError as error:
        raise GoalError(
            Code.CORRUPT_LOG, f"change {position} in the goal log is malformed: {error.message}"
        ) from None
