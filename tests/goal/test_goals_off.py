"""`ccbridge goal create` where the hook ignores goal commands (goals off) says so, names
`goals.enabled` and how to switch it on, through the real executable in a private home."""

from __future__ import annotations

import json

from tests.support.sandbox import Sandbox


def create(sandbox: Sandbox) -> tuple[int, dict[str, str]]:
    done = sandbox.run(
        "goal", "create", "--objective", "ship it", env={"CLAUDE_CODE_SESSION_ID": "s-1"}
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout)["error"]


def test_goal_create_with_goals_off_names_the_switch(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "policies:\n  guards: [builtin:dangerous_shell]\n")
    code, error = create(sandbox)
    assert code == 1 and error["code"] == "goals_off"
    assert "goals are off: `goals.enabled` is not true" in error["message"]
    assert str(sandbox.config) in error["message"]  # the config in force
    assert "goals: {enabled: true}" in error["message"] and "ccbridge install" in error["message"]


def test_goal_create_with_no_config_says_goals_are_off(sandbox: Sandbox) -> None:
    code, error = create(sandbox)
    assert code == 1 and error["code"] == "goals_off"
    assert "no ccbridge config file" in error["message"]


def test_goal_create_with_goals_on_but_no_hook_record_is_not_recorded(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "goals: {enabled: true}\n")
    code, error = create(sandbox)
    assert code == 1 and error["code"] == "not_recorded"
