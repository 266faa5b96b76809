"""A guard's question in a real Claude Code session: the README's config without self-protection
(which refuses any write to a target it cannot resolve), a command whose target is only known
at run time. ccbridge answers `ask`, so Claude Code does not run it without a
yes (in `-p` there is nobody to say it: the call is refused); with `approval: none` ccbridge
denies it itself and the model reads why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .harness import run_claude
from .hook_scripts import MARKER, TOUCH_MARKER
from .model_stub import Turn
from .test_readme_config import project_as_in_readme

pytestmark = pytest.mark.e2e

UNKNOWN = f'{TOUCH_MARKER} && rm -rf "$NO_SUCH_VARIABLE"'
WHY = "cannot tell what this deletes: $NO_SUCH_VARIABLE is only known when the command runs"


def _guards_only(
    tmp_path: Path, approval: str = "prompt"
) -> tuple[Path, dict[str, Any], dict[str, str]]:
    project, settings, env = project_as_in_readme(tmp_path)
    config = project / ".claude" / "ccbridge.yaml"
    text = config.read_text(encoding="utf-8")
    assert "self_protection: true" in text and "approval: prompt" in text
    text = text.replace("self_protection: true", "self_protection: false")
    config.write_text(text.replace("approval: prompt", f"approval: {approval}"), encoding="utf-8")
    settings["permissions"] = {"allow": ["Bash(touch *)", "Bash(rm *)"]}
    return project, settings, env


def _steps(state: Path) -> list[dict[str, str]]:
    lines = (state / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    return [step for line in lines for step in json.loads(line).get("steps", [])]


def test_a_run_time_target_is_asked_and_not_run_without_a_yes(claude: Path, tmp_path: Path) -> None:
    project, settings, env = _guards_only(tmp_path)
    result = run_claude(claude, project, settings, [Turn.bash(UNKNOWN)], env=env)
    assert not (project / MARKER).exists(), result.stderr
    [tool_result] = result.requests.tool_results()
    assert tool_result.is_error, tool_result.content
    asked = [s for s in _steps(tmp_path / "state") if s["outcome"] == "ask"]
    assert asked and asked[0]["name"] == "guard builtin:dangerous_shell"
    assert WHY in asked[0]["detail"]


def test_with_approval_none_the_question_is_a_denial_the_model_reads(
    claude: Path, tmp_path: Path
) -> None:
    project, settings, env = _guards_only(tmp_path, approval="none")
    result = run_claude(claude, project, settings, [Turn.bash(UNKNOWN)], env=env)
    assert not (project / MARKER).exists(), result.stderr
    [tool_result] = result.requests.tool_results()
    assert tool_result.is_error
    assert "approval required but no approval channel is available" in tool_result.content
    assert WHY in tool_result.content
