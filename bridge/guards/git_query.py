"""Asking the repository's own git a question while a guard judges a line (what an alias stands
for, what a HEAD move would change): bounded in time, with the agent's `GIT_*` variables left out,
no optional locks taken, and no fsmonitor or hook the agent may have configured run. Imported
only by the guards' lazy paths, never on a plain call."""

from __future__ import annotations

import os
import subprocess

TIMEOUT = 2.0  # seconds per question; past it the guard treats the answer as unknown
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")


def ask_git(
    cwd: str, args: list[str], git_dir: str | None = None
) -> subprocess.CompletedProcess[str] | None:
    """`git ARGS` run in `cwd` (None: git could not be run or did not answer in time)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    if git_dir is not None:
        env["GIT_DIR"] = git_dir
    try:
        return subprocess.run(
            ["git", *_SAFE, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
