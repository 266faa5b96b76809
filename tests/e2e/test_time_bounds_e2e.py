"""ccbridge's deadline through real Claude Code: a sub-hook that never finishes must not leave
the call to CC's own timeout (at which 2.1.197 runs the call and 2.1.332 blocks without an
audit record): ccbridge denies it at its deadline, kills the hook and audits the call."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from .harness import ccbridge_executable, run_claude
from .hook_scripts import MARKER, TOUCH_MARKER
from .model_stub import Turn

pytestmark = pytest.mark.e2e

DEADLINE = 3


def test_a_hanging_sub_hook_is_denied_at_the_deadline_not_run(claude: Path, tmp_path: Path) -> None:
    project, state = tmp_path / "project", tmp_path / "state"
    project.mkdir()
    hook = tmp_path / "hang.sh"
    hook.write_text("#!/bin/sh\nsleep 45\n")
    hook.chmod(0o755)
    config = tmp_path / "ccbridge.yaml"
    config.write_text(
        json.dumps(
            {
                "defaults": {"deadline": DEADLINE},
                "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": str(hook)}]}]},
            }
        )
    )
    handler = {
        "type": "command",
        "command": f"{ccbridge_executable()} run --config {config}",
        "timeout": 60,
    }
    settings = {
        "permissions": {"allow": ["Bash(touch *)"]},
        "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]},
    }
    started = time.monotonic()
    result = run_claude(
        claude,
        project,
        settings,
        [Turn.bash(TOUCH_MARKER), Turn.say("done")],
        env={"CCBRIDGE_STATE_DIR": str(state), "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache")},
        timeout=120,
    )
    took = time.monotonic() - started
    told = f"CC said: {result.requests.tool_results()}; stderr: {result.stderr[-800:]}"
    assert not (project / MARKER).exists(), told
    [tool_result] = result.requests.tool_results()
    assert tool_result.is_error and f"{DEADLINE} s deadline" in tool_result.content, told
    assert took < 40, took  # well before the hook's own 45 s, and CC's 60 s
    [record] = [json.loads(line) for line in (state / "audit.jsonl").read_text().splitlines()]
    assert record["final"]["decision"] == "deny"
    assert record["error"].startswith("deadline: ")
