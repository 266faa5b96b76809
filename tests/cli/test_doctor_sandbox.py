"""`ccbridge doctor` on Claude Code's sandbox: with self-protection or goals on, it says whether
the sandbox is the boundary around ccbridge's files, and what to set when it is not."""

from __future__ import annotations

import json

from tests.support.sandbox import Sandbox

from .test_doctor import fake_claude, findings


def installed(sandbox: Sandbox, config: str = "audit:\n  keep: 2\n") -> None:
    fake_claude(sandbox, "2.1.332")
    for program in ("bwrap", "socat"):  # present, whatever this machine has
        sandbox.write(sandbox.root / "bin" / program, "#!/bin/sh\nexit 0\n", mode=0o755)
    sandbox.write(sandbox.config, config)
    assert sandbox.run("install").returncode == 0


def recommended(sandbox: Sandbox) -> dict[str, object]:
    return {
        "enabled": True,
        "allowUnsandboxedCommands": False,
        "failIfUnavailable": True,
        "filesystem": {"denyWrite": [str(sandbox.project / ".claude")]},
    }


def test_without_the_sandbox_self_protection_is_said_not_to_be_a_boundary(
    sandbox: Sandbox,
) -> None:
    installed(sandbox)
    code, found = findings(sandbox)
    [(level, message)] = found["sandbox"]
    assert code == 0 and level == "warn"
    assert "sandbox is off" in message and "not a boundary" in message
    advice = json.loads(message[message.index("{") :])  # the settings to paste, exactly
    assert advice == {"sandbox": recommended(sandbox)}
    assert str(sandbox.project / ".claude" / "settings.local.json") in message


def test_the_recommended_settings_put_ccbridge_out_of_reach(sandbox: Sandbox) -> None:
    installed(sandbox)
    sandbox.write_json(
        sandbox.project / ".claude" / "settings.local.json", {"sandbox": recommended(sandbox)}
    )
    _, found = findings(sandbox)
    [(level, message)] = found["sandbox"]
    assert level == "ok" and "out of reach" in message, message


def test_every_way_out_of_the_sandbox_is_named(sandbox: Sandbox) -> None:
    installed(sandbox)
    state = sandbox.project / "state"  # inside the project: writable by sandboxed commands
    sandbox.write_json(
        sandbox.project / ".claude" / "settings.local.json",
        {"sandbox": {"enabled": True, "excludedCommands": ["docker"]}},
    )
    done = sandbox.run("doctor", "--json", env={"CCBRIDGE_STATE_DIR": str(state)})
    [message] = [item["message"] for item in json.loads(done.stdout) if item["topic"] == "sandbox"]
    for needle in (
        "allowUnsandboxedCommands",
        "failIfUnavailable",
        "excludedCommands run outside it: docker",
        f"{state} stays writable",
        f"{sandbox.config} stays writable",
        f"{sandbox.settings} stays writable",
        "not a boundary",
    ):
        assert needle in message, (needle, message)
    assert str(sandbox.home) not in message.split("; set in")[0]  # ~ is outside the project


def test_missing_programs_are_named(sandbox: Sandbox) -> None:
    installed(sandbox)
    (sandbox.root / "bin" / "socat").unlink()
    sandbox.write_json(
        sandbox.project / ".claude" / "settings.local.json", {"sandbox": recommended(sandbox)}
    )
    done = sandbox.run("doctor", "--json", env={"PATH": str(sandbox.root / "bin")})
    [message] = [item["message"] for item in json.loads(done.stdout) if item["topic"] == "sandbox"]
    assert "socat is not installed" in message and "bwrap" not in message.split(";")[0]


def test_no_sandbox_finding_without_self_protection_or_goals(sandbox: Sandbox) -> None:
    # the user layer's: a project layer cannot switch self-protection off
    sandbox.write(sandbox.home / ".claude" / "ccbridge.yaml", "self_protection: false\n")
    installed(sandbox, "{}\n")
    _, found = findings(sandbox)
    assert "sandbox" not in found
