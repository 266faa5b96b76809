#!/usr/bin/env python3
"""Claude Code PreToolUse hook: deny Bash commands that wreck the machine, the disk or history.

Use it on its own (`"command": "hooks/dangerous_shell.py"` with matcher `Bash`) or load it into
ccbridge as a native guard: `hooks/dangerous_shell.py:guard`.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import bridge  # noqa: F401
except ImportError:  # run from a checkout where ccbridge is not installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridge.policies.dangerous import dangerous_shell
from bridge.policies.hook import run_guard_as_hook

guard = dangerous_shell


def main() -> int:
    return run_guard_as_hook(guard, "dangerous_shell")


if __name__ == "__main__":
    sys.exit(main())
