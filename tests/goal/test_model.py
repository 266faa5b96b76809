from __future__ import annotations

from typing import Any

import pytest

from bridge.goal.errors import Code, GoalError
from bridge.goal.model import Action, Change, Goal, Phase, utc_now

SNAPSHOT: dict[str, Any] = {
    "id": "g1",
    "revision": 1,
    "objective": "make the tests pass",
    "phase": "active",
    "max_rounds": 5,
    "blocked_reason": None,
    "rounds_started": 0,
    "created_at": "2026-01-01T00:00:01.000Z",
    "updated_at": "2026-01-01T00:00:01.000Z",
}


def test_snapshot_round_trips_through_its_dict() -> None:
    goal = Goal.from_dict(SNAPSHOT)
    assert goal.phase is Phase.ACTIVE
    assert goal.to_dict() == SNAPSHOT


def test_change_event_carries_the_full_snapshot() -> None:
    change = Change(Action.CREATE, Goal.from_dict(SNAPSHOT))
    event = change.to_event()
    assert event == {"type": "goal/change", "action": "create", "goal": SNAPSHOT}
    assert Change.from_event(event) == change


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("revision", 0),
        ("revision", True),
        ("revision", "1"),
        ("objective", "   "),
        ("objective", "x" * 2001),
        ("phase", "running"),
        ("max_rounds", 0),
        ("max_rounds", 1001),
        ("rounds_started", 6),
        ("rounds_started", -1),
        ("blocked_reason", "stuck"),
        ("created_at", "2026-01-01 00:00:01"),
        ("created_at", "2026-02-30T00:00:01.000Z"),
        ("updated_at", "2025-12-31T23:59:59.000Z"),
        ("id", "has space"),
    ],
)
def test_snapshot_refuses_broken_invariants(field: str, value: Any) -> None:
    with pytest.raises(GoalError) as raised:
        Goal.from_dict({**SNAPSHOT, field: value})
    assert raised.value.code is Code.INVALID_REQUEST


def test_blocked_goal_needs_its_reason() -> None:
    with pytest.raises(GoalError):
        Goal.from_dict({**SNAPSHOT, "phase": "blocked"})
    blocked = Goal.from_dict({**SNAPSHOT, "phase": "blocked", "blocked_reason": "stuck"})
    assert blocked.blocked_reason == "stuck"


@pytest.mark.parametrize(
    "event",
    [
        None,
        [],
        {"type": "goal/other", "action": "create", "goal": SNAPSHOT},
        {"type": "goal/change", "action": "explode", "goal": SNAPSHOT},
        {"type": "goal/change", "action": "create", "goal": "g1"},
        {"type": "goal/change", "action": "create", "goal": SNAPSHOT, "extra": 1},
        {"type": "goal/change", "action": "create", "goal": {**SNAPSHOT, "extra": 1}},
    ],
)
def test_malformed_change_events_are_refused(event: Any) -> None:
    with pytest.raises(GoalError):
        Change.from_event(event)


def test_timestamps_sort_as_text_in_time_order() -> None:
    first = utc_now()
    assert Goal.from_dict({**SNAPSHOT, "created_at": first, "updated_at": first}).created_at
    assert first <= utc_now()
