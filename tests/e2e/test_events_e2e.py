"""Events besides tool use, behind ccbridge, in a real Claude Code session: a UserPromptSubmit
sub-hook's block keeps the prompt from the model, a crashing one too (fail closed), and a
SessionStart sub-hook's context reaches the model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bridge.wire.event import NOT_RUN, SUBHOOK_EVENTS

from .harness import Result, ccbridge_executable, run_claude
from .hook_scripts import write_hook
from .model_stub import Turn

pytestmark = pytest.mark.e2e

PROMPT = "prompt-text-5b8"


def behind_ccbridge(claude: Path, tmp_path: Path, event: str, body: str) -> Result:
    """One sub-hook on `event` in ccbridge's config, ccbridge registered for it in CC."""
    project = tmp_path / "project"
    hook = write_hook(tmp_path / "hooks", "hook.sh", body)
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "ccbridge.yaml").write_text(
        f"hooks:\n  {event}:\n    - hooks:\n"
        f"        - {{type: command, command: {hook}, name: mine}}\n"
    )
    registration = {"type": "command", "command": f"{ccbridge_executable()} run", "timeout": 60}
    settings = {"hooks": {event: [{"hooks": [registration]}]}}
    env = {"CCBRIDGE_STATE_DIR": str(tmp_path / "state"), "CCBRIDGE_CACHE_DIR": str(tmp_path / "c")}
    return run_claude(claude, project, settings, [Turn.say("done")], prompt=PROMPT, env=env)


@pytest.mark.parametrize("body", ["echo not-now-9d2 >&2; exit 2", "echo boom >&2; exit 1"])
def test_a_user_prompt_block_or_crash_keeps_the_prompt_from_the_model(
    claude: Path, tmp_path: Path, body: str
) -> None:
    result = behind_ccbridge(claude, tmp_path, "UserPromptSubmit", body)
    assert not any(PROMPT in str(request.body) for request in result.requests.main_requests)


def test_a_user_prompt_hook_that_lets_it_pass_changes_nothing(claude: Path, tmp_path: Path) -> None:
    """The control: the same set-up with a hook that says nothing lets the prompt through."""
    result = behind_ccbridge(claude, tmp_path, "UserPromptSubmit", "exit 0")
    assert any(PROMPT in str(request.body) for request in result.requests.main_requests)


def test_a_session_start_context_reaches_the_model(claude: Path, tmp_path: Path) -> None:
    result = behind_ccbridge(claude, tmp_path, "SessionStart", "echo session-notes-4c1")
    assert result.requests.main_requests, result.stderr
    assert any(
        "session-notes-4c1" in str(request.body) for request in result.requests.main_requests
    )


def events_of(claude: Path) -> set[str]:
    """The hook events the binary knows: the longest list of names its schema starts with
    PreToolUse (2.1.335: 35, Interrupt new)."""
    found = re.findall(rb'\["PreToolUse","PostToolUse"(?:,"[A-Za-z]+")*\]', claude.read_bytes())
    return set(json.loads(max(found, key=len))) if found else set()


def test_every_event_of_the_binary_is_run_or_said_not_to_be(claude: Path) -> None:
    """An event ccbridge neither runs nor names as not run would be refused as unknown in a
    config, with no word of why: each one the binary sends is one or the other."""
    events = events_of(claude)
    assert len(events) > 20, events  # the list was found
    assert events <= SUBHOOK_EVENTS | set(NOT_RUN), sorted(events - SUBHOOK_EVENTS - set(NOT_RUN))
