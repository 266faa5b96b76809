"""What a sub-hook runs in, as Claude Code runs its hooks: the event's `cwd` as its working
directory (not the project directory), and `CLAUDE_PROJECT_DIR` in its environment even when
Claude Code's environment lacks it (then it is the event's `cwd`)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.sandbox import Sandbox, encode, matching, pre_tool_use

SEEN = 'cat >/dev/null\npwd -P > "$0.cwd"\nprintf %s "${CLAUDE_PROJECT_DIR-unset}" > "$0.project"'


def seen(tmp_path: Path, cwd: Path, env: dict[str, str]) -> tuple[str, str]:
    sandbox = Sandbox(tmp_path)
    script = sandbox.script("seen.sh", SEEN)
    config = sandbox.write_config(matching([{"type": "command", "command": str(script)}]))
    outcome = sandbox.call(config, encode(pre_tool_use(cwd=str(cwd))), env)
    assert (outcome.exit_code, outcome.decision) == (0, "none"), outcome
    return (
        Path(f"{script}.cwd").read_text().strip(),
        Path(f"{script}.project").read_text(),
    )


def test_a_sub_hook_runs_in_the_events_cwd_not_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    below = project / "src" / "deep"
    below.mkdir(parents=True)
    cwd, claude_project_dir = seen(tmp_path, below, {"CLAUDE_PROJECT_DIR": str(project)})
    assert cwd == os.path.realpath(below)
    assert claude_project_dir == str(project)


def test_claude_project_dir_is_set_for_the_sub_hook_when_cc_did_not(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    sandbox_env = Sandbox(tmp_path).env
    assert "CLAUDE_PROJECT_DIR" not in sandbox_env and "CLAUDE_PROJECT_DIR" not in os.environ
    cwd, claude_project_dir = seen(tmp_path, project, {})
    assert cwd == os.path.realpath(project)
    assert claude_project_dir == str(project)
