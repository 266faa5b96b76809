"""Whether Claude Code starts more than one ccbridge for an event, decided when the config is
compiled from the settings files that hold the registrations (bridge.config.registrations), and
kept in the compiled config, whose cache key covers those files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from bridge.commands.managed import hook_entry
from bridge.config.cache import KEY_NAME, Cache, Surroundings, load
from bridge.config.registrations import distinct, launcher_command, registration_command

ABSOLUTE = registration_command("/opt/tools/bin/ccbridge")  # what `install --user` writes


def registered(*handlers: dict[str, Any], event: str = "PreToolUse") -> dict[str, Any]:
    return {"hooks": {event: [{"hooks": list(handlers)}]}}


def command(text: str, **options: Any) -> dict[str, Any]:
    return {"type": "command", "command": text, **options}


@pytest.mark.parametrize(
    ("layers", "expected"),
    [
        # the project's launcher copied into the local file, command for command: CC runs it once
        ([registered(command(launcher_command("PreToolUse")))] * 2, {}),
        # the same command with another timeout, onFailure or matcher is still one for CC
        (
            [
                registered(command(ABSOLUTE, timeout=60, onFailure="block")),
                registered(command(ABSOLUTE, timeout=30)),
            ],
            {},
        ),
        # identical exec form (managed settings and a copy of it): one
        ([registered(hook_entry("/opt/tools/bin/ccbridge"))] * 2, {}),
        # the shared launcher and this machine's absolute path: two processes
        (
            [registered(command(ABSOLUTE)), registered(command(launcher_command("PreToolUse")))],
            {"PreToolUse": 2},
        ),
        # exec form and the shell command that spells the same: two for CC
        (
            [
                registered(hook_entry("/opt/tools/bin/ccbridge")),
                registered(command("/opt/tools/bin/ccbridge run")),
            ],
            {"PreToolUse": 2},
        ),
        # managed exec form, user absolute path, project launcher: three
        (
            [
                registered(command(ABSOLUTE)),
                registered(command(launcher_command("PreToolUse"))),
                registered(hook_entry("/opt/tools/bin/ccbridge")),
            ],
            {"PreToolUse": 3},
        ),
        # other hooks are not ccbridge; each event is counted on its own
        (
            [
                registered(command(ABSOLUTE), command("./lint.sh")),
                registered(command(ABSOLUTE), event="PostToolUse"),
                registered(command("ccbridge run"), event="PostToolUse"),
            ],
            {"PostToolUse": 2},
        ),
    ],
)
def test_distinct_registrations_per_event(
    layers: list[dict[str, Any]], expected: dict[str, int]
) -> None:
    assert distinct(layers) == expected


class Machine:
    """A home and a project with Claude Code's settings files, and the compiled config a call
    loads for them."""

    def __init__(self, root: Path) -> None:
        self.home, self.project = root / "home", root / "project"
        for folder in (self.home / ".claude", self.project / ".claude"):
            folder.mkdir(parents=True)
        self.env = {
            "HOME": str(self.home),
            "CCBRIDGE_STATE_DIR": str(root / "state"),
            "CCBRIDGE_CACHE_DIR": str(root / "cache"),
            "CCBRIDGE_MANAGED_DIR": str(root / "managed" / "managed-settings.d"),
        }
        self.cache = Cache(root / "cache", root / "state" / KEY_NAME)

    def settings(self, where: Path, data: Any) -> None:
        where.write_text(data if isinstance(data, str) else json.dumps(data))

    def coordinated(self) -> dict[str, int]:
        around = Surroundings(self.env, str(self.project))
        return dict(load([], self.cache, around).coordinated)


def test_the_compiled_config_says_when_two_registrations_run_and_follows_the_files(
    tmp_path: Path,
) -> None:
    machine = Machine(tmp_path)
    project = machine.project / ".claude" / "settings.json"
    user = machine.home / ".claude" / "settings.json"
    machine.settings(project, registered(command(launcher_command("PreToolUse"))))
    assert machine.coordinated() == {}  # one registration: the call takes no other path
    machine.settings(user, registered(command(ABSOLUTE)))
    assert machine.coordinated() == {"PreToolUse": 2}  # the cache entry was rebuilt
    machine.settings(user, registered(command(launcher_command("PreToolUse"))))
    assert machine.coordinated() == {}
    # a managed drop-in in exec form beside the project's launcher
    managed = Path(machine.env["CCBRIDGE_MANAGED_DIR"])
    managed.mkdir(parents=True)
    machine.settings(managed / "ccbridge.json", registered(hook_entry("/opt/tools/bin/ccbridge")))
    assert machine.coordinated() == {"PreToolUse": 2}


def test_a_settings_file_claude_code_cannot_parse_registers_nothing(tmp_path: Path) -> None:
    machine = Machine(tmp_path)
    machine.settings(
        machine.project / ".claude" / "settings.json",
        registered(command(launcher_command("PreToolUse"))),
    )
    broken = json.dumps(registered(command(ABSOLUTE)))
    machine.settings(machine.home / ".claude" / "settings.json", "<<<<<<< HEAD\n" + broken)
    assert machine.coordinated() == {}  # CC ignores the whole file: one ccbridge runs


def test_a_cached_entry_is_not_rebuilt_for_an_unchanged_machine(tmp_path: Path) -> None:
    machine = Machine(tmp_path)
    machine.settings(machine.home / ".claude" / "settings.json", registered(command(ABSOLUTE)))
    machine.settings(
        machine.project / ".claude" / "settings.json",
        registered(command(launcher_command("PreToolUse"))),
    )
    assert machine.coordinated() == {"PreToolUse": 2}
    (entry,) = Path(machine.cache.directory).iterdir()
    before = os.stat(entry).st_mtime_ns
    assert machine.coordinated() == {"PreToolUse": 2}
    assert os.stat(entry).st_mtime_ns == before  # read from the cache, not compiled again
