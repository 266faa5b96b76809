"""The project install as a team shares it: the shared settings name no path of this machine,
this machine's local settings carry the registration (the same command, which Claude Code runs
once) and the wall by its own paths; `install --local` after it registers nothing twice;
uninstall takes both out."""

from __future__ import annotations

import json
from pathlib import Path

from bridge import wall
from bridge.config import registrations
from tests.support.sandbox import Sandbox


def commands(settings: Path) -> dict[str, list[str]]:
    data = json.loads(settings.read_text())
    found: dict[str, list[str]] = {}
    for event, groups in data.get("hooks", {}).items():
        for group in groups:
            for handler in group["hooks"]:
                if registrations.is_registration(handler):
                    found.setdefault(event, []).append(handler["command"])
    return found


def local_of(sandbox: Sandbox) -> Path:
    return sandbox.settings.with_name("settings.local.json")


def test_the_local_copy_registers_the_shared_command_and_this_machine_s_paths(
    sandbox: Sandbox,
) -> None:
    assert sandbox.run("install").returncode == 0
    shared, local = commands(sandbox.settings), commands(local_of(sandbox))
    assert shared and local == shared  # identical commands: Claude Code runs them once
    assert str(sandbox.root) not in sandbox.settings.read_text()
    kept = json.loads(local_of(sandbox).read_text())["sandbox"]["filesystem"]["denyWrite"]
    assert str(sandbox.state) in kept  # $CCBRIDGE_STATE_DIR: this machine's own


def test_install_local_after_a_project_install_registers_nothing_twice(sandbox: Sandbox) -> None:
    assert sandbox.run("install").returncode == 0
    assert sandbox.run("install", "--local").returncode == 0
    shared, local = commands(sandbox.settings), commands(local_of(sandbox))
    assert all(len(found) == 1 for found in local.values()), local
    assert local == shared


def test_a_project_install_replaces_an_earlier_local_absolute_registration(
    sandbox: Sandbox,
) -> None:
    assert sandbox.run("install", "--local").returncode == 0
    assert sandbox.run("install").returncode == 0
    local = commands(local_of(sandbox))
    assert local == commands(sandbox.settings) and all(len(c) == 1 for c in local.values())


def test_uninstall_takes_the_local_copy_out_too(sandbox: Sandbox) -> None:
    sandbox.write_json(sandbox.settings, {"model": "opus"})
    assert sandbox.run("install").returncode == 0
    assert sandbox.run("uninstall").returncode == 0
    assert json.loads(sandbox.settings.read_text()) == {"model": "opus"}
    assert not local_of(sandbox).exists()


def test_a_relative_permission_rule_is_taken_from_the_project_root(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    rules = ["Edit(/.claude/ccbridge.yaml)", "Edit(~/.claude/**)", "Read(//k)", "Edit(/x/**)"]
    settings.write_text(json.dumps({"permissions": {"deny": rules}}))
    merged = wall.in_force([str(settings)], "/h", str(project))
    # measured (tests/e2e/test_path_spellings_e2e.py): `/x` is x in the project, not /x
    assert merged.edit_denied == [f"{project}/.claude/ccbridge.yaml", "/h/.claude", f"{project}/x"]
    assert merged.read_denied == ["/k"]


def test_the_shared_wall_is_the_same_on_every_machine(tmp_path: Path) -> None:
    project = str(tmp_path / "p")
    keep = wall.shared_protected(project)
    spelled = wall.additions(keep, {"HOME": wall.SHARED_HOME}, project)
    every = [*spelled["denyWrite"], *spelled["denyRead"], *spelled["deny"]]
    assert not [entry for entry in every if project in entry or wall.SHARED_HOME + "/" in entry]
    assert ".claude/ccbridge.yaml" in spelled["denyWrite"]
    assert "~/.local/state/ccbridge" in spelled["denyWrite"]
    assert "Edit(/.claude/settings.json)" in spelled["deny"]
    assert "Read(~/.local/state/ccbridge/cache.key)" in spelled["deny"]


def test_the_wall_keeps_the_transcripts_a_goal_s_authority_is_read_from(
    sandbox: Sandbox,
) -> None:
    """A person's goal authority rests on Claude Code's transcript (bridge.goal.typed): the
    committed file keeps the agent's file tools out of every machine's transcripts, and the
    sandbox's writes too; self-protection refuses a Write there."""
    assert sandbox.run("install").returncode == 0
    settings = json.loads(sandbox.settings.read_text())
    assert "Edit(~/.claude/projects/**)" in settings["permissions"]["deny"]
    assert "~/.claude/projects" in settings["sandbox"]["filesystem"]["denyWrite"]
    transcript = sandbox.home / ".claude" / "projects" / "-p" / "s.jsonl"
    outcome = sandbox.call_executable(
        None,
        json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Write",
                "tool_input": {"file_path": str(transcript), "content": "{}"},
                "session_id": "s",
                "cwd": str(sandbox.project),
            }
        ).encode(),
    )
    assert outcome.decision == "deny" and "[self-protection]" in outcome.reason
