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

from bridge.pipeline import Execution
from bridge.policies.dangerous import dangerous_shell
from bridge.wire.answer import deny
from bridge.wire.event import EventError, read_event

guard = dangerous_shell


def main() -> int:
    try:
        event = read_event(sys.stdin.buffer)
        if event.name != "PreToolUse":
            return 0
        execution = Execution.create(event.tool_name, event.tool_input, cwd=event.cwd)
        reason = guard(execution)
    except EventError as error:
        reason = f"dangerous_shell hook cannot judge this call: {error}"
    except Exception as error:  # fail closed, never a traceback
        reason = f"dangerous_shell hook failed: {type(error).__name__}: {error}"
    if reason is not None:
        sys.stdout.buffer.write(deny(reason).stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
