"""What a refused goal change tells the agent (goal authority): the code, the exact message and
the machine-readable `required` levels, in-process so mutation testing sees them."""

from __future__ import annotations

import pytest

from bridge.goal.authority import (
    EventKind,
    Level,
    MessageSource,
    SessionEvent,
    SourceKind,
    authorize,
    held_levels,
    window_of,
)
from bridge.goal.errors import GoalError
from bridge.goal.model import Action
from tests.goal.test_authority import HUMAN_START, goal_at_round, judge, round_start


def refusal(action: Action, *args: object, **kwargs: object) -> dict[str, object]:
    with pytest.raises(GoalError) as raised:
        judge(action, *args, **kwargs)  # type: ignore[arg-type]
    return raised.value.to_dict()


def test_no_open_turn_names_the_requirement_and_the_fix() -> None:
    assert refusal(Action.EDIT, None, None) == {
        "code": "no_turn",
        "message": "no turn is open in this session; edit requires a direct human turn. If a "
        "human did prompt this turn, ccbridge is not registered for UserPromptSubmit and Stop: "
        "ask them to run `ccbridge install`",
        "required": ["direct-human"],
    }
    found = refusal(Action.COMPLETE, None, goal_at_round(1))
    assert found["required"] == ["direct-human", "goal-round"]
    assert str(found["message"]).startswith(
        "no turn is open in this session; complete and blocked require a direct human turn or "
        "the current goal round. "
    )


def test_blocking_too_early_says_how_many_rounds_are_needed() -> None:
    goal = goal_at_round(2)
    assert refusal(Action.BLOCKED, (round_start(goal),), goal) == {
        "code": "forbidden",
        "message": "blocked under goal-round authority needs at least 3 admitted rounds; goal "
        "g1 has 2. A human may mark it blocked at any time.",
        "required": ["direct-human", "goal-round"],
    }


def test_blocked_at_exactly_the_minimum_is_allowed() -> None:
    goal = goal_at_round(2)
    window = (round_start(goal),)
    assert authorize(Action.BLOCKED, window, goal, is_root=True, blocked_min_rounds=2) is (
        Level.GOAL_ROUND
    )
    with pytest.raises(GoalError):
        authorize(Action.BLOCKED, window, goal, is_root=True, blocked_min_rounds=3)


def test_a_subagent_refusal_says_so_first() -> None:
    goal = goal_at_round(1)
    assert refusal(Action.PAUSE, (HUMAN_START,), goal, root=False) == {
        "code": "forbidden",
        "message": "a subagent has no goal authority; pause requires a direct human turn",
        "required": ["direct-human"],
    }


def test_a_root_refusal_has_no_subagent_prefix() -> None:
    goal = goal_at_round(1)
    window = (SessionEvent(EventKind.TURN_START, MessageSource(SourceKind.PLUGIN)),)
    assert refusal(Action.RESUME, window, goal)["message"] == (
        "resume requires a direct human turn"
    )


def test_host_only_actions_are_named() -> None:
    assert refusal(Action.ROUND, (HUMAN_START,), goal_at_round(0)) == {
        "code": "forbidden",
        "message": "round is applied by the host only",
    }


def test_a_round_source_without_a_goal_holds_nothing() -> None:
    goal = goal_at_round(1)
    window = (round_start(goal),)
    assert held_levels(window, goal, is_root=True) == {Level.GOAL_ROUND}
    assert held_levels(window, None, is_root=True) == frozenset()
    assert held_levels((HUMAN_START,), None, is_root=True) == {Level.DIRECT_HUMAN}
    assert held_levels((HUMAN_START, *window), goal, is_root=False) == frozenset()
    with pytest.raises(GoalError):
        judge(Action.COMPLETE, window, None)


def test_a_source_is_a_round_only_as_a_continuation() -> None:
    goal = goal_at_round(1)
    same_numbers = MessageSource(SourceKind.HUMAN, goal.id, goal.revision, goal.rounds_started)
    assert not same_numbers.is_round_of(goal)
    assert MessageSource.continuation(goal.id, goal.revision, goal.rounds_started).is_round_of(goal)
    assert MessageSource.human() == MessageSource(SourceKind.HUMAN, None, None, None)


def test_a_closed_turn_followed_by_messages_is_still_closed() -> None:
    message = SessionEvent(EventKind.MESSAGE, MessageSource.human())
    end = SessionEvent(EventKind.TURN_END)
    assert window_of([HUMAN_START, message, end, message]) is None
    assert window_of([message, HUMAN_START]) == (HUMAN_START,)
    assert window_of([message]) is None
