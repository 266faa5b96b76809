"""`install` run again after the user edited `ccbridge.yaml`: the backup remembers the edit,
so `uninstall` keeps the edited config instead of putting back the bytes from before the first
install. The second install must have something to do (a new hook in the settings) to write a
backup at all."""

from __future__ import annotations

import json

from tests.support.sandbox import Sandbox

FIRST = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./first.sh"}]}]}}
ORIGINAL_CONFIG = "# mine\naudit:\n  keep: 3\n"


def test_uninstall_keeps_a_config_edited_before_a_reinstall(sandbox: Sandbox) -> None:
    sandbox.write_json(sandbox.settings, FIRST)
    sandbox.write(sandbox.config, ORIGINAL_CONFIG)
    assert sandbox.run("install").returncode == 0
    edited = sandbox.config.read_text() + "goals:\n  blocked_min_rounds: 4\n"
    sandbox.write(sandbox.config, edited)
    settings = json.loads(sandbox.settings.read_text())
    settings["hooks"]["PreToolUse"].append(
        {"hooks": [{"type": "command", "command": "./second.sh"}]}
    )
    sandbox.write_json(sandbox.settings, settings)
    again = sandbox.run("install")
    assert again.returncode == 0 and "moved 1 hook" in again.stdout, again.stdout
    reinstalled = sandbox.config.read_text()
    assert "blocked_min_rounds: 4" in reinstalled and "./second.sh" in reinstalled
    done = sandbox.run("uninstall")
    assert done.returncode == 0, done.stderr
    assert sandbox.config.read_text() == reinstalled
    assert f"{sandbox.config} has edits you made since install: it is kept" in done.stdout


def test_uninstall_keeps_a_settings_edit_made_between_two_installs(sandbox: Sandbox) -> None:
    """The first install's record of the exact original bytes stops being the whole truth once
    the user edits settings.json (here a permission rule and a new hook) and installs again:
    uninstall then takes the registration out and keeps the edit."""
    sandbox.write_json(sandbox.settings, FIRST)
    assert sandbox.run("install").returncode == 0
    settings = json.loads(sandbox.settings.read_text())
    settings.setdefault("permissions", {})["allow"] = ["Bash(make test)"]
    settings["hooks"]["PreToolUse"].append(
        {"hooks": [{"type": "command", "command": "./second.sh"}]}
    )
    sandbox.write_json(sandbox.settings, settings)
    again = sandbox.run("install")
    assert again.returncode == 0 and "moved 1 hook" in again.stdout, again.stdout
    done = sandbox.run("uninstall")
    assert done.returncode == 0, done.stderr
    after = json.loads(sandbox.settings.read_text())
    assert after.get("permissions") == {"allow": ["Bash(make test)"]}, after
    commands = [
        handler["command"] for group in after["hooks"]["PreToolUse"] for handler in group["hooks"]
    ]
    assert commands == ["./first.sh", "./second.sh"], after
    assert "ccbridge" not in sandbox.settings.read_text()
    assert f"{sandbox.settings} changed since install" in done.stdout
