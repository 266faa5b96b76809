"""Prove the harness on plain Claude Code: a sub-hook registered directly in CC's settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import run_claude
from .hook_scripts import (
    MARKER,
    TOUCH_MARKER,
    command_handler,
    hooks_block,
    pre_tool_use,
    write_hook,
)
from .model_stub import Turn

pytestmark = pytest.mark.e2e

ALLOW_TOUCH = {"allow": ["Bash(touch *)"]}


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


def test_deny_blocks_the_command_and_the_reason_reaches_the_model(
    claude: Path, tmp_path: Path
) -> None:
    hook = write_hook(tmp_path / "hooks", "deny.sh", pre_tool_use("deny", "no-markers-here"))
    project = _project(tmp_path)
    settings = {
        "permissions": ALLOW_TOUCH,
        "hooks": hooks_block("PreToolUse", command_handler(hook)),
    }

    result = run_claude(claude, project, settings, [Turn.bash(TOUCH_MARKER)])

    assert not (project / MARKER).exists()
    [tool_result] = result.requests.tool_results()
    assert tool_result.is_error
    assert "no-markers-here" in tool_result.content


def test_hook_exiting_1_fails_open(claude: Path, tmp_path: Path) -> None:
    hook = write_hook(tmp_path / "hooks", "crash.sh", "echo boom >&2; exit 1")
    project = _project(tmp_path)
    settings = {
        "permissions": ALLOW_TOUCH,
        "hooks": hooks_block("PreToolUse", command_handler(hook)),
    }

    result = run_claude(claude, project, settings, [Turn.bash(TOUCH_MARKER)])

    assert (project / MARKER).exists()
    [tool_result] = result.requests.tool_results()
    assert not tool_result.is_error


def test_without_an_allow_rule_cc_refuses_the_command_in_print_mode(
    claude: Path, tmp_path: Path
) -> None:
    """The baseline the 'hook allows what CC would refuse' cases rely on."""
    project = _project(tmp_path)

    result = run_claude(claude, project, {}, [Turn.bash(TOUCH_MARKER)])

    assert not (project / MARKER).exists()
    assert [denial["tool_name"] for denial in result.permission_denials] == ["Bash"]
