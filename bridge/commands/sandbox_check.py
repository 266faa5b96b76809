"""Claude Code's Bash sandbox, as ccbridge needs it: is it on for the project, with no way out,
and are ccbridge's files (state, cache, config) and CC's settings outside what sandboxed
commands may write? Without it, self-protection judges commands by their text: it raises the
cost of tampering but is not a boundary. With it, the kernel keeps those paths out of reach.

Read from the settings files (least specific first; managed settings last, as they win):
scalars of a more specific file override, `filesystem` path lists add up, as CC merges them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANAGED = Path("/etc/claude-code/managed-settings.json")


def recommended(project: Path) -> dict[str, Any]:
    """The settings that make the sandbox a boundary for ccbridge (tested end to end in
    tests/e2e/test_sandbox_e2e.py): Bash sandboxed, no unsandboxed fallback, a hard failure
    where the sandbox cannot run, and the project's .claude directory read-only (CC's
    settings and ccbridge's config live there; the rest is outside the project already)."""
    return {
        "sandbox": {
            "enabled": True,
            "allowUnsandboxedCommands": False,
            "failIfUnavailable": True,
            "filesystem": {"denyWrite": [str(project / ".claude")]},
        }
    }


@dataclass
class Sandbox:
    enabled: bool = False
    allow_unsandboxed: bool = True  # CC's default: the model may ask to leave the sandbox
    fail_if_unavailable: bool = False
    excluded: list[str] = field(default_factory=list)
    allow_write: list[Path] = field(default_factory=list)
    deny_write: list[Path] = field(default_factory=list)


def _path(entry: str, home: Path, project: Path) -> Path:
    if entry.startswith("~/") or entry == "~":
        return home / entry[2:]
    if entry.startswith("/"):
        return Path("/" + entry.lstrip("/"))  # `//x` and `/x` are both absolute
    return project / entry


def _read(path: Path) -> Mapping[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    section = data.get("sandbox") if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def merged(files: Iterable[Path], home: Path, project: Path) -> Sandbox:
    result = Sandbox()
    for path in [*files, MANAGED]:
        section = _read(path)
        for key, attribute in (
            ("enabled", "enabled"),
            ("allowUnsandboxedCommands", "allow_unsandboxed"),
            ("failIfUnavailable", "fail_if_unavailable"),
        ):
            if isinstance(section.get(key), bool):
                setattr(result, attribute, section[key])
        excluded = section.get("excludedCommands")
        result.excluded += [str(item) for item in excluded] if isinstance(excluded, list) else []
        filesystem = section.get("filesystem")
        filesystem = filesystem if isinstance(filesystem, dict) else {}
        for key, paths in (("allowWrite", result.allow_write), ("denyWrite", result.deny_write)):
            entries = filesystem.get(key)
            if isinstance(entries, list):
                paths += [_path(str(entry), home, project) for entry in entries]
    return result


def _under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def writable_inside(
    sandbox: Sandbox, project: Path, protected: Sequence[Path], temp: Path
) -> list[Path]:
    """The protected paths a sandboxed command could still write: under the project, the
    sandbox's temp directory or an allowWrite entry, and not under a denyWrite entry."""
    roots = [project, temp, *sandbox.allow_write]
    return [
        path for path in protected if _under(path, roots) and not _under(path, sandbox.deny_write)
    ]


def missing_programs(which: Any) -> list[str]:
    """What the Linux sandbox needs and `which` cannot find (nothing needed on macOS)."""
    if not sys.platform.startswith("linux"):
        return []
    return [program for program in ("bwrap", "socat") if which(program) is None]
