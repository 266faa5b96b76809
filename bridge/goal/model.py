"""The goal snapshot and the `goal/change` event that carries it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from bridge.goal.errors import Code, GoalError

MAX_OBJECTIVE_CHARS = 2000
MAX_REASON_CHARS = 1000
MAX_ROUNDS_LIMIT = 1000
ROUND_LIMIT_REASON = "round-limit"
CHANGE_EVENT = "goal/change"

# Fixed-width UTC timestamps, so that text order is time order.
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
_GOAL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Phase(StrEnum):
    ACTIVE = "active"
    PAUSED = "paused"
    BLOCKED = "blocked"
    COMPLETE = "complete"


class Action(StrEnum):
    CREATE = "create"
    EDIT = "edit"
    PAUSE = "pause"
    RESUME = "resume"
    COMPLETE = "complete"
    BLOCKED = "blocked"
    # Written only by the host when it admits a continuation round.
    ROUND = "round"


UPDATE_ACTIONS = (Action.EDIT, Action.PAUSE, Action.RESUME, Action.COMPLETE, Action.BLOCKED)


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _invalid(message: str) -> GoalError:
    return GoalError(Code.INVALID_REQUEST, message)


def _check_timestamp(name: str, value: str) -> None:
    if not _TIMESTAMP.fullmatch(value):
        raise _invalid(f"{name} must be a UTC timestamp like 2026-01-31T12:00:00.000Z")
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        raise _invalid(f"{name} is not a real date: {value}") from None


def check_text(name: str, value: str, limit: int) -> None:
    if not value.strip():
        raise _invalid(f"{name} must not be empty")
    if len(value) > limit:
        raise _invalid(f"{name} is longer than {limit} characters")


def check_max_rounds(value: int) -> None:
    if not 1 <= value <= MAX_ROUNDS_LIMIT:
        raise _invalid(f"max rounds must be between 1 and {MAX_ROUNDS_LIMIT}, got {value}")


@dataclass(frozen=True, slots=True)
class Goal:
    """The full state of one goal; constructing one checks every invariant."""

    id: str
    revision: int
    objective: str
    phase: Phase
    max_rounds: int
    blocked_reason: str | None
    rounds_started: int
    created_at: str
    updated_at: str

    def __post_init__(self) -> None:
        if not _GOAL_ID.fullmatch(self.id):
            raise _invalid("goal id must be 1-64 letters, digits, '_' or '-'")
        if self.revision < 1:
            raise _invalid(f"revision must be positive, got {self.revision}")
        check_text("objective", self.objective, MAX_OBJECTIVE_CHARS)
        check_max_rounds(self.max_rounds)
        if not 0 <= self.rounds_started <= self.max_rounds:
            raise _invalid(
                f"rounds started ({self.rounds_started}) must be between 0 and max rounds "
                f"({self.max_rounds})"
            )
        if (self.phase is Phase.BLOCKED) != (self.blocked_reason is not None):
            raise _invalid("a blocked reason is present exactly when the goal is blocked")
        if self.blocked_reason is not None:
            check_text("blocked reason", self.blocked_reason, MAX_REASON_CHARS)
        _check_timestamp("created_at", self.created_at)
        _check_timestamp("updated_at", self.updated_at)
        if self.updated_at < self.created_at:
            raise _invalid("updated_at is before created_at")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "revision": self.revision,
            "objective": self.objective,
            "phase": self.phase.value,
            "max_rounds": self.max_rounds,
            "blocked_reason": self.blocked_reason,
            "rounds_started": self.rounds_started,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Goal:
        expected: dict[str, type | tuple[type, ...]] = {
            "id": str,
            "revision": int,
            "objective": str,
            "phase": str,
            "max_rounds": int,
            "blocked_reason": (str, type(None)),
            "rounds_started": int,
            "created_at": str,
            "updated_at": str,
        }
        if set(data) != set(expected):
            raise _invalid(f"goal snapshot must have exactly the fields {sorted(expected)}")
        for key, kind in expected.items():
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, kind):
                raise _invalid(f"goal field {key} has the wrong type")
        try:
            phase = Phase(data["phase"])
        except ValueError:
            raise _invalid(f"unknown goal phase {data['phase']!r}") from None
        return cls(
            id=data["id"],
            revision=data["revision"],
            objective=data["objective"],
            phase=phase,
            max_rounds=data["max_rounds"],
            blocked_reason=data["blocked_reason"],
            rounds_started=data["rounds_started"],
            created_at=data["created_at"],
            updated_at=data["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class Change:
    """One `goal/change` event: the action taken and the full snapshot after it."""

    action: Action
    goal: Goal

    def to_event(self) -> dict[str, Any]:
        return {"type": CHANGE_EVENT, "action": self.action.value, "goal": self.goal.to_dict()}

    @classmethod
    def from_event(cls, data: Any) -> Change:
        if not isinstance(data, Mapping) or data.get("type") != CHANGE_EVENT:
            raise _invalid(f"not a {CHANGE_EVENT} event")
        if set(data) != {"type", "action", "goal"}:
            raise _invalid(f"{CHANGE_EVENT} event must have exactly type, action and goal")
        try:
            action = Action(data["action"])
        except ValueError:
            raise _invalid(f"unknown goal action {data['action']!r}") from None
        goal = data["goal"]
        if not isinstance(goal, Mapping):
            raise _invalid(f"{CHANGE_EVENT} event has no goal object")
        return cls(action=action, goal=Goal.from_dict(goal))
