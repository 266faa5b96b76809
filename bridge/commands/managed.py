"""Registering ccbridge through Claude Code's managed settings: one drop-in file in
`managed-settings.d/`, which an administrator deploys (by hand, MDM or configuration
management) and which no user or project settings file can override.

PreToolUse hooks from managed settings run before any plugin's hooks module (mod) and their
block is final; see docs/fleet.md for what was measured. The drop-in registers `ccbridge run` in
exec form (`command` plus `args`: no shell between CC and ccbridge), with `onFailure: "block"`
on each hook entry and the same timeout as `ccbridge install`, and asks for the oldest CC that
honours `onFailure` with `requiredMinimumVersion`. Uninstall removes that one file and only
when it is still ccbridge's.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.commands.settings_json import InstallError
from bridge.config.registrations import CC_TIMEOUT, is_registration
from bridge.paths import MANAGED_DIR_ENV

DROP_IN = "ccbridge.json"
DROP_IN_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
# onFailure on hook entries needs CC 2.1.295 or later; older versions would ignore it and let a
# crashed ccbridge through.
MINIMUM_CC = "2.1.295"


def system_managed_dir(platform: str = sys.platform) -> Path:
    """Where CC reads the machine's managed settings (its `managed-settings.d/` folder)."""
    if platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode/managed-settings.d")
    if platform.startswith("win"):
        return Path("C:/Program Files/ClaudeCode/managed-settings.d")
    return Path("/etc/claude-code/managed-settings.d")


def managed_dir(given: str | None, env: Mapping[str, str]) -> Path:
    chosen = given or env.get(MANAGED_DIR_ENV)
    return Path(chosen) if chosen else system_managed_dir()


def hook_entry(executable: str) -> dict[str, Any]:
    return {
        "type": "command",
        "command": executable,
        "args": ["run"],
        "timeout": CC_TIMEOUT,
        "onFailure": "block",
    }


def drop_in(executable: str, events: tuple[str, ...] = DROP_IN_EVENTS) -> dict[str, Any]:
    return {
        "requiredMinimumVersion": MINIMUM_CC,
        "hooks": {event: [{"hooks": [hook_entry(executable)]}] for event in events},
    }


def render(data: Mapping[str, Any]) -> bytes:
    return (json.dumps(data, indent=2) + "\n").encode()


def registrations(data: Any) -> dict[str, list[dict[str, Any]]]:
    """The ccbridge hook entries of one settings object, per event."""
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = data.get("hooks") if isinstance(data, Mapping) else None
    for event, groups in hooks.items() if isinstance(hooks, Mapping) else ():
        for group in groups if isinstance(groups, list) else ():
            entries = group.get("hooks") if isinstance(group, Mapping) else None
            for entry in entries if isinstance(entries, list) else ():
                if is_registration(entry):
                    found.setdefault(str(event), []).append(entry)
    return found


def is_ours(content: bytes) -> bool:
    """A drop-in ccbridge wrote: only its keys, and nothing but ccbridge entries in its hooks."""
    try:
        data = json.loads(content)
    except ValueError:
        return False
    if not isinstance(data, dict) or set(data) - {"requiredMinimumVersion", "hooks"}:
        return False
    found = registrations(data)
    groups = data.get("hooks")
    total = sum(
        len(group.get("hooks", []))
        for event in (groups.values() if isinstance(groups, dict) else ())
        for group in (event if isinstance(event, list) else ())
        if isinstance(group, dict)
    )
    return bool(found) and total == sum(len(items) for items in found.values())


def install(directory: Path, executable: str) -> tuple[Path, bool]:
    """Write the drop-in; returns its path and whether anything changed."""
    path = directory / DROP_IN
    content = render(drop_in(executable))
    try:
        before = path.read_bytes()
    except FileNotFoundError:
        before = None
    except OSError as error:
        raise InstallError(f"{path}: cannot read it: {error}") from None
    if before == content:
        return path, False
    if before is not None and not is_ours(before):
        raise InstallError(f"{path} exists and is not ccbridge's drop-in: not overwritten")
    directory.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{DROP_IN}.{os.getpid()}.tmp")  # CC skips dot files
    temporary.write_bytes(content)
    temporary.chmod(0o644)  # managed settings are read by every user's CC
    os.replace(temporary, path)
    return path, True


def uninstall(directory: Path) -> tuple[Path, bool]:
    """Remove the drop-in when it is still ccbridge's; returns its path and whether it went."""
    path = directory / DROP_IN
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        return path, False
    except OSError as error:
        raise InstallError(f"{path}: cannot read it: {error}") from None
    if not is_ours(content):
        raise InstallError(f"{path} was edited and holds more than ccbridge's hooks: not removed")
    path.unlink()
    return path, True
