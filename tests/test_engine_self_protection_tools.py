"""Self-protection judges every file tool Claude Code writes with, NotebookEdit included:
a notebook edit aimed at a settings or config file is denied like a Write."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sandbox import Sandbox, encode, pre_tool_use

FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}


@pytest.mark.parametrize("tool", sorted(FILE_TOOLS))
@pytest.mark.parametrize("target", [".claude/settings.json", ".claude/ccbridge.yaml"])
def test_every_file_tool_is_judged_by_self_protection(
    tmp_path: Path, tool: str, target: str
) -> None:
    sandbox = Sandbox(tmp_path)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    config = sandbox.write_config({}, self_protection=True)  # and no guard of its own
    event = pre_tool_use(
        tool=tool, cwd=str(project), tool_input={FILE_TOOLS[tool]: str(project / target)}
    )
    outcome = sandbox.call(config, encode(event), {"CLAUDE_PROJECT_DIR": str(project)})
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert outcome.reason.startswith("[self-protection] ")
    assert f"{tool} to {project / target} is denied" in outcome.reason
