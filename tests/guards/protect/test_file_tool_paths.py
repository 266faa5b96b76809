"""A file tool's relative path is judged against the event's `cwd`, where Claude Code resolves
it, never against ccbridge's own working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.guards.protect.protect_paths import (
    PATH_TOOLS,
    protected_paths_guard,
    self_protection_guard,
)
from bridge.pipeline import Execution


@pytest.mark.parametrize("tool", sorted(PATH_TOOLS))
def test_a_relative_path_is_resolved_in_the_events_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # ccbridge's own directory is not the event's
    protected = str(project / "deploy.conf")
    guards = {
        "protected path": protected_paths_guard([protected]),
        "ccbridge self-protection": self_protection_guard([], [protected], []),
    }
    for label, guard in guards.items():
        inside = Execution.create(tool, {PATH_TOOLS[tool]: "deploy.conf"}, cwd=str(project))
        assert guard(inside) == (
            f"{label}: {tool} to deploy.conf is denied (matches {protected!r})"
        )
        outside = Execution.create(tool, {PATH_TOOLS[tool]: "deploy.conf"}, cwd=str(elsewhere))
        assert guard(outside) is None
