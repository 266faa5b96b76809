"""A registration written into the project's shared settings.json works on any machine: it
finds `ccbridge` through PATH, and where there is none it answers each event with the fix to run
(never exit 1, which Claude Code's onFailure "block" turns into a refusal with no reason)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bridge.config import registrations
from tests.support.sandbox import CCBRIDGE, Sandbox, encode, pre_tool_use

BARE_PATH = "/usr/bin:/bin"  # sh, cat and printf; no ccbridge


def registered(settings: Path) -> dict[str, str]:
    data = json.loads(settings.read_text())
    return {
        event: handler["command"]
        for event, groups in data["hooks"].items()
        for group in groups
        for handler in group["hooks"]
        if registrations.is_registration(handler)
    }


def launch(command: str, event: dict[str, Any], path: str) -> subprocess.CompletedProcess[bytes]:
    """The registered command run as Claude Code runs it: `sh -c`, the event on stdin."""
    return subprocess.run(
        ["sh", "-c", command],
        input=encode(event),
        capture_output=True,
        env={"PATH": path, "HOME": "/nonexistent"},
        timeout=60,
        check=False,
    )


def test_project_install_registers_through_path_and_says_why(sandbox: Sandbox) -> None:
    done = sandbox.run("install", "--project")
    assert done.returncode == 0, done.stderr
    commands = registered(sandbox.settings)
    assert sorted(commands) == ["PreToolUse"]
    for event, command in commands.items():
        assert command == registrations.launcher_command(event)
        assert str(CCBRIDGE.parent) not in command  # nothing of this machine in a shared file
    assert "registered as `ccbridge run` found through PATH" in done.stdout
    assert registrations.INSTALL_HINT in done.stdout


@pytest.mark.parametrize("scope", ["user", "local"])
def test_user_and_local_installs_keep_the_absolute_path(sandbox: Sandbox, scope: str) -> None:
    done = sandbox.run("install", f"--{scope}")
    assert done.returncode == 0, done.stderr
    settings = (
        sandbox.home / ".claude" / "settings.json"
        if scope == "user"
        else sandbox.project / ".claude" / "settings.local.json"
    )
    absolute = registrations.registration_command(str(CCBRIDGE.resolve()))
    for event, command in registered(settings).items():
        assert command == registrations.warm(event, absolute)
    assert f"registered as {CCBRIDGE.resolve()} (an absolute path" in done.stdout


def test_install_off_path_says_so(sandbox: Sandbox) -> None:
    done = sandbox.run("install", "--project", env={"PATH": BARE_PATH})
    assert done.returncode == 0, done.stderr
    assert f"ccbridge is not on this PATH (it is at {CCBRIDGE.resolve()})" in done.stdout


def test_reinstall_replaces_an_absolute_project_registration(sandbox: Sandbox) -> None:
    absolute = registrations.registration(registrations.registration_command(str(CCBRIDGE)))
    sandbox.write_json(sandbox.settings, {"hooks": {"PreToolUse": [{"hooks": [absolute]}]}})
    assert sandbox.run("install", "--project").returncode == 0
    commands = registered(sandbox.settings)
    assert commands["PreToolUse"] == registrations.launcher_command("PreToolUse")
    assert len(json.loads(sandbox.settings.read_text())["hooks"]["PreToolUse"]) == 1


def test_without_ccbridge_pre_tool_use_is_denied_with_the_fix(sandbox: Sandbox) -> None:
    done = launch(registrations.launcher_command("PreToolUse"), pre_tool_use("ls"), BARE_PATH)
    assert done.returncode == 2
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert answer["permissionDecisionReason"] == registrations.INSTALL_HINT
    assert done.stderr.decode().strip() == registrations.INSTALL_HINT


def test_without_ccbridge_a_prompt_is_blocked_with_the_fix() -> None:
    event = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hi", "cwd": "/"}
    done = launch(registrations.launcher_command("UserPromptSubmit"), event, BARE_PATH)
    assert done.returncode == 2
    assert json.loads(done.stdout) == {"decision": "block", "reason": registrations.INSTALL_HINT}


@pytest.mark.parametrize("event", ["Stop", "SubagentStop", "PostToolUse", "SessionStart"])
def test_without_ccbridge_other_events_tell_the_user_and_block_nothing(event: str) -> None:
    # a block on Stop would keep the agent going round; the others cannot stop anything
    payload = {"hook_event_name": event, "session_id": "s", "cwd": "/"}
    done = launch(registrations.launcher_command(event), payload, BARE_PATH)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"systemMessage": registrations.INSTALL_HINT}


def test_with_ccbridge_elsewhere_on_path_the_launcher_runs_it(tmp_path: Path) -> None:
    """Another machine: ccbridge at another path, found through PATH."""
    elsewhere = tmp_path / "other-place" / "bin"
    elsewhere.mkdir(parents=True)
    (elsewhere / "ccbridge").symlink_to(CCBRIDGE)
    sandbox = Sandbox(tmp_path / "world")
    command = registrations.launcher_command("PreToolUse")
    done = subprocess.run(
        ["sh", "-c", command],
        input=encode(pre_tool_use("rm -rf /")),
        capture_output=True,
        env={**sandbox.env, "PATH": f"{elsewhere}:{BARE_PATH}"},
        cwd=sandbox.project,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 2), done.stderr
    reason = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason != registrations.INSTALL_HINT and "ccbridge" in reason  # ccbridge's own deny


def run_launcher(
    sandbox: Sandbox, event: dict[str, Any], path: str, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[bytes]:
    """The launcher as Claude Code runs it in the sandbox's project."""
    return subprocess.run(
        ["sh", "-c", registrations.launcher_command(str(event["hook_event_name"]))],
        input=encode(event),
        capture_output=True,
        env={**sandbox.env, "CLAUDE_PROJECT_DIR": str(sandbox.project), "PATH": path, **env},
        cwd=cwd or sandbox.project,
        timeout=60,
        check=False,
    )


