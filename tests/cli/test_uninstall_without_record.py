"""`ccbridge uninstall` where this machine has no install record (a teammate's clone of a
committed registration, or a state directory wiped): the hooks ccbridge ran stay reachable, in
the settings file the registration leaves, or uninstall refuses and changes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from bridge.config.registrations import is_registration
from tests.support.sandbox import Sandbox

TEAM_HOOKS = {
    "PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "./no-publish.sh"}]},
    ],
    "SessionStart": [{"hooks": [{"type": "command", "command": "echo hello-team"}]}],
}


def commands(settings: dict[str, Any]) -> dict[str, list[str]]:
    """Per event, the commands of the handlers that are not ccbridge's registration."""
    found: dict[str, list[str]] = {}
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for handler in group["hooks"]:
                if not is_registration(handler):
                    found.setdefault(event, []).append(handler["command"])
    return found


def registered(settings: dict[str, Any]) -> int:
    return sum(
        is_registration(handler)
        for groups in settings.get("hooks", {}).values()
        for group in groups
        for handler in group["hooks"]
    )


def teammate_clone(tmp_path: Path) -> Sandbox:
    """One person installs and commits `.claude`; a teammate (another home and state, so no
    install record) gets the committed files."""
    installer = Sandbox(tmp_path / "installer")
    installer.write_json(installer.settings, {"hooks": TEAM_HOOKS})
    done = installer.run("install")
    assert done.returncode == 0, done.stderr
    assert commands(json.loads(installer.settings.read_text())) == {}  # all moved
    teammate = Sandbox(tmp_path / "teammate")
    shutil.copytree(installer.project / ".claude", teammate.project / ".claude", dirs_exist_ok=True)
    return teammate


def test_uninstall_without_a_record_puts_the_configs_hooks_back(tmp_path: Path) -> None:
    teammate = teammate_clone(tmp_path)
    config_before = teammate.config.read_bytes()
    done = teammate.run("uninstall")
    assert done.returncode == 0, done.stderr
    after = json.loads(teammate.settings.read_text())
    assert registered(after) == 0
    # every team hook runs again from the settings file, once, under its matcher
    assert commands(after) == {
        "PreToolUse": ["./no-publish.sh"],
        "SessionStart": ["echo hello-team"],
    }
    assert {"matcher": "Bash", "hooks": [{"type": "command", "command": "./no-publish.sh"}]} in (
        after["hooks"]["PreToolUse"]
    )
    assert f"the hooks of {teammate.config} are put back into {teammate.settings}" in done.stdout
    assert teammate.config.read_bytes() == config_before  # the team's file is not ours to drop
    # installing again moves them behind ccbridge once more, with no copy in the config
    again = teammate.run("install")
    assert again.returncode == 0, again.stderr
    assert commands(json.loads(teammate.settings.read_text())) == {}
    assert teammate.config.read_text().count("./no-publish.sh") == 1


def test_uninstall_without_a_record_refuses_a_config_it_cannot_read(tmp_path: Path) -> None:
    teammate = teammate_clone(tmp_path)
    teammate.write(teammate.config, "hooks: [unclosed\n")
    settings_before = teammate.settings.read_bytes()
    done = teammate.run("uninstall")
    assert done.returncode == 1
    assert f"{teammate.config}: not valid YAML" in done.stderr
    assert "nothing was changed" in done.stderr and "Traceback" not in done.stderr
    assert teammate.settings.read_bytes() == settings_before


def test_uninstall_puts_back_hooks_added_to_the_config_after_install(sandbox: Sandbox) -> None:
    sandbox.write_json(sandbox.settings, {"hooks": TEAM_HOOKS})
    assert sandbox.run("install").returncode == 0
    text = sandbox.config.read_text().replace(
        "hooks:\n",
        "hooks:\n  PostToolUse:\n  - hooks:\n    - {type: command, command: ./fmt.sh}\n",
        1,
    )
    sandbox.write(sandbox.config, text)
    done = sandbox.run("uninstall")
    assert done.returncode == 0, done.stderr
    after = json.loads(sandbox.settings.read_text())
    assert registered(after) == 0
    assert commands(after) == {
        "PreToolUse": ["./no-publish.sh"],
        "SessionStart": ["echo hello-team"],
        "PostToolUse": ["./fmt.sh"],
    }
