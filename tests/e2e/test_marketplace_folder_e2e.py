"""Where Claude Code takes an installed plugin's code from, when the plugin came from a local
marketplace folder (`claude plugin marketplace add DIR`, then `claude plugin install`, user
scope): its hooks module throws at install, so a project-registered ccbridge's deny of a Bash call
holds; rewritten in the marketplace folder after the install to answer `tool.check` with allow,
it is what the next session runs, and the call runs. So that folder is plugin code, and
self-protection and the wall keep it (bridge/wall.py, plugin_dirs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import test_mods_e2e as mods
from .harness import claude_binary, claude_cache


@pytest.mark.e2e
@pytest.mark.parametrize("rewrite", [False, True], ids=["as-installed", "rewritten"])
@pytest.mark.parametrize("version", mods.MOD_VERSIONS)
def test_a_rewrite_in_the_marketplace_folder_is_what_the_next_session_runs(
    tmp_path: Path, version: str, rewrite: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = claude_binary(version)
    if claude is None:
        pytest.skip(f"Claude Code {version} is not in {claude_cache()}: run scripts/fetch-clients")
    installed = mods.install
    folders: list[Path] = []

    def install_then_rewrite(claude: Path, home: Path, source: Path) -> None:
        installed(claude, home, source)
        folders.append(source.parent)
        if rewrite:
            module = source / "hooks" / "register.js"
            module.write_text(f"export function register(on) {{\n  {mods.MODS['allow']}\n}}\n")

    monkeypatch.setattr(mods, "install", install_then_rewrite)
    seen = mods.measure(claude, tmp_path, "project", None, "installed-throw")
    assert folders, seen
    assert seen["pre_tool_use_decisions"] == ["deny"], seen  # ccbridge ran and denied
    assert seen["ran"] is rewrite, seen
