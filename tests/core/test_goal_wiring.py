"""A goal change is applied host-side only for a call that goes ahead: after every guard, and
never while the call still waits for the user's answer to a permission prompt."""

from __future__ import annotations

import os
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import orjson
import pytest

CCBRIDGE = str(Path(sysconfig.get_path("scripts")) / "ccbridge")
SESSION = "goal-wiring"
CREATE = {
    "hook_event_name": "PreToolUse",
    "session_id": SESSION,
    "cwd": "/tmp",
    "tool_name": "Bash",
    "tool_use_id": "t1",
    "tool_input": {"command": "ccbridge goal create --objective ship"},
}


def ccbridge(root: Path, args: list[str], event: dict[str, Any] | None = None) -> str:
    env = {
        **os.environ,
        "CCBRIDGE_STATE_DIR": str(root / "state"),
        "CCBRIDGE_CACHE_DIR": str(root / "cache"),
        "CLAUDE_CODE_SESSION_ID": SESSION,
        "HOME": str(root),
    }
    env.pop("CCBRIDGE_CONFIG", None)
    done = subprocess.run(
        [CCBRIDGE, *args],
        input=orjson.dumps(event) if event else b"",
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr.decode()
    return done.stdout.decode()


def goal_after_create(root: Path, extra_config: str) -> tuple[str, Any]:
    config = root / "c.yaml"
    config.write_text("goals: {enabled: true}\n" + extra_config)
    prompt = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": SESSION,
        "cwd": "/tmp",
        "prompt": "set a goal",
    }
    ccbridge(root, ["run", "--config", str(config)], prompt)
    answer = ccbridge(root, ["run", "--config", str(config)], CREATE)
    return answer, orjson.loads(ccbridge(root, ["goal", "get"]))["goal"]


def test_an_authorized_change_is_applied(tmp_path: Path) -> None:
    answer, goal = goal_after_create(tmp_path, "")
    assert answer == ""
    assert goal is not None and goal["objective"] == "ship"


ASK = (
    'cat >/dev/null; echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
    '"permissionDecision":"ask","permissionDecisionReason":"sure?"}}\'\n'
)


@pytest.mark.parametrize(
    ("extra_config", "decision"),
    [
        ("policies:\n  guards: [guard.py:guard]\n", "deny"),
        (
            "hooks:\n  PreToolUse:\n    - hooks:\n        - {type: command, command: sh ask.sh}\n",
            "ask",
        ),
    ],
    ids=["guard-denies", "prompt-pending"],
)
def test_no_change_for_a_call_that_does_not_go_ahead(
    tmp_path: Path, extra_config: str, decision: str
) -> None:
    (tmp_path / "guard.py").write_text("def guard(execution):\n    return 'not today'\n")
    (tmp_path / "ask.sh").write_text(ASK)
    extra_config = extra_config.replace("sh ask.sh", f"sh {tmp_path / 'ask.sh'}")
    answer, goal = goal_after_create(tmp_path, extra_config)
    assert orjson.loads(answer)["hookSpecificOutput"]["permissionDecision"] == decision
    assert goal is None
