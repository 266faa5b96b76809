from __future__ import annotations

from typing import Any

import pytest

from bridge.goal import rules
from bridge.goal.errors import Code, GoalError
from bridge.goal.model import ROUND_LIMIT_REASON, Action, Goal, Phase

from .driver import refused

NOW = "2026-01-01T00:00:05.000Z"


def new_goal(max_rounds: int = 5) -> Goal:
    return rules.create(
        None,
        goal_id="g1",
        objective="ship it",
        max_rounds=max_rounds,
        now="2026-01-01T00:00:01.000Z",
    )


def act(goal: Goal | None, action: Action, *, revision: int | None = None, **params: Any) -> Goal:
    """Apply an update at the goal's current revision unless told otherwise."""
    current = revision if revision is not None else (goal.revision if goal else 1)
    return rules.update(
        goal,
        goal_id="g1",
        revision=current,
        action=action,
        now=NOW,
        **params,
    )


def admit(goal: Goal, *, armed: bool = True, skip: int = 0, revision: int | None = None) -> Goal:
    return rules.admit_round(
        goal,
        goal_id=goal.id,
        revision=goal.revision if revision is None else revision,
        round=goal.rounds_started + 1 + skip,
        armed=armed,
        now=NOW,
    )


def in_phase(phase: Phase) -> Goal:
    goal = new_goal()
    if phase is Phase.PAUSED:
        return act(goal, Action.PAUSE)
    if phase is Phase.BLOCKED:
        return act(goal, Action.BLOCKED, reason="stuck")
    if phase is Phase.COMPLETE:
        return act(goal, Action.COMPLETE)
    return goal


def test_create_starts_active_at_revision_one() -> None:
    goal = new_goal()
    assert (goal.revision, goal.phase, goal.rounds_started) == (1, Phase.ACTIVE, 0)
    assert goal.created_at == goal.updated_at


@pytest.mark.parametrize("phase", [Phase.ACTIVE, Phase.PAUSED, Phase.BLOCKED])
def test_create_refused_while_a_goal_is_unfinished(phase: Phase) -> None:
    with refused(Code.INVALID_TRANSITION):
        rules.create(in_phase(phase), goal_id="g2", objective="o", max_rounds=3, now=NOW)


def test_create_allowed_after_complete_with_a_fresh_id() -> None:
    done = in_phase(Phase.COMPLETE)
    again = rules.create(done, goal_id="g2", objective="next", max_rounds=3, now=NOW)
    assert (again.id, again.revision, again.phase) == ("g2", 1, Phase.ACTIVE)
    with refused(Code.INVALID_REQUEST):
        rules.create(done, goal_id="g1", objective="x", max_rounds=3, now=NOW)


def test_every_change_writes_revision_plus_one() -> None:
    edited = act(new_goal(), Action.EDIT, objective="b")
    paused = act(edited, Action.PAUSE)
    assert (edited.revision, paused.revision) == (2, 3)


def test_stale_revision_fails_and_names_the_current_one() -> None:
    with pytest.raises(GoalError) as raised:
        act(new_goal(), Action.PAUSE, revision=2)
    assert raised.value.code is Code.STALE_REVISION
    assert raised.value.to_dict()["current_revision"] == 1
    assert "stale revision" in raised.value.message


def test_update_needs_a_goal_and_its_id() -> None:
    with refused(Code.NO_GOAL):
        act(None, Action.PAUSE)
    with refused(Code.UNKNOWN_GOAL):
        rules.update(new_goal(), goal_id="g9", revision=1, action=Action.PAUSE, now=NOW)


ALLOWED = {
    (Action.PAUSE, Phase.ACTIVE): Phase.PAUSED,
    (Action.RESUME, Phase.ACTIVE): Phase.ACTIVE,
    (Action.RESUME, Phase.PAUSED): Phase.ACTIVE,
    (Action.RESUME, Phase.BLOCKED): Phase.ACTIVE,
    (Action.COMPLETE, Phase.ACTIVE): Phase.COMPLETE,
    (Action.COMPLETE, Phase.PAUSED): Phase.COMPLETE,
    (Action.COMPLETE, Phase.BLOCKED): Phase.COMPLETE,
    (Action.BLOCKED, Phase.ACTIVE): Phase.BLOCKED,
}