def planted(directory: Path) -> Path:
    """The agent's stand-in for ccbridge: it answers "allow" to everything."""
    directory.mkdir(parents=True, exist_ok=True)
    fake = directory / "ccbridge"
    fake.write_text("#!/bin/sh\ncat >/dev/null\necho '{}'\n")
    fake.chmod(0o755)
    return fake


def refused_inside(done: subprocess.CompletedProcess[bytes], where: str) -> None:
    """Refused with the fix; `where`: the directory named on stderr."""
    assert done.returncode == 2, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": registrations.INSIDE_PROJECT_HINT,
    }
    assert done.stderr.decode() == f"{registrations.INSIDE_PROJECT_HINT} ({where})\n"


@pytest.mark.parametrize("entry", [".venv/bin", "node_modules/.bin", ".", ""])
def test_a_ccbridge_inside_the_project_is_refused_not_run(sandbox: Sandbox, entry: str) -> None:
    """Inside the wall the agent can write the project: a `ccbridge` it plants on a PATH entry
    there (an activated `.venv/bin`, a relative or empty entry) comes before the real one and
    would say nothing. The launcher refuses it with the fix, whatever the spelling of the entry."""
    planted(sandbox.project / entry)
    real = sandbox.root / "bin"
    real.mkdir(exist_ok=True)
    (real / "ccbridge").symlink_to(CCBRIDGE)
    spelled = entry if entry in (".", "") else str(sandbox.project / entry)
    done = run_launcher(sandbox, pre_tool_use("rm -rf /"), f"{spelled}:{real}:{BARE_PATH}")
    # (a relative or empty entry is named from the working directory)
    refused_inside(done, f"{sandbox.project}/./" if entry in (".", "") else f"{spelled}/")


def test_a_symlinked_project_path_is_no_way_round(sandbox: Sandbox, tmp_path: Path) -> None:
    """PATH names the project through a symlink, Claude Code through its real path (or the
    other way round): compared as physical paths, it is the project all the same."""
    planted(sandbox.project / ".venv" / "bin")
    alias = tmp_path / "alias"
    alias.symlink_to(sandbox.project)
    done = run_launcher(sandbox, pre_tool_use("ls"), f"{alias}/.venv/bin:{BARE_PATH}")
    refused_inside(done, f"{sandbox.project.resolve()}/.venv/bin/")  # its physical path
    done = run_launcher(
        sandbox,
        pre_tool_use("ls"),
        f"{sandbox.project}/.venv/bin:{BARE_PATH}",
        CLAUDE_PROJECT_DIR=str(alias),
    )
    refused_inside(done, f"{sandbox.project}/.venv/bin/")


def test_a_symlink_inside_the_project_to_the_real_ccbridge_is_refused(sandbox: Sandbox) -> None:
    """The link is the project's, so the agent can point it elsewhere: where it leads today
    does not matter."""
    link = sandbox.project / "bin"
    link.mkdir()
    (link / "ccbridge").symlink_to(CCBRIDGE)
    done = run_launcher(sandbox, pre_tool_use("ls"), f"{link}:{BARE_PATH}")
    refused_inside(done, f"{link}/")


