"""`ccbridge doctor` on the wall: it reads every CC settings layer, runs bubblewrap once, and
names the protection level (`wall` or `tripwire`) with each missing piece and its fix."""

from __future__ import annotations

import json

import pytest

from tests.support.sandbox import Sandbox

from .test_doctor import fake_claude

WORKS = "#!/bin/sh\nexit 0\n"


def installed(sandbox: Sandbox, *options: str, config: str = "audit:\n  keep: 2\n") -> None:
    fake_claude(sandbox, "2.1.332")
    for program in ("bwrap", "socat"):  # present and working, whatever this machine has
        sandbox.write(sandbox.root / "bin" / program, WORKS, mode=0o755)
    sandbox.write(sandbox.config, config)
    assert sandbox.run("install", *options).returncode == 0


def protection(sandbox: Sandbox, env: dict[str, str] | None = None) -> tuple[str, str]:
    done = sandbox.run("doctor", "--json", env=env)
    [found] = [item for item in json.loads(done.stdout) if item["topic"] == "protection"]
    return found["level"], found["message"]


def test_what_install_sets_up_is_the_wall(sandbox: Sandbox) -> None:
    installed(sandbox)
    level, message = protection(sandbox)
    assert level == "ok" and message.startswith("wall:"), message
    assert str(sandbox.settings) in message  # the settings it read


def test_without_the_sandbox_the_level_is_tripwire_and_the_fix_is_named(sandbox: Sandbox) -> None:
    installed(sandbox, "--no-sandbox")
    level, message = protection(sandbox)
    assert level == "warn" and message.startswith("tripwire:"), message
    for needle in (
        "sandbox.enabled: true",
        "sandbox.failIfUnavailable: true",
        "sandbox.allowUnsandboxedCommands: false",
        f"{sandbox.config} is not in sandbox.filesystem.denyWrite",
        f"{sandbox.state} is not in sandbox.filesystem.denyWrite",
        f"{sandbox.state / 'cache.key'} is not in sandbox.filesystem.denyRead",
        f"{sandbox.home / '.claude' / 'dev-mods'} is not in",
        "`ccbridge install` sets up the sandbox",
    ):
        assert needle in message, (needle, message)


def test_a_way_out_in_any_settings_layer_is_named(sandbox: Sandbox) -> None:
    installed(sandbox)
    sandbox.write_json(
        sandbox.home / ".claude" / "settings.json",
        {"sandbox": {"excludedCommands": ["docker"]}},
    )
    sandbox.write_json(  # more specific than the project file: its scalar wins
        sandbox.project / ".claude" / "settings.local.json",
        {"sandbox": {"allowUnsandboxedCommands": True}},
    )
    level, message = protection(sandbox)
    assert level == "warn" and message.startswith("tripwire:"), message
    assert "excludedCommands run outside the sandbox: docker" in message
    assert "allowUnsandboxedCommands: false" in message
    assert "sandbox.enabled" not in message  # still on from the project layer


def test_a_sub_hook_script_outside_denywrite_is_named(sandbox: Sandbox) -> None:
    installed(sandbox)
    script = sandbox.write(sandbox.project / "hooks" / "late.sh", WORKS, mode=0o755)
    command = "${CLAUDE_PROJECT_DIR}/hooks/late.sh"
    hooks = f'hooks:\n  PreToolUse:\n    - hooks: [{{type: command, command: "{command}"}}]\n'
    sandbox.write(sandbox.project / ".claude" / "ccbridge.local.yaml", hooks)
    level, message = protection(sandbox)
    assert level == "warn" and f"{script} is not in sandbox.filesystem.denyWrite" in message
    assert f"{script} has no Edit(/{script}) deny rule" in message
    assert sandbox.run("install").returncode == 0  # install again: the new script is walled
    assert protection(sandbox)[0] == "ok"


def test_a_relative_sub_hook_script_stays_outside_the_wall_after_install(sandbox: Sandbox) -> None:
    # A hook runs in the call's cwd: after the agent's `cd src`, ./hooks/late.sh is
    # src/hooks/late.sh, a file the agent may write, run outside the sandbox.
    installed(sandbox)
    sandbox.write(sandbox.project / "hooks" / "late.sh", WORKS, mode=0o755)
    hooks = 'hooks:\n  PreToolUse:\n    - hooks: [{type: command, command: "./hooks/late.sh"}]\n'
    sandbox.write(sandbox.project / ".claude" / "ccbridge.local.yaml", hooks)
    assert sandbox.run("install").returncode == 0
    level, message = protection(sandbox)
    assert level == "warn" and "'./hooks/late.sh', a relative path" in message, message
    assert "${CLAUDE_PROJECT_DIR}" in message


