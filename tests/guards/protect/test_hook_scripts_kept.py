"""Without the wall too, self-protection keeps the files the configured sub-hooks run: a hook
script the agent rewrites runs next time outside any sandbox, as a genuine hook (it could record a
human turn). Judged through the real executable, with the scripts named as the config names them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sysconfig
from pathlib import Path

import pytest

CCBRIDGE = str(Path(sysconfig.get_path("scripts")) / "ccbridge")


def project_with_hook(tmp_path: Path, command: str) -> Path:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / "hooks").mkdir()
    script = project / "hooks" / "check.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    hooks = {
        "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": command}]}]
    }
    (project / ".claude" / "ccbridge.yaml").write_text(json.dumps({"hooks": hooks}))
    return project


def environment(home: Path, project: Path, state: Path) -> dict[str, str]:
    """This process's environment (tests/conftest.py: none of ccbridge's or CC's variables
    from outside), for a hook call."""
    return {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_PROJECT_DIR": str(project),
        "CCBRIDGE_STATE_DIR": str(state / "state"),
        "CCBRIDGE_CACHE_DIR": str(state / "cache"),
    }


def run(env: dict[str, str], project: Path, tool: str, tool_input: object) -> tuple[int, str]:
    """`ccbridge run` on a PreToolUse call: its exit code, and its deny reason if it denied."""
    event = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    done = subprocess.run(
        [CCBRIDGE, "run"],
        input=json.dumps(event).encode(),
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 2:
        return done.returncode, ""
    return 2, json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]


def judged(tmp_path: Path, project: Path, tool: str, tool_input: dict[str, str]) -> int:
    code, reason = run(environment(tmp_path / "home", project, tmp_path), project, tool, tool_input)
    if code == 2:
        # it names the script, or the directory kept with it
        assert reason.startswith("[self-protection] ") and re.search(
            r"'/[^']*/hooks(/check\.sh)?'", reason
        ), reason
    return code


@pytest.mark.parametrize(
    "command",
    [
        "${CLAUDE_PROJECT_DIR}/hooks/check.sh",
        '"$CLAUDE_PROJECT_DIR"/hooks/check.sh --strict',
        "bash ${CLAUDE_PROJECT_DIR}/hooks/check.sh",
    ],
)
def test_a_sub_hooks_script_is_kept_from_the_file_tools_and_bash(
    tmp_path: Path, command: str
) -> None:
    project = project_with_hook(tmp_path, command)
    script = str(project / "hooks" / "check.sh")
    assert judged(tmp_path, project, "Write", {"file_path": script, "content": "x"}) == 2
    edit = {"file_path": script, "old_string": "exit 0", "new_string": "exit 1"}
    assert judged(tmp_path, project, "Edit", edit) == 2
    assert judged(tmp_path, project, "Bash", {"command": "echo evil > hooks/check.sh"}) == 2
    assert judged(tmp_path, project, "Bash", {"command": "sed -i s/0/1/ hooks/check.sh"}) == 2


def test_reading_the_script_and_writing_elsewhere_in_the_project_pass(tmp_path: Path) -> None:
    project = project_with_hook(tmp_path, "${CLAUDE_PROJECT_DIR}/hooks/check.sh")
    assert judged(tmp_path, project, "Bash", {"command": "cat hooks/check.sh"}) == 0
    other = str(project / "src" / "other.sh")
    assert judged(tmp_path, project, "Write", {"file_path": other, "content": "x"}) == 0
