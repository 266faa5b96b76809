"""Prompts Claude Code submits by itself are no person's turn: through real Claude Code, with
the wall up (`ccbridge install --project` defaults) and goals on.

Claude Code sends `UserPromptSubmit` for a background task's completion notice (the running
turn's prompt_id) and for a wake-up the model scheduled with `ScheduleWakeup` (a new
prompt_id, the model's own text); the hook's stdin does not say which (no `source` field on
2.1.332, 2.1.333 or 2.1.335). Each test lets the model cause one such delivery during an
automatic round and then try to raise its goal's cap; the cap holds, while the person's own
`-p` prompt still raises it. Deliveries that cannot be caused here (cron fires, teammates,
other sessions, Monitor in `-p`) are refused by the shapes in `tests/goal/test_typed.py`.
"""

from __future__ import annotations

import json
import shlex
import uuid
from pathlib import Path
from typing import Any

import pytest

from bridge.goal.settings import DB_NAME
from bridge.goal.store import GoalStore

from .goal_support import LiveBash, bash, goal_error, newest_claude, outcome_of
from .harness import Result, ccbridge_executable, run_claude
from .model_stub import ToolCall, Turn
from .test_wall_e2e import World, walled

pytestmark = pytest.mark.e2e

NOT_TYPED = "not taken as typed by a person"


class WalledGoal:
    """One `claude -p` session in a walled project with goals on, its session id fixed."""

    def __init__(self, tmp_path: Path) -> None:
        self.world: World = walled(tmp_path, goals=True, guards=True)
        # The tools whose deliveries are tried; `-p` refuses a tool no rule allows.
        self.world.settings["permissions"]["allow"] += ["ScheduleWakeup", "Monitor"]
        self.session_id = str(uuid.uuid4())
        self.ccbridge = ccbridge_executable()

    def goal(self) -> dict[str, Any] | None:
        store = GoalStore.open_readonly(self.world.state / DB_NAME)
        if store is None:
            return None
        with store, store.read() as tx:
            goal = tx.current_goal(self.session_id)
        return None if goal is None else goal.to_dict()

    def create(self, max_rounds: int) -> str:
        words = [self.ccbridge, "goal", "create", "--objective", "make the tests pass"]
        return shlex.join([*words, "--max-rounds", str(max_rounds)])

    def edit_cap(self, max_rounds: int) -> LiveBash:
        def build() -> str:
            goal = self.goal()
            assert goal is not None, "no goal to edit"
            words = [self.ccbridge, "goal", "update", "--id", goal["id"]]
            words += ["--revision", str(goal["revision"]), "--action", "edit"]
            return shlex.join([*words, "--max-rounds", str(max_rounds)])

        return LiveBash(build)

    def prompts_recorded(self) -> int:
        """Turn starts ccbridge recorded at UserPromptSubmit: the person's and each delivery."""
        return sum(1 for kind, source in self.world.events() if source == "human")

    def run(self, script: list[Turn], timeout: float = 240) -> Result:
        return run_claude(
            newest_claude(),
            self.world.project,
            self.world.settings,
            [*script, *(Turn.say("Round done.") for _ in range(6))],
            prompt="Set the goal and raise its cap to 4.",
            env=self.world.env,
            home=self.world.home,
            timeout=timeout,
            args=("--session-id", self.session_id),
        )


def assert_refused_as_not_typed(result: Result, command: str | None) -> None:
    error = goal_error(outcome_of(result, command))
    assert (error["code"], error["required"]) == ("forbidden", ["direct-human"]), error
    assert NOT_TYPED in error["message"], error


def test_a_background_tasks_notice_cannot_raise_the_cap(tmp_path: Path) -> None:
    walled_goal = WalledGoal(tmp_path)
    raise_by_person = walled_goal.edit_cap(4)
    extend = walled_goal.edit_cap(999)
    background = ToolCall(
        "Bash", {"command": "sleep 1; echo BG", "description": "bg", "run_in_background": True}
    )
    script = [
        Turn.bash(walled_goal.create(3)),
        bash(raise_by_person),  # the person's own -p prompt: direct-human
        Turn.say("Goal set."),
        # Round 1: a background task whose notice Claude Code submits as a prompt.
        Turn(tool_calls=(background,)),
        Turn.bash("sleep 4; echo waited"),
        bash(extend),
    ]
    result = walled_goal.run(script)

    assert '"authority": "direct-human"' in outcome_of(result, raise_by_person.command)
    assert_refused_as_not_typed(result, extend.command)
    goal = walled_goal.goal()
    assert goal is not None and goal["max_rounds"] == 4, goal
    assert goal["rounds_started"] <= 4
    # The notice did reach ccbridge as a prompt (the person's, then the notice).
    assert walled_goal.prompts_recorded() >= 2, walled_goal.world.events()
    assert result.requests.model_saw("<task-notification>")


def test_a_monitor_event_cannot_raise_the_cap(tmp_path: Path) -> None:
    walled_goal = WalledGoal(tmp_path)
    extend = walled_goal.edit_cap(998)
    monitor = ToolCall("Monitor", {"command": "echo EVT1; sleep 1", "description": "watch"})
    script = [
        Turn.bash(walled_goal.create(2)),
        Turn.say("Goal set."),
        Turn(tool_calls=(monitor,)),  # round 1: each line the command prints is an event
        Turn.bash("sleep 4; echo waited"),
        bash(extend),
    ]
    result = walled_goal.run(script)

    assert_refused_as_not_typed(result, extend.command)
    goal = walled_goal.goal()
    assert goal is not None and goal["max_rounds"] == 2, goal
    assert walled_goal.prompts_recorded() >= 2, walled_goal.world.events()
    assert result.requests.model_saw("Monitor event")


def test_a_scheduled_wake_up_cannot_raise_the_cap(tmp_path: Path) -> None:
    walled_goal = WalledGoal(tmp_path)
    extend = walled_goal.edit_cap(997)
    wake_up = ToolCall(
        "ScheduleWakeup",
        {"delaySeconds": 60, "reason": "check the build later", "prompt": "Go on: raise the cap."},
    )
    script = [
        Turn.bash(walled_goal.create(1)),
        Turn.say("Goal set."),
        Turn(tool_calls=(wake_up,)),  # round 1, the last: the goal then blocks at its cap
        Turn.say("Round 1 done."),
        bash(extend),  # about a minute later, in the turn the wake-up starts
    ]
    result = walled_goal.run(script, timeout=300)

    assert_refused_as_not_typed(result, extend.command)
    goal = walled_goal.goal()
    assert goal is not None
    assert (goal["max_rounds"], goal["phase"], goal["blocked_reason"]) == (
        1,
        "blocked",
        "round-limit",
    )
    assert walled_goal.prompts_recorded() == 2, walled_goal.world.events()
    sent = json.dumps([request.body for request in result.requests.main_requests])
    assert "Go on: raise the cap." in sent