@pytest.mark.parametrize("phase", list(Phase))
@pytest.mark.parametrize("action", [Action.PAUSE, Action.RESUME, Action.COMPLETE, Action.BLOCKED])
def test_transition_table(action: Action, phase: Phase) -> None:
    goal = in_phase(phase)
    reason = "stuck" if action is Action.BLOCKED else None
    if (action, phase) not in ALLOWED:
        with refused(Code.INVALID_TRANSITION):
            act(goal, action, reason=reason)
        return
    after = act(goal, action, reason=reason)
    assert after.phase is ALLOWED[(action, phase)]
    assert after.blocked_reason == (reason if after.phase is Phase.BLOCKED else None)


@pytest.mark.parametrize("phase", [Phase.ACTIVE, Phase.PAUSED, Phase.BLOCKED])
def test_edit_changes_objective_and_cap_never_phase(phase: Phase) -> None:
    goal = in_phase(phase)
    edited = act(goal, Action.EDIT, objective="new", max_rounds=9)
    assert (edited.objective, edited.max_rounds, edited.phase) == ("new", 9, phase)
    assert edited.blocked_reason == goal.blocked_reason


def test_edit_refused_on_complete_goal_and_without_changes() -> None:
    with refused(Code.INVALID_TRANSITION):
        act(in_phase(Phase.COMPLETE), Action.EDIT, objective="x")
    with refused(Code.INVALID_REQUEST):
        act(new_goal(), Action.EDIT)


def test_edit_cannot_put_the_cap_below_rounds_already_started() -> None:
    with refused(Code.INVALID_REQUEST):
        act(admit(admit(new_goal())), Action.EDIT, max_rounds=1)


@pytest.mark.parametrize(
    ("action", "extra"),
    [
        (Action.PAUSE, {"objective": "x"}),
        (Action.COMPLETE, {"max_rounds": 3}),
        (Action.EDIT, {"reason": "why", "objective": "x"}),
        (Action.BLOCKED, {"objective": "x", "reason": "stuck"}),
    ],
)
def test_parameters_that_do_not_belong_to_the_action_are_refused(
    action: Action, extra: dict[str, Any]
) -> None:
    with refused(Code.INVALID_REQUEST):
        act(new_goal(), action, **extra)


def test_blocked_needs_a_reason() -> None:
    with refused(Code.INVALID_REQUEST):
        act(new_goal(), Action.BLOCKED)


def test_rounds_are_consecutive_and_bump_the_revision() -> None:
    first = admit(new_goal())
    second = admit(first)
    assert [(g.rounds_started, g.revision) for g in (first, second)] == [(1, 2), (2, 3)]
    for skip in (-1, 1, 2):
        with refused(Code.ROUND_MISMATCH):
            admit(second, skip=skip)


def test_round_needs_an_armed_active_goal_at_the_current_revision() -> None:
    with refused(Code.NOT_ARMED):
        admit(new_goal(), armed=False)
    with refused(Code.INVALID_TRANSITION):
        admit(in_phase(Phase.PAUSED))
    with refused(Code.STALE_REVISION):
        admit(new_goal(), revision=2)


def test_no_round_past_the_cap_and_the_cap_blocks_with_round_limit() -> None:
    spent = admit(admit(new_goal(max_rounds=2)))
    with refused(Code.ROUND_LIMIT):
        admit(spent)
    blocked = rules.block_at_round_limit(spent, NOW)
    assert (blocked.phase, blocked.blocked_reason) == (Phase.BLOCKED, ROUND_LIMIT_REASON)
    with refused(Code.INVALID_REQUEST):
        rules.block_at_round_limit(admit(new_goal()), NOW)


def test_resume_only_while_rounds_remain() -> None:
    spent = rules.block_at_round_limit(admit(new_goal(max_rounds=1)), NOW)
    with refused(Code.INVALID_TRANSITION):
        act(spent, Action.RESUME)
    resumed = act(act(spent, Action.EDIT, max_rounds=3), Action.RESUME)
    assert (resumed.phase, resumed.blocked_reason) == (Phase.ACTIVE, None)


def test_timestamps_never_go_backwards() -> None:
    goal = new_goal()
    paused = rules.update(
        goal, goal_id="g1", revision=1, action=Action.PAUSE, now="2025-01-01T00:00:00.000Z"
    )
    assert paused.updated_at == goal.updated_at
