"""`ccbridge install` registers PreSkillShellCommand (a skill's inline shell command as it
loads) only where the claude on PATH sends it, 2.1.332 on: older ones open a dialog at start
for a settings file naming an event they do not know. `ccbridge doctor` says whether the
inline commands are judged, and what holds them when they are not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.config import registrations
from tests.cli.test_doctor import fake_claude, findings
from tests.cli.test_shared_registration import BARE_PATH, launch, registered
from tests.support.sandbox import Sandbox

EVENT = "PreSkillShellCommand"


def handlers_of(settings: Path, event: str) -> list[dict[str, object]]:
    data = json.loads(settings.read_text())
    return [handler for group in data["hooks"].get(event, []) for handler in group["hooks"]]


@pytest.mark.parametrize("version", ["2.1.332", "2.1.333", "2.2.0"])
def test_registered_for_a_claude_that_sends_it(sandbox: Sandbox, version: str) -> None:
    fake_claude(sandbox, version)
    done = sandbox.run("install", "--local")
    assert done.returncode == 0, done.stderr
    [handler] = handlers_of(sandbox.project / ".claude" / "settings.local.json", EVENT)
    assert registrations.is_registration(handler)
    assert handler["onFailure"] == "block" and handler["timeout"] == registrations.CC_TIMEOUT
    assert f"registered for {EVENT} (claude {version})" in done.stdout
    _code, found = findings(sandbox)
    assert found["skills"][0][0] == "ok", found["skills"]


@pytest.mark.parametrize("version", ["2.1.331", "2.1.197", None])
def test_not_registered_for_an_older_or_missing_claude(
    sandbox: Sandbox, version: str | None
) -> None:
    if version is not None:
        fake_claude(sandbox, version)
    # Even with hooks for the event in ccbridge's config: an older claude would not send it.
    hook = sandbox.script("check.sh", "exit 0")
    sandbox.write(
        sandbox.config,
        f"hooks:\n  {EVENT}:\n    - hooks:\n        - {{type: command, command: {hook}}}\n",
    )
    env = {} if version is not None else {"PATH": f"{sandbox.root / 'bin'}:{BARE_PATH}"}
    done = sandbox.run("install", env=env)
    assert done.returncode == 0, done.stderr
    assert EVENT not in json.loads(sandbox.settings.read_text())["hooks"]
    assert f"not registered for {EVENT}" in done.stdout
    assert "run `ccbridge install` again after updating claude" in done.stdout
    if version is not None:
        _code, found = findings(sandbox)
        [(level, message)] = found["skills"]
        assert level == "info" and f"claude {version} has no {EVENT} event" in message
        assert "not judged by ccbridge" in message and "sandbox" in message


def test_doctor_warns_when_the_registration_is_missing_or_the_claude_too_old(
    sandbox: Sandbox,
) -> None:
    fake_claude(sandbox, "2.1.332")
    assert sandbox.run("install").returncode == 0
    for path in (sandbox.settings, sandbox.settings.with_name("settings.local.json")):
        settings = json.loads(path.read_text())  # the shared file and this machine's copy
        del settings["hooks"][EVENT]
        sandbox.write_json(path, settings)
    _code, found = findings(sandbox)
    [(level, message)] = found["skills"]
    assert level == "warn" and "not registered for PreSkillShellCommand" in message
    assert "run `ccbridge install` again" in message
    assert sandbox.run("install").returncode == 0  # puts it back
    fake_claude(sandbox, "2.1.331")  # claude went back to an older version
    _code, found = findings(sandbox)
    [(level, message)] = found["skills"]
    assert level == "warn" and "older than 2.1.332" in message and "dialog" in message


def test_the_shared_launcher_refuses_the_inline_command_without_ccbridge(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    assert sandbox.run("install", "--project").returncode == 0
    command = registered(sandbox.settings)[EVENT]
    event = {"hook_event_name": EVENT, "tool_name": "Bash", "tool_input": {"command": "make"}}
    done = launch(command, event, BARE_PATH)
    assert done.returncode == 2, done
    answer = json.loads(done.stdout)
    assert answer == {"decision": "block", "reason": registrations.INSTALL_HINT}
    assert registrations.INSTALL_HINT in done.stderr.decode()


def test_uninstall_takes_the_registration_out_again(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    before = sandbox.settings.read_bytes() if sandbox.settings.exists() else None
    assert sandbox.run("install").returncode == 0
    assert handlers_of(sandbox.settings, EVENT)
    assert sandbox.run("uninstall").returncode == 0
    after = sandbox.settings.read_bytes() if sandbox.settings.exists() else None
    assert after == before
