"""Who may change a goal: decided from host-stamped message sources in the current turn window."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bridge.goal.errors import Code, GoalError
from bridge.goal.model import Action, Goal
from bridge.goal.typed import PromptRef


class SourceKind(StrEnum):
    # A prompt Claude Code submitted as the user's (UserPromptSubmit). The host hands it to
    # `authorize` as human only once Claude Code's transcript shows a person typed it
    # (`GoalKeeper.judge`); until then, and when it does not, it counts as a delivery.
    HUMAN = "human"
    # A prompt Claude Code delivered by itself (a task notice, a wake-up, ...): never human.
    DELIVERY = "delivery"
    CONTINUATION = "continuation"
    PLUGIN = "plugin"


@dataclass(frozen=True, slots=True)
class MessageSource:
    """Where a user-side message came from, as stamped by the host (never read from text)."""

    kind: SourceKind
    goal_id: str | None = None
    revision: int | None = None
    round: int | None = None
    # For a prompt: which one (its prompt_id and text digest), to be found in the transcript.
    prompt: PromptRef | None = None

    @classmethod
    def human(cls, prompt: PromptRef | None = None) -> MessageSource:
        return cls(SourceKind.HUMAN, prompt=prompt)

    @classmethod
    def delivery(cls) -> MessageSource:
        return cls(SourceKind.DELIVERY)

    @classmethod
    def continuation(cls, goal_id: str, revision: int, round: int) -> MessageSource:
        return cls(SourceKind.CONTINUATION, goal_id, revision, round)

    def is_round_of(self, goal: Goal) -> bool:
        return self.kind is SourceKind.CONTINUATION and (
            self.goal_id,
            self.revision,
            self.round,
        ) == (goal.id, goal.revision, goal.rounds_started)


class EventKind(StrEnum):
    TURN_START = "turn_start"
    MESSAGE = "message"
    TURN_END = "turn_end"


@dataclass(frozen=True, slots=True)
class SessionEvent:
    kind: EventKind
    # None means the producer did not say; such a message never counts as human.
    source: MessageSource | None = None


Window = tuple[SessionEvent, ...]


def window_of(events: Sequence[SessionEvent]) -> Window | None:
    """The events from the latest turn start on, or None when no turn is open."""
    starts = [i for i, event in enumerate(events) if event.kind is EventKind.TURN_START]
    if not starts:
        return None
    window = tuple(events[starts[-1] :])
    if any(event.kind is EventKind.TURN_END for event in window):
        return None
    return window


class Level(StrEnum):
    DIRECT_HUMAN = "direct-human"
    GOAL_ROUND = "goal-round"


HUMAN_ONLY = frozenset({Level.DIRECT_HUMAN})
HUMAN_OR_ROUND = frozenset({Level.DIRECT_HUMAN, Level.GOAL_ROUND})
REQUIRED: dict[Action, frozenset[Level]] = {
    Action.CREATE: HUMAN_ONLY,
    Action.EDIT: HUMAN_ONLY,
    Action.PAUSE: HUMAN_ONLY,
    Action.RESUME: HUMAN_ONLY,
    Action.COMPLETE: HUMAN_OR_ROUND,
    Action.BLOCKED: HUMAN_OR_ROUND,
}


def held_levels(window: Window, goal: Goal | None, *, is_root: bool) -> frozenset[Level]:
    # A subagent holds nothing: the goal and its rounds belong to the root agent.
    if not is_root:
        return frozenset()
    sources = [event.source for event in window if event.source is not None]
    held = set()
    if any(source.kind is SourceKind.HUMAN for source in sources):
        held.add(Level.DIRECT_HUMAN)
    if goal is not None and any(source.is_round_of(goal) for source in sources):
        held.add(Level.GOAL_ROUND)
    return frozenset(held)


def _requirement(action: Action) -> str:
    if REQUIRED[action] == HUMAN_ONLY:
        return f"{action.value} requires a direct human turn"
    return "complete and blocked require a direct human turn or the current goal round"


def authorize(
    action: Action,
    window: Window | None,
    goal: Goal | None,
    *,
    is_root: bool,
    blocked_min_rounds: int,
) -> Level:
    """The level that allows `action` now, or a GoalError naming what was required."""
    if action not in REQUIRED:
        raise GoalError(Code.FORBIDDEN, f"{action.value} is applied by the host only")
    required = sorted(level.value for level in REQUIRED[action])
    if window is None:
        raise GoalError(
            Code.NO_TURN,
            f"no turn is open in this session; {_requirement(action)}. If a human did "
            "prompt this turn, ccbridge is not registered for UserPromptSubmit and Stop: "
            "ask them to run `ccbridge install`",
            required=required,
        )
    usable = held_levels(window, goal, is_root=is_root) & REQUIRED[action]
    if Level.DIRECT_HUMAN in usable:
        return Level.DIRECT_HUMAN
    if Level.GOAL_ROUND in usable and goal is not None:
        if action is Action.BLOCKED and goal.rounds_started < blocked_min_rounds:
            raise GoalError(
                Code.FORBIDDEN,
                f"blocked under goal-round authority needs at least {blocked_min_rounds} "
                f"admitted rounds; goal {goal.id} has {goal.rounds_started}. A human may mark "
                "it blocked at any time.",
                required=required,
            )
        return Level.GOAL_ROUND
    who = "a subagent has no goal authority; " if not is_root else ""
    raise GoalError(Code.FORBIDDEN, f"{who}{_requirement(action)}", required=required)
