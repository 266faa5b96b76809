from __future__ import annotations

import json

from bridge.commands.doctor import POST_UNREGISTERED
from tests.support.sandbox import CCBRIDGE, Sandbox


def fake_claude(sandbox: Sandbox, version: str) -> None:
    sandbox.write(
        sandbox.root / "bin" / "claude", f'#!/bin/sh\necho "{version} (Claude Code)"\n', mode=0o755
    )


def findings(sandbox: Sandbox) -> tuple[int, dict[str, list[tuple[str, str]]]]:
    done = sandbox.run("doctor", "--json")
    assert "Traceback" not in done.stderr
    grouped: dict[str, list[tuple[str, str]]] = {}
    for item in json.loads(done.stdout):
        grouped.setdefault(item["topic"], []).append((item["level"], item["message"]))
    return done.returncode, grouped


def test_a_healthy_install(sandbox: Sandbox) -> None:
    # doctor probes the `ccbridge` CC would start, found on PATH: the one under test, whatever
    # order the caller's PATH has
    sandbox.env["PATH"] = f"{sandbox.root / 'bin'}:{CCBRIDGE.parent}:{sandbox.env['PATH']}"
    fake_claude(sandbox, "2.1.332")
    sandbox.write(sandbox.config, "audit:\n  keep: 8\n")  # a project may keep more, not less
    assert sandbox.run("install").returncode == 0
    code, found = findings(sandbox)
    assert code == 0, found
    assert found["claude"][0][0] == "ok" and "2.1.332" in found["claude"][0][1]
    assert found["onFailure"][0][0] == "ok"
    events = "PreSkillShellCommand, PreToolUse"
    local = sandbox.settings.with_name("settings.local.json")  # this machine's copy
    assert found["registration"] == [
        ("ok", f"{sandbox.settings}: {events}"),
        ("ok", f"{local}: {events}"),
        ("info", POST_UNREGISTERED),  # the default config runs nothing after a tool
    ]
    assert found["skills"] == [
        (
            "ok",
            "registered for PreSkillShellCommand: a skill's or command's inline shell "
            "commands are judged as they load, as a Bash call is",
        )
    ]
    assert found["starts"][0][0] == "ok"
    assert found["config"][0][0] == "ok" and found["audit"][0][0] == "ok"
    assert found["twice"] == [("ok", "no hook is configured twice")]
    text = sandbox.run("doctor").stdout
    assert "  ok  claude" in text and "\x1b[" not in text


def test_nothing_in_place(sandbox: Sandbox) -> None:
    code, found = findings(sandbox)
    assert code == 1
    assert found["claude"][0][0] == "fail" and found["registration"][0][0] == "fail"
    assert found["config"][0][0] == "info"


def test_old_claude_and_a_command_that_does_not_start(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.197")
    sandbox.write_json(
        sandbox.settings,
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "hooks": [
                            {"type": "command", "command": "/nowhere/ccbridge run", "timeout": 30}
                        ]
                    }
                ]
            }
        },
    )
    code, found = findings(sandbox)
    assert code == 1
    assert found["onFailure"][0][0] == "warn" and "2.1.295" in found["onFailure"][0][1]
    levels = [level for level, _ in found["registration"]]
    assert levels.count("warn") == 2  # no onFailure, low timeout
    assert ("info", POST_UNREGISTERED) in found["registration"]
    assert found["starts"][0][0] == "fail" and "exited with code 127" in found["starts"][0][1]


def test_invalid_config_and_hooks_configured_twice(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - hooks:\n        - {type: command, command: ./guard.sh}\n",
    )
    sandbox.write(sandbox.project / "guard.sh", "exit 0\n", mode=0o755)  # doctor looks for it
    assert sandbox.run("install").returncode == 0
    settings = json.loads(sandbox.settings.read_text())
    settings["hooks"]["PreToolUse"].append(
        {"hooks": [{"type": "command", "command": "./guard.sh"}]}
    )
    sandbox.write_json(sandbox.settings, settings)
    code, found = findings(sandbox)
    assert code == 0
    assert found["twice"][0][0] == "warn" and "./guard.sh" in found["twice"][0][1]
    sandbox.write(sandbox.project / ".claude" / "ccbridge.local.yaml", "goals: 3\n")
    code, found = findings(sandbox)
    assert code == 1 and found["config"][0][0] == "fail"
    assert "ccbridge.local.yaml:1" in found["config"][0][1]


