"""The `claude` on PATH and its version: what install registers for and doctor reports on."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

# The first Claude Code with the PreSkillShellCommand hook event.
SKILL_SHELL_SINCE = (2, 1, 332)
PROBE_TIMEOUT = 30.0
_VERSION = re.compile(r"\b(\d+)\.(\d+)\.(\d+)\b")


def parse_version(text: str) -> tuple[int, int, int] | None:
    found = _VERSION.search(text)
    if found is None:
        return None
    major, minor, patch = (int(part) for part in found.groups())
    return major, minor, patch


@dataclass(frozen=True)
class Claude:
    """The `claude` on PATH: where, its version, or what kept it from being known."""

    path: str | None
    version: tuple[int, int, int] | None = None
    problem: str | None = None


def find_claude(env: Mapping[str, str]) -> Claude:
    path = shutil.which("claude", path=env.get("PATH"))
    if path is None:
        return Claude(None, problem="no `claude` on PATH")
    try:
        done = subprocess.run(
            [path, "--version"],
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            env=dict(env),
            check=False,
        )
        text = done.stdout.decode("utf-8", "replace").strip()
    except (OSError, subprocess.TimeoutExpired) as error:
        return Claude(path, problem=f"{path} --version did not answer: {error}")
    version = parse_version(text)
    if version is None:
        return Claude(path, problem=f"{path} --version printed no version: {text[:200]!r}")
    return Claude(path, version)


def skill_shell_known(claude: Claude) -> bool:
    """Whether that claude sends PreSkillShellCommand (older ones open a dialog at start for a
    settings file naming it, so ccbridge is registered for it only from that version on)."""
    return claude.version is not None and claude.version >= SKILL_SHELL_SINCE
