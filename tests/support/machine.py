"""What of the machine outside their temp dirs the tests could change by mistake: the managed
settings CC reads (/etc/claude-code), the real home's Claude Code settings and ccbridge's own
config, state and compiled-config cache there. A snapshot before and after each test (by
tests/conftest.py) names the test that changed any of it.

The real home is the one the suite started with: a test that points $HOME elsewhere is what
keeps it safe, so the snapshot never follows it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

# The cache folder also holds the fetched clients (scripts/fetch-clients writes them there on
# purpose, and a concurrent fetch may add one): only ccbridge's own entries are compared.
FETCHED = frozenset({"claude", "clients"})


def places(home: Path) -> list[tuple[Path, bool]]:
    """(folder, whole tree?) for each place compared: a folder's every file, or only ccbridge's
    and CC's settings files directly in it."""
    return [
        (Path("/etc/claude-code"), True),
        (home / ".claude", False),
        (home / ".config" / "ccbridge", True),
        (home / ".local" / "state" / "ccbridge", True),
        (home / ".cache" / "ccbridge", False),
    ]


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError as error:  # unreadable, or a FIFO a test left: its kind is what counts
        return f"unreadable: {error.strerror}"


def _settings_like(name: str) -> bool:
    return name.startswith(("settings", "ccbridge", "config-", "cache.key", "audit"))


def snapshot(home: Path) -> dict[str, str]:
    """Each compared path and a digest of it (a folder: "dir")."""
    seen: dict[str, str] = {}
    for folder, whole in places(home):
        if not folder.is_dir():
            continue
        seen[str(folder)] = "dir"
        if whole:
            for root, dirs, files in os.walk(folder):
                for name in dirs:
                    seen[os.path.join(root, name)] = "dir"
                for name in files:
                    seen[os.path.join(root, name)] = _digest(Path(root, name))
            continue
        for entry in folder.iterdir():
            if entry.name in FETCHED or not _settings_like(entry.name):
                continue
            seen[str(entry)] = "dir" if entry.is_dir() else _digest(entry)
    return seen


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What differs, one line each: added, removed or changed paths."""
    lines = [f"added {path}" for path in sorted(after.keys() - before.keys())]
    lines += [f"removed {path}" for path in sorted(before.keys() - after.keys())]
    lines += [
        f"changed {path}"
        for path in sorted(before.keys() & after.keys())
        if before[path] != after[path]
    ]
    return lines