def test_unwritable_audit_location(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    blocker = sandbox.write(sandbox.root / "file", "")
    # the user layer's: a project or local layer cannot move the audit
    sandbox.write(
        sandbox.home / ".claude/ccbridge.yaml", f"audit:\n  path: {blocker}/audit.jsonl\n"
    )
    code, found = findings(sandbox)
    assert code == 1 and found["audit"][0][0] == "fail"


def test_goals_without_their_events_registered(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    sandbox.write(sandbox.config, "goals: {enabled: true}\n")
    assert sandbox.run("install").returncode == 0
    _code, found = findings(sandbox)
    assert found["goals"] == [("ok", "goals are enabled and their events are registered")]
    for path in (sandbox.settings, sandbox.settings.with_name("settings.local.json")):
        settings = json.loads(path.read_text())  # the shared file and this machine's copy
        for event in ("UserPromptSubmit", "Stop"):
            del settings["hooks"][event]
        sandbox.write_json(path, settings)
    code, found = findings(sandbox)
    assert code == 1
    [(level, message)] = found["goals"]
    assert level == "fail" and "UserPromptSubmit, Stop" in message
    assert "run `ccbridge install`" in message


def test_doctor_writes_nothing_to_the_audit_log(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    assert sandbox.run("install", "--local").returncode == 0  # the absolute path: it runs
    _code, found = findings(sandbox)
    assert found["starts"][0][0] == "ok", found["starts"]  # the probe did run ccbridge
    assert not (sandbox.state / "audit.jsonl").exists()


def test_twice_finds_every_hook_both_in_settings_and_in_the_config(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    events = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"]
    hooks = {e: [{"hooks": [{"type": "command", "command": f"true {e}"}]}] for e in events}
    sandbox.write_json(sandbox.settings, {"hooks": hooks})
    assert sandbox.run("install").returncode == 0  # moves all five into the config
    settings = json.loads(sandbox.settings.read_text())
    for event in events:  # and back into the settings file by hand: each now runs twice
        settings["hooks"][event].append(hooks[event][0])
    sandbox.write_json(sandbox.settings, settings)
    _code, found = findings(sandbox)
    twice = [message for level, message in found["twice"] if level == "warn"]
    assert sorted(m.split(" hook ")[0] for m in twice) == sorted(events), found["twice"]


def test_doctor_says_whether_the_warm_path_can_be_had(sandbox: Sandbox) -> None:
    """The registration's warm client needs socat on the hooks' PATH; without it every tool call
    starts ccbridge, which doctor says with the fix."""
    sandbox.env["PATH"] = f"{sandbox.root / 'bin'}:{CCBRIDGE.parent}:{sandbox.env['PATH']}"
    assert sandbox.run("install", "--user").returncode == 0
    _, found = findings(sandbox)
    assert [level for level, _ in found["warm"]] == ["ok"], found["warm"]
    bare = sandbox.root / "bare"  # sh and the basics, no socat
    bare.mkdir()
    for name in ("sh", "cat", "env"):
        (bare / name).symlink_to(f"/bin/{name}")
    sandbox.env["PATH"] = f"{CCBRIDGE.parent}:{bare}"
    _, found = findings(sandbox)
    assert found["warm"] == [
        (
            "info",
            "no socat on this PATH: every tool call starts ccbridge's Python "
            "(docs/performance.md); install socat (Debian: apt-get install socat) for the warm "
            "path",
        )
    ]
    assert [level for level, _ in found["starts"]] == ["ok"], found["starts"]
