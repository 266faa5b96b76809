"""ccbridge's own failure, event by event, as the real program answers it: a tool call is
denied, a prompt, a compaction or a permission refused, a finished tool call's failure reaches
the model and the user; on Stop and SubagentStop the user is only told, since blocking would
keep Claude working and a broken ccbridge fails on every call (the loop would never end)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bridge.hookcall import failure_answer
from tests.audit.test_crash_log import CRASHING, SECRET
from tests.test_hookcall import Bridge

WHY = f"ccbridge internal error: RuntimeError: boom password={SECRET}"
TOLD = {"systemMessage": WHY}
BLOCKED = {"decision": "block", "reason": WHY}
# event -> (exit code, the whole answer)
ANSWERS: dict[str, tuple[int, dict[str, Any]]] = {
    "PreToolUse": (
        2,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": WHY,
            }
        },
    ),
    "PostToolUse": (0, {**TOLD, **BLOCKED}),
    "PostToolUseFailure": (0, {**TOLD, **BLOCKED}),
    "UserPromptSubmit": (0, BLOCKED),
    "PreCompact": (2, BLOCKED),
    "PermissionRequest": (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": WHY},
            }
        },
    ),
    "Stop": (0, TOLD),
    "SubagentStop": (0, TOLD),
    "SessionStart": (0, TOLD),
}


@pytest.mark.parametrize("event_name", sorted(ANSWERS))
def test_the_failure_answer_of_each_event(event_name: str) -> None:
    code, payload = ANSWERS[event_name]
    answer = failure_answer(event_name, WHY)
    assert (answer.exit_code, json.loads(answer.stdout)) == (code, payload)


@pytest.mark.parametrize("event_name", sorted(ANSWERS))
def test_a_crashing_ccbridge_answers_each_event_so(tmp_path: Path, event_name: str) -> None:
    event = {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "hook_event_name": event_name,
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_1",
    }
    out, code, stderr = Bridge(tmp_path).run(event, command=CRASHING)
    assert (code, out) == ANSWERS[event_name], stderr


@pytest.mark.parametrize("event_name", ["Stop", "SubagentStop"])
@pytest.mark.parametrize("active", [False, True])
def test_a_crashing_ccbridge_lets_claude_stop(
    tmp_path: Path, event_name: str, active: bool
) -> None:
    event = {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "hook_event_name": event_name,
        "stop_hook_active": active,
        **({"agent_type": "reviewer"} if event_name == "SubagentStop" else {}),
    }
    out, code, stderr = Bridge(tmp_path).run(event, command=CRASHING)
    assert (code, out) == (0, TOLD), stderr
