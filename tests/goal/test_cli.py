"""`ccbridge goal` run as the model would run it: it prints, it never changes goal state."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore

from .driver import SessionDriver


def goal_command() -> list[str]:
    """The installed `ccbridge goal` once the main CLI registers it, else the module itself."""
    ccbridge = shutil.which("ccbridge")
    if ccbridge:
        probe = subprocess.run([ccbridge, "goal", "--help"], capture_output=True)
        if probe.returncode == 0:
            return [ccbridge, "goal"]
    return [sys.executable, "-m", "bridge.cli.goal_command"]


GOAL = goal_command()


@dataclass
class Result:
    code: int
    output: dict[str, Any]
    stderr: str


def run(settings: GoalSettings, session_id: str | None, *args: str) -> Result:
    # the config in force has goals on, as where the hook records goal changes
    config = settings.state_dir.parent / "goals-on.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("goals: {enabled: true}\n")
    env = {
        **os.environ,
        "CCBRIDGE_STATE_DIR": str(settings.state_dir),
        "CCBRIDGE_CONFIG": str(config),
    }
    if session_id is not None:
        env["CLAUDE_CODE_SESSION_ID"] = session_id
    done = subprocess.run([*GOAL, *args], capture_output=True, text=True, env=env, timeout=60)
    assert "Traceback" not in done.stderr
    output = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    return Result(done.returncode, output, done.stderr)


def history(session: SessionDriver) -> tuple[int, Any]:
    with GoalStore.open(session.settings.db_path) as store, store.read() as tx:
        return len(tx.changes(session.session_id)), tx.window(session.session_id)


def test_get_without_any_goal(session: SessionDriver) -> None:
    result = run(session.settings, session.session_id, "get")
    assert result.code == 0
    assert result.output == {
        "ok": True,
        "session_id": session.session_id,
        "goal": None,
        "armed": False,
    }


def test_get_and_create_print_what_the_hook_recorded(session: SessionDriver) -> None:
    session.prompt()
    assert session.create(objective="make the tests pass", max_rounds=5) is None
    goal = session.goal()
    assert goal is not None

    got = run(session.settings, session.session_id, "get")
    assert (got.code, got.output["goal"]) == (0, goal.to_dict())

    created = run(
        session.settings, session.session_id,
        "create", "--objective", "make the tests pass", "--max-rounds", "5",
    )  # fmt: skip
    assert created.code == 0
    assert created.output["ok"] is True
    assert created.output["goal"] == goal.to_dict()
    assert created.output["status"] == "pending"  # printed before CC reports the call ran


def test_a_denied_update_prints_its_error(session: SessionDriver) -> None:
    session.prompt()
    session.create()
    goal = session.goal()
    assert goal is not None
    assert session.update("pause", revision=5) is not None
    result = run(
        session.settings, session.session_id,
        "update", "--id", goal.id, "--revision", "5", "--action", "pause",
    )  # fmt: skip
    assert result.code == 1
    assert result.output["error"]["code"] == "stale_revision"


def test_commands_change_nothing_by_themselves(session: SessionDriver) -> None:
    session.prompt()
    session.create()
    goal = session.goal()
    assert goal is not None
    before = history(session)
    attempts = [
        ("create", "--objective", "something else"),
        ("update", "--id", goal.id, "--revision", "1", "--action", "complete"),
        ("update", "--id", goal.id, "--revision", "1", "--action", "edit", "--max-rounds", "999"),
    ]
    for args in attempts:
        result = run(session.settings, session.session_id, *args)
        assert result.code == 1
        assert result.output["error"]["code"] == "not_recorded"
        assert "applied by the ccbridge hook" in result.output["error"]["message"]
    assert history(session) == before
    assert session.goal() == goal


def test_get_outside_a_session_lists_every_goal(settings: GoalSettings) -> None:
    assert run(settings, None, "get").output["sessions"] == []
    goals = {}
    for session_id in ("s-b", "s-a"):
        driver = SessionDriver(settings, session_id)
        driver.prompt()
        assert driver.create(objective=f"objective of {session_id}") is None
        goals[session_id] = driver.goal()
    result = run(settings, None, "get")
    assert result.code == 0
    assert result.output["sessions"] == [
        {"session_id": sid, "goal": goals[sid].to_dict()}  # type: ignore[union-attr]
        for sid in ("s-a", "s-b")
    ]
    assert "--session" in result.output["note"]
    one = run(settings, None, "get", "--session", "s-a")
    assert one.output["goal"] == goals["s-a"].to_dict()  # type: ignore[union-attr]


def test_a_change_outside_a_session_is_a_json_error(settings: GoalSettings) -> None:
    result = run(settings, None, "create", "--objective", "x")
    assert result.code == 1
    assert "CLAUDE_CODE_SESSION_ID" in result.output["error"]["message"]


@pytest.mark.parametrize(
    "args",
    [
        ("update", "--id", "g", "--revision", "two", "--action", "complete"),
        ("update", "--id", "g", "--revision", "2", "--action", "round"),
        ("create",),
    ],
)
def test_bad_arguments_get_a_usage_error(settings: GoalSettings, args: tuple[str, ...]) -> None:
    result = run(settings, "s", *args)
    assert result.code == 2
    assert "Error:" in result.stderr