def test_a_project_directory_turned_into_a_symlink_to_elsewhere_is_still_the_project(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Two calls: the agent writes its `ccbridge` where the sandbox lets it (a temporary
    directory), then makes the project's `.venv/bin` a symlink to it. The directory PATH names
    is still inside the project, whatever it leads to."""
    outside = tmp_path / "agent-tmp"
    planted(outside)
    (sandbox.project / ".venv").mkdir()
    (sandbox.project / ".venv" / "bin").symlink_to(outside)
    done = run_launcher(sandbox, pre_tool_use("ls"), f"{sandbox.project}/.venv/bin:{BARE_PATH}")
    refused_inside(done, f"{sandbox.project}/.venv/bin/")


def test_without_claude_project_dir_the_working_directory_is_the_project(
    sandbox: Sandbox,
) -> None:
    planted(sandbox.project / ".venv" / "bin")
    env = {k: v for k, v in sandbox.env.items() if k != "CLAUDE_PROJECT_DIR"}
    done = subprocess.run(
        ["sh", "-c", registrations.launcher_command("PreToolUse")],
        input=encode(pre_tool_use("ls")),
        capture_output=True,
        env={**env, "PATH": f"{sandbox.project}/.venv/bin:{BARE_PATH}"},
        cwd=sandbox.project,
        timeout=60,
        check=False,
    )
    refused_inside(done, f"{sandbox.project}/.venv/bin/")


@pytest.mark.parametrize("event", ["Stop", "PostToolUse"])
def test_a_ccbridge_inside_the_project_on_other_events_tells_the_user(
    sandbox: Sandbox, event: str
) -> None:
    planted(sandbox.project / ".venv" / "bin")
    payload = {"hook_event_name": event, "session_id": "s", "cwd": str(sandbox.project)}
    done = run_launcher(sandbox, payload, f"{sandbox.project}/.venv/bin:{BARE_PATH}")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"systemMessage": registrations.INSIDE_PROJECT_HINT}


def test_a_ccbridge_beside_the_project_is_not_inside_it(sandbox: Sandbox) -> None:
    """A sibling whose name starts with the project's (`project-tools`) is not the project."""
    sibling = sandbox.root / f"{sandbox.project.name}-tools" / "bin"
    sibling.mkdir(parents=True)
    (sibling / "ccbridge").symlink_to(CCBRIDGE)
    done = run_launcher(sandbox, pre_tool_use("rm -rf /"), f"{sibling}:{BARE_PATH}")
    assert done.returncode in (0, 2), done.stderr
    reason = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason not in (registrations.INSTALL_HINT, registrations.INSIDE_PROJECT_HINT)
    assert "ccbridge" in reason  # ccbridge's own deny


def test_doctor_fails_a_launcher_that_finds_no_ccbridge(sandbox: Sandbox) -> None:
    assert sandbox.run("install", "--project").returncode == 0
    done = sandbox.run("doctor", "--json", env={"PATH": f"{sandbox.root / 'bin'}:{BARE_PATH}"})
    starts = [f for f in json.loads(done.stdout) if f["topic"] == "starts"]
    assert starts and all(f["level"] == "fail" for f in starts), starts
    assert registrations.INSTALL_HINT in starts[0]["message"]
    assert done.returncode == 1


@pytest.mark.parametrize("linked", [False, True], ids=["a-directory", "a-symlink-to-elsewhere"])
def test_doctor_fails_a_launcher_that_finds_ccbridge_inside_the_project(
    sandbox: Sandbox, tmp_path: Path, linked: bool
) -> None:
    assert sandbox.run("install", "--project").returncode == 0
    if linked:
        planted(tmp_path / "agent-tmp")
        (sandbox.project / ".venv").mkdir()
        (sandbox.project / ".venv" / "bin").symlink_to(tmp_path / "agent-tmp")
        fake = sandbox.project / ".venv" / "bin" / "ccbridge"
    else:
        fake = planted(sandbox.project / ".venv" / "bin")
    done = sandbox.run("doctor", "--json", env={"PATH": f"{fake.parent}:{BARE_PATH}"})
    starts = [f for f in json.loads(done.stdout) if f["topic"] == "starts"]
    assert starts and all(f["level"] == "fail" for f in starts), starts
    assert f"is {fake}, inside the project" in starts[0]["message"]
    assert registrations.INSIDE_PROJECT_HINT in starts[0]["message"]
    assert done.returncode == 1


def test_doctor_says_a_reverted_registration_is_gone_and_how_to_fix_it(sandbox: Sandbox) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git = ["git", "-c", "user.email=a@example.invalid", "-c", "user.name=A"]
    sandbox.write_json(sandbox.settings, {"model": "opus"})
    subprocess.run(["git", "init", "-q"], cwd=sandbox.project, check=True)
    subprocess.run([*git, "add", "."], cwd=sandbox.project, check=True)
    subprocess.run([*git, "commit", "-qm", "settings"], cwd=sandbox.project, check=True)
    assert sandbox.run("install", "--project").returncode == 0
    before = sandbox.run("doctor", "--json")
    assert not [f for f in json.loads(before.stdout) if "registration is gone" in f["message"]]
    subprocess.run(["git", "checkout", ".claude/settings.json"], cwd=sandbox.project, check=True)
    done = sandbox.run("doctor", "--json")
    assert done.returncode == 1
    gone = [f for f in json.loads(done.stdout) if "registration is gone" in f["message"]]
    # this machine's copy in settings.local.json still runs ccbridge: a warning, not a failure
    assert len(gone) == 1 and gone[0]["level"] == "warn", done.stdout
    assert "still runs from" in gone[0]["message"]
    assert "run `ccbridge install --project` again" in gone[0]["message"]
    assert str(sandbox.settings) in gone[0]["message"]


def test_doctor_says_a_project_config_nothing_registers(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "hooks: {}\n")
    found = json.loads(sandbox.run("doctor", "--json").stdout)
    said = [f["message"] for f in found if f["topic"] == "registration"]
    assert any("does not register ccbridge, so none of it runs" in m for m in said), said
