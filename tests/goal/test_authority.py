from __future__ import annotations

import pytest

from bridge.goal import rules
from bridge.goal.authority import (
    EventKind,
    Level,
    MessageSource,
    SessionEvent,
    SourceKind,
    Window,
    authorize,
    window_of,
)
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import UPDATE_ACTIONS, Action, Goal

from .driver import refused

NOW = "2026-01-01T00:00:05.000Z"
HUMAN_START = SessionEvent(EventKind.TURN_START, MessageSource.human())
END = SessionEvent(EventKind.TURN_END)


def goal_at_round(rounds: int) -> Goal:
    goal = rules.create(None, goal_id="g1", objective="o", max_rounds=10, now=NOW)
    for number in range(1, rounds + 1):
        goal = rules.admit_round(
            goal, goal_id="g1", revision=goal.revision, round=number, armed=True, now=NOW
        )
    return goal


def round_start(goal: Goal) -> SessionEvent:
    source = MessageSource.continuation(goal.id, goal.revision, goal.rounds_started)
    return SessionEvent(EventKind.TURN_START, source)


def judge(action: Action, window: Window | None, goal: Goal | None, *, root: bool = True) -> Level:
    return authorize(action, window, goal, is_root=root, blocked_min_rounds=3)


ALL_ACTIONS = [Action.CREATE, *UPDATE_ACTIONS]


def test_window_is_the_latest_open_turn() -> None:
    round_event = round_start(goal_at_round(1))
    assert window_of([]) is None
    assert window_of([HUMAN_START, END]) is None
    assert window_of([HUMAN_START, END, round_event]) == (round_event,)
    message = SessionEvent(EventKind.MESSAGE, MessageSource.human())
    assert window_of([HUMAN_START, round_event, message]) == (round_event, message)


@pytest.mark.parametrize("action", ALL_ACTIONS)
def test_no_open_turn_refuses_everything(action: Action) -> None:
    with refused(Code.NO_TURN):
        judge(action, None, goal_at_round(3))


@pytest.mark.parametrize("action", ALL_ACTIONS)
def test_direct_human_opens_every_action(action: Action) -> None:
    assert judge(action, (HUMAN_START,), goal_at_round(0)) is Level.DIRECT_HUMAN


@pytest.mark.parametrize("action", [Action.CREATE, Action.EDIT, Action.PAUSE, Action.RESUME])
def test_goal_round_cannot_create_edit_pause_or_resume(action: Action) -> None:
    goal = goal_at_round(4)
    with pytest.raises(GoalError) as raised:
        judge(action, (round_start(goal),), goal)
    assert raised.value.code is Code.FORBIDDEN
    assert raised.value.to_dict()["required"] == ["direct-human"]
    assert f"{action.value} requires a direct human turn" in raised.value.message


def test_goal_round_may_complete_and_block_from_round_three() -> None:
    for rounds in (1, 2):
        goal = goal_at_round(rounds)
        assert judge(Action.COMPLETE, (round_start(goal),), goal) is Level.GOAL_ROUND
        with refused(Code.FORBIDDEN):
            judge(Action.BLOCKED, (round_start(goal),), goal)
    goal = goal_at_round(3)
    assert judge(Action.BLOCKED, (round_start(goal),), goal) is Level.GOAL_ROUND


def test_blocked_minimum_is_configurable_and_humans_are_exempt() -> None:
    goal = goal_at_round(1)
    window = (round_start(goal),)
    assert authorize(Action.BLOCKED, window, goal, is_root=True, blocked_min_rounds=1)
    assert judge(Action.BLOCKED, (HUMAN_START,), goal_at_round(0)) is Level.DIRECT_HUMAN


def test_only_the_current_round_of_the_current_goal_counts() -> None:
    goal = goal_at_round(3)
    stale = [
        MessageSource.continuation("g1", goal.revision, 2),  # an older round
        MessageSource.continuation("g1", goal.revision - 1, 3),  # a stale revision
        MessageSource.continuation("g2", goal.revision, 3),  # another goal
        MessageSource.continuation("g1", goal.revision, 4),  # a round not yet admitted
    ]
    for source in stale:
        with pytest.raises(GoalError) as raised:
            judge(Action.COMPLETE, (SessionEvent(EventKind.TURN_START, source),), goal)
        assert raised.value.code is Code.FORBIDDEN
        assert raised.value.message == (
            "complete and blocked require a direct human turn or the current goal round"
        )


def test_messages_without_a_human_source_never_count_as_human() -> None:
    goal = goal_at_round(0)
    for source in (None, MessageSource(SourceKind.PLUGIN)):
        window = (
            SessionEvent(EventKind.TURN_START, source),
            SessionEvent(EventKind.MESSAGE, source),
        )
        with refused(Code.FORBIDDEN):
            judge(Action.EDIT, window, goal)


def test_a_human_anywhere_in_the_window_makes_it_direct_human() -> None:
    goal = goal_at_round(2)
    window = (round_start(goal), SessionEvent(EventKind.MESSAGE, MessageSource.human()))
    assert judge(Action.EDIT, window, goal) is Level.DIRECT_HUMAN


@pytest.mark.parametrize("action", ALL_ACTIONS)
def test_a_subagent_has_no_authority(action: Action) -> None:
    goal = goal_at_round(5)
    with pytest.raises(GoalError) as raised:
        judge(action, (HUMAN_START, round_start(goal)), goal, root=False)
    assert raised.value.code is Code.FORBIDDEN
    assert "subagent" in raised.value.message


def test_host_only_actions_are_never_authorized() -> None:
    with refused(Code.FORBIDDEN):
        judge(Action.ROUND, (HUMAN_START,), goal_at_round(0))
