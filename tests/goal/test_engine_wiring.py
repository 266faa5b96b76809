"""A goal change is judged at PreToolUse, after every guard, and applied host-side only when
Claude Code reports that the call ran (its PostToolUse or PostToolUseFailure): never for a call
that a guard denies, that waits for the user's answer, or that CC refuses after our answer."""

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
    }
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


def post_event(pre: dict[str, Any], name: str = "PostToolUse") -> dict[str, Any]:
    return {**pre, "hook_event_name": name, "tool_response": {"stdout": "", "stderr": ""}}


def goal_of(root: Path) -> Any:
    return orjson.loads(ccbridge(root, ["goal", "get"]))["goal"]


def goal_after_create(root: Path, extra_config: str) -> tuple[str, Any]:
    """Answer to the create's PreToolUse, and the goal before any PostToolUse."""
    config = root / "c.yaml"
    config.write_text("goals: {enabled: true}\n" + extra_config)
    transcript = root / "transcript.jsonl"
    prompt = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": "/tmp",
        "prompt": "set a goal",
        "prompt_id": "p1",
    }
    ccbridge(root, ["run", "--config", str(config)], prompt)
    # What Claude Code writes for the person's prompt once the hook returned.
    typed: dict[str, Any] = {"type": "user", "promptId": "p1", "promptSource": "typed"}
    typed["message"] = {"role": "user", "content": "set a goal"}
    transcript.write_text(orjson.dumps(typed).decode() + "\n")
    create = {**CREATE, "transcript_path": str(transcript)}
    answer = ccbridge(root, ["run", "--config", str(config)], create)
    return answer, goal_of(root)


@pytest.mark.parametrize("ran", ["PostToolUse", "PostToolUseFailure"])
def test_an_authorized_change_is_applied_once_when_the_call_ran(tmp_path: Path, ran: str) -> None:
    answer, goal = goal_after_create(tmp_path, "")
    assert answer == ""
    assert goal is None, "judged only: nothing applies before CC reports the call ran"
    config = ["run", "--config", str(tmp_path / "c.yaml")]

    first = orjson.loads(ccbridge(tmp_path, config, post_event(CREATE, ran)))
    context = first["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("ccbridge goal: the change is applied.")
    goal = goal_of(tmp_path)
    assert goal is not None and (goal["objective"], goal["revision"]) == ("ship", 1)

    # The same event again (a duplicate or a replay) finds nothing left to apply.
    assert ccbridge(tmp_path, config, post_event(CREATE, ran)) == ""
    assert goal_of(tmp_path) == goal


def test_a_post_event_for_another_command_applies_nothing(tmp_path: Path) -> None:
    goal_after_create(tmp_path, "")
    other = {**CREATE, "tool_input": {"command": "ccbridge goal create --objective other"}}
    answer = orjson.loads(
        ccbridge(tmp_path, ["run", "--config", str(tmp_path / "c.yaml")], post_event(other))
    )
    assert '"code": "invalid_request"' in answer["hookSpecificOutput"]["additionalContext"]
    assert goal_of(tmp_path) is None


def test_the_engine_passes_the_configured_goal_settings(tmp_path: Path) -> None:
    """Each goal setting reaches the goal code as configured, defaults included (a mutant
    passing blocked_min_rounds=0 was caught only end to end)."""
    from bridge.config.build import compile_sources
    from bridge.config.compiled import Source
    from bridge.engine import Machine, goal_settings

    def settings(text: str) -> Any:
        source = Source(tmp_path / "c.yaml", text.encode(), ("c", 0, 0, "x"))
        config = compile_sources([source], "key")
        return goal_settings(config, Machine(env={"CCBRIDGE_STATE_DIR": str(tmp_path)}))

    default = settings("goals: {enabled: true}\n")
    assert (default.enabled, default.blocked_min_rounds, default.default_max_rounds) == (
        True,
        3,
        10,
    )
    assert default.state_dir == tmp_path
    chosen = settings("goals: {enabled: true, blocked_min_rounds: 5, default_max_rounds: 7}\n")
    assert (chosen.blocked_min_rounds, chosen.default_max_rounds) == (5, 7)


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
    if decision == "ask":
        return  # the user may still say yes; CC then reports the call and it applies
    # A call denied before it ran has nothing judged: even a PostToolUse applies nothing.
    ccbridge(tmp_path, ["run", "--config", str(tmp_path / "c.yaml")], post_event(CREATE))
    assert goal_of(tmp_path) is None
