"""What `ccbridge doctor` says about the fleet side: which scope registers ccbridge, which
installed plugin has a hooks module (a mod) that can answer before or over it, whether
`allowManagedHooksOnly` silences it, and where `onFailure` gives no protection.

Measured on Claude Code 2.1.332 and 2.1.333 (docs/e2e-matrix.md, "ccbridge beside mods"): a
mod's `tool.check` allow overrides the deny of a ccbridge registered in project settings when the
machine has no managed settings or they set the guard option `allowModsToOverrideDenyRules`; a
ccbridge registered in managed settings answers first and its deny held in every measured case.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from bridge.commands.managed import managed_dir, registrations

# (level, topic, message): doctor turns them into its Findings.
Note = tuple[str, str, str]
TOPIC = "mods"
# Claude Code ignores onFailure on these events and on async hooks.
UNPROTECTED_EVENTS = ("Stop", "SubagentStop", "TaskCompleted", "TeammateIdle")
_HOOKS_FILE_DEPTH = 6  # path parts to a hooks.json under a plugins root (marketplace/plugin/...)


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def managed_files(env: Mapping[str, str]) -> list[Path]:
    """managed-settings.json and the drop-ins of managed-settings.d, in CC's order."""
    drop = managed_dir(None, env)
    files = [drop.parent / "managed-settings.json"]
    try:
        names = sorted(p.name for p in drop.iterdir() if p.suffix == ".json")
    except OSError:
        names = []
    return files + [drop / name for name in names if not name.startswith(".")]


def plugin_roots(home: Path, project: Path) -> list[Path]:
    return [
        home / ".claude" / "plugins",
        home / ".claude" / "dev-mods",
        project / ".claude" / "plugins",
    ]


def hooks_modules(roots: Sequence[Path]) -> list[tuple[Path, list[str]]]:
    """Every plugin folder whose hooks/hooks.json lists hooks modules, with the modules."""
    found = []
    for root in roots:
        for hooks in sorted(root.glob("**/hooks/hooks.json")) if root.is_dir() else ():
            if len(hooks.relative_to(root).parts) > _HOOKS_FILE_DEPTH:
                continue
            data = _load(hooks)
            modules = data.get("modules") if isinstance(data, dict) else None
            if isinstance(modules, list) and modules:
                found.append((hooks.parent.parent, [str(m) for m in modules]))
    return found


def _events(files: Sequence[Path]) -> dict[Path, dict[str, list[dict[str, Any]]]]:
    out = {}
    for path in files:
        found = registrations(_load(path))
        if found:
            out[path] = found
    return out


def findings(
    files: Sequence[Path], env: Mapping[str, str], home: Path, project: Path
) -> Iterator[Note]:
    """`files`: the user, project and local settings files doctor reads."""
    managed = managed_files(env)
    in_managed = _events(managed)
    in_other = _events(files)
    mods = hooks_modules(plugin_roots(home, project))
    if in_managed:
        yield (
            "ok",
            TOPIC,
            "ccbridge is registered in managed settings: "
            + ", ".join(map(str, in_managed))
            + "; its PreToolUse deny runs before any mod and holds",
        )
    elif in_other:
        yield (
            "ok",
            TOPIC,
            (
                "ccbridge is registered in " + ", ".join(map(str, in_other)) + ", not in managed "
                "settings: a plugin's hooks module (mod) answering tool.check with allow can "
                "override its deny (`ccbridge install --managed`, docs/fleet.md)"
            ),
        )
    for folder, modules in mods:
        yield (
            ("ok" if in_managed else "warn"),
            TOPIC,
            (
                f"plugin {folder} has a hooks module ({', '.join(modules)}): "
                + (
                    "it runs after the managed ccbridge, whose deny it cannot override"
                    if in_managed
                    else "its tool.check can approve what ccbridge denies"
                )
            ),
        )
    for path in managed:
        data = _load(path)
        if isinstance(data, dict) and data.get("allowManagedHooksOnly") is True and not in_managed:
            yield (
                "fail",
                TOPIC,
                (
                    f"{path} sets allowManagedHooksOnly: Claude Code runs no ccbridge registered "
                    "outside managed settings (`ccbridge install --managed`)"
                ),
            )
    for path, per_event in {**in_other, **in_managed}.items():
        weak = sorted(set(per_event) & set(UNPROTECTED_EVENTS))
        weak += sorted(
            f"{event} (async)"
            for event, entries in per_event.items()
            if any(entry.get("async") for entry in entries)
        )
        if weak:
            yield (
                "warn",
                TOPIC,
                (
                    f"{path}: onFailure gives no protection on {', '.join(weak)}: a ccbridge that "
                    "fails there does not block"
                ),
            )
