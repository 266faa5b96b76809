"""`ccbridge doctor` with ccbridge registered through managed settings (a managed-settings.d
drop-in or managed-settings.json, in a test directory named by CCBRIDGE_MANAGED_DIR): that scope
is the registration, its command is probed as Claude Code runs it (exec form, no shell), and a
second registration in user or project settings is named (ccbridge would run twice)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_doctor import fake_claude
from tests.support.sandbox import CCBRIDGE, Sandbox


def doctor(sandbox: Sandbox, managed: Path) -> tuple[int, dict[str, list[tuple[str, str]]]]:
    done = sandbox.run("doctor", "--json", env={"CCBRIDGE_MANAGED_DIR": str(managed)})
    assert "Traceback" not in done.stderr, done.stderr
    grouped: dict[str, list[tuple[str, str]]] = {}
    for item in json.loads(done.stdout):
        grouped.setdefault(item["topic"], []).append((item["level"], item["message"]))
    return done.returncode, grouped


def exec_entry(command: str) -> dict[str, object]:
    return {"type": "command", "command": command, "args": ["run"], "timeout": 60,
            "onFailure": "block"}  # fmt: skip


def test_a_drop_in_alone_is_the_registration_and_its_command_starts(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    fake_claude(sandbox, "2.1.332")
    managed = tmp_path / "etc" / "claude-code" / "managed-settings.d"
    env = {"CCBRIDGE_MANAGED_DIR": str(managed)}
    assert sandbox.run("install", "--managed", env=env).returncode == 0
    drop_in = managed / "ccbridge.json"
    code, found = doctor(sandbox, managed)
    assert code == 0, found
    registration = found["registration"]
    assert not [item for item in registration if item[0] in ("fail", "warn")], registration
    assert (
        "ok",
        f"ccbridge is registered in managed settings ({drop_in}): its PreToolUse hook runs "
        "before any plugin's hooks module and its deny is final",
    ) in registration
    assert ("ok", f"{drop_in}: PostToolUse, PostToolUseFailure, PreToolUse") in registration
    assert found["starts"] == [("ok", f"`{CCBRIDGE} run` starts and answers")]


def test_managed_settings_json_counts_and_a_broken_managed_command_fails(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    fake_claude(sandbox, "2.1.332")
    managed = tmp_path / "etc" / "managed-settings.d"
    broken = sandbox.write(tmp_path / "opt" / "ccbridge", "#!/bin/sh\necho gone >&2\nexit 3\n")
    broken.chmod(0o755)
    hooks = {
        event: [{"hooks": [exec_entry(str(broken))]}] for event in ("PreToolUse", "PostToolUse")
    }
    settings = sandbox.write_json(managed.parent / "managed-settings.json", {"hooks": hooks})
    code, found = doctor(sandbox, managed)
    assert code == 1
    assert found["registration"][0][0] == "ok" and str(settings) in found["registration"][0][1]
    assert not [m for level, m in found["registration"] if level == "fail"], found
    assert found["starts"] == [("fail", f"`{broken} run` exited with code 3: gone")]


def test_a_second_registration_outside_managed_settings_is_named(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    fake_claude(sandbox, "2.1.332")
    managed = tmp_path / "m.d"
    env = {"CCBRIDGE_MANAGED_DIR": str(managed)}
    assert sandbox.run("install", "--managed", env=env).returncode == 0
    assert sandbox.run("install", env=env).returncode == 0
    _code, found = doctor(sandbox, managed)
    both = [m for level, m in found["registration"] if level == "warn" and "both" in m]
    assert both == [
        f"ccbridge is registered both in managed settings ({managed / 'ccbridge.json'}) and in "
        f"{sandbox.settings}, {sandbox.settings.with_name('settings.local.json')}: Claude Code "
        "starts it twice for each call; the managed registration is the one whose deny is final "
        "(it runs before any mod), the other runs after the mods and gives the same answer "
        "without judging again (the sub-hooks run once); remove it (`ccbridge uninstall`) to "
        "save that process"
    ]


def test_a_project_config_run_by_a_managed_registration_is_not_orphaned(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    fake_claude(sandbox, "2.1.332")
    managed = tmp_path / "m.d"
    sandbox.write(sandbox.config, "audit:\n  keep: 8\n")
    env = {"CCBRIDGE_MANAGED_DIR": str(managed)}
    assert sandbox.run("install", "--managed", env=env).returncode == 0
    code, found = doctor(sandbox, managed)
    assert code == 0, found
    assert not [m for level, m in found["registration"] if level == "fail"], found
