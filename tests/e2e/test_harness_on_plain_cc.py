"""Checks of the test harness and of Claude Code itself, not of ccbridge (no ccbridge runs here).

A hook is registered directly in CC's settings, as without ccbridge, and CC's own behaviour is
observed through the harness (the model stand-in, the project's marker file, the recorded
requests): a deny and an exit 2 block, an exit 1 fails open (the row of
/work/shared/spec/cc-hooks-protocol.md section 5 that ccbridge exists to close), CC's rules
alone allow or refuse. They prove the harness can see a block and a run, so the e2e tests of
ccbridge that use it can fail; a failure here means the harness or Claude Code changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import Result, run_claude
from .hook_scripts import (
    MARKER,
    TOUCH_MARKER,
    command_handler,
    hooks_block,
    pre_tool_use,
    write_hook,
)
from .model_stub import ToolResult, Turn

pytestmark = pytest.mark.e2e


def _touch_with_hook(claude: Path, tmp_path: Path, hook_body: str | None) -> tuple[Path, Result]:
    """Have the model run `touch marker`, CC's rules allowing it, behind a PreToolUse hook."""
    project = tmp_path / "project"
    project.mkdir()
    settings: dict[str, object] = {"permissions": {"allow": ["Bash(touch *)"]}}
    if hook_body is not None:
        hook = write_hook(tmp_path / "hooks", "hook.sh", hook_body)
        settings["hooks"] = hooks_block("PreToolUse", command_handler(hook))
    return project, run_claude(claude, project, settings, [Turn.bash(TOUCH_MARKER)])


def _only_tool_result(result: Result) -> ToolResult:
    [tool_result] = result.requests.tool_results()
    return tool_result


def test_deny_blocks_the_command_and_the_reason_reaches_the_model(
    claude: Path, tmp_path: Path
) -> None:
    project, result = _touch_with_hook(claude, tmp_path, pre_tool_use("deny", "no-markers-3e1"))

    assert not (project / MARKER).exists()
    tool_result = _only_tool_result(result)
    assert tool_result.is_error
    assert "no-markers-3e1" in tool_result.content


def test_hook_exiting_2_blocks_with_its_stderr_as_the_reason(claude: Path, tmp_path: Path) -> None:
    project, result = _touch_with_hook(claude, tmp_path, "echo stderr-reason-4a6 >&2; exit 2")

    assert not (project / MARKER).exists()
    tool_result = _only_tool_result(result)
    assert tool_result.is_error
    assert "stderr-reason-4a6" in tool_result.content


def test_hook_exiting_1_fails_open(claude: Path, tmp_path: Path) -> None:
    project, result = _touch_with_hook(claude, tmp_path, "echo boom >&2; exit 1")

    assert (project / MARKER).exists()
    assert not _only_tool_result(result).is_error


def test_without_a_hook_the_allowed_command_runs(claude: Path, tmp_path: Path) -> None:
    project, result = _touch_with_hook(claude, tmp_path, None)

    assert (project / MARKER).exists()
    assert result.permission_denials == []


def test_without_an_allow_rule_cc_refuses_the_command_in_print_mode(
    claude: Path, tmp_path: Path
) -> None:
    """The baseline the 'hook allows what CC would refuse' cases rely on."""
    project = tmp_path / "project"
    project.mkdir()

    result = run_claude(claude, project, {}, [Turn.bash(TOUCH_MARKER)])

    assert not (project / MARKER).exists()
    assert [denial["tool_name"] for denial in result.permission_denials] == ["Bash"]