def test_the_directory_of_a_sub_hook_script_is_walled_by_install(sandbox: Sandbox) -> None:
    # Python runs hooks/guard.py with hooks/ first on sys.path: hooks/json.py would be its json
    installed(sandbox)
    sandbox.write(sandbox.project / "hooks" / "guard.py", "import json\n")
    command = "python3 ${CLAUDE_PROJECT_DIR}/hooks/guard.py"
    hooks = f'hooks:\n  PreToolUse:\n    - hooks: [{{type: command, command: "{command}"}}]\n'
    sandbox.write(sandbox.project / ".claude" / "ccbridge.local.yaml", hooks)
    assert sandbox.run("install").returncode == 0
    assert protection(sandbox)[0] == "ok"
    directory = str(sandbox.project / "hooks")
    local = sandbox.settings.with_name("settings.local.json")  # a layer of this machine's own
    settings = json.loads(local.read_text())
    assert directory in settings["sandbox"]["filesystem"]["denyWrite"]
    assert f"Edit(/{directory}/**)" in settings["permissions"]["deny"]
    settings["sandbox"]["filesystem"]["denyWrite"].remove(directory)
    sandbox.write_json(local, settings)
    level, message = protection(sandbox)
    assert level == "warn" and f"{directory} is not in sandbox.filesystem.denyWrite" in message


def test_a_sub_hook_script_in_the_project_s_own_directory_is_named(sandbox: Sandbox) -> None:
    installed(sandbox)
    sandbox.write(sandbox.project / "guard.py", "import json\n")
    command = "python3 ${CLAUDE_PROJECT_DIR}/guard.py"
    hooks = f'hooks:\n  PreToolUse:\n    - hooks: [{{type: command, command: "{command}"}}]\n'
    sandbox.write(sandbox.project / ".claude" / "ccbridge.local.yaml", hooks)
    assert sandbox.run("install").returncode == 0
    level, message = protection(sandbox)
    assert level == "warn" and "guard.py lies in the project's own directory" in message, message
    assert "a directory of its own" in message
    settings = json.loads(sandbox.settings.with_name("settings.local.json").read_text())
    assert str(sandbox.project / "json.py") in settings["sandbox"]["filesystem"]["denyWrite"]
    assert str(sandbox.project) not in settings["sandbox"]["filesystem"]["denyWrite"]


def test_a_sandbox_that_cannot_start_is_named(sandbox: Sandbox) -> None:
    installed(sandbox)
    sandbox.write(sandbox.root / "bin" / "bwrap", "#!/bin/sh\necho no userns >&2\nexit 1\n", 0o755)
    (sandbox.root / "bin" / "socat").unlink()
    level, message = protection(sandbox, env={"PATH": str(sandbox.root / "bin")})
    assert level == "warn", message
    assert "bwrap --ro-bind / / --dev /dev --unshare-all true` failed: no userns" in message
    assert "socat is not installed (apt-get install socat)" in message


def event(sandbox: Sandbox) -> str:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "session_id": "s",
            "cwd": str(sandbox.project),
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t",
        }
    )


@pytest.mark.parametrize(("options", "level"), [((), "wall"), (("--no-sandbox",), "tripwire")])
def test_explain_and_every_audit_record_name_the_level(
    sandbox: Sandbox, options: tuple[str, ...], level: str
) -> None:
    installed(sandbox, *options)
    explained = json.loads(sandbox.run("explain", "--json", stdin=event(sandbox)).stdout)
    assert explained["protection"]["level"] == level
    assert bool(explained["protection"]["missing"]) is (level == "tripwire")
    for _ in range(2):  # compiled, then from the cache
        assert sandbox.run("run", stdin=event(sandbox)).returncode == 0
    records = (sandbox.state / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["protection"] for line in records] == [level, level]


def test_a_settings_edit_changes_the_level_of_the_next_call(sandbox: Sandbox) -> None:
    installed(sandbox)
    assert sandbox.run("run", stdin=event(sandbox)).returncode == 0
    sandbox.write_json(
        sandbox.project / ".claude" / "settings.local.json", {"sandbox": {"enabled": False}}
    )
    assert sandbox.run("run", stdin=event(sandbox)).returncode == 0
    records = (sandbox.state / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["protection"] for line in records] == ["wall", "tripwire"]


def test_a_plugin_folder_managed_settings_name_is_walled_by_install(sandbox: Sandbox) -> None:
    installed(sandbox)
    market = sandbox.root / "org-market"
    managed = sandbox.root / "etc" / "claude-code" / "managed-settings.d"  # the sandbox's own
    source = {"source": "directory", "path": str(market)}
    sandbox.write_json(
        managed / "10-org.json",
        {"extraKnownMarketplaces": {"org": {"source": source}}},
    )
    level, message = protection(sandbox)
    assert level == "warn" and f"{market} is not in sandbox.filesystem.denyWrite" in message
    assert f"{market} has no Edit(/{market}) deny rule" in message
    assert str(managed / "10-org.json") in message  # a settings layer it read
    assert sandbox.run("install").returncode == 0  # install again: the folder is walled
    assert protection(sandbox)[0] == "ok"
    # a folder this machine's managed settings name: in this machine's local settings
    data = json.loads(sandbox.settings.with_name("settings.local.json").read_text())
    assert str(market) in data["sandbox"]["filesystem"]["denyWrite"]
    assert f"Edit(/{market}/**)" in data["permissions"]["deny"]  # a folder, though not made yet
