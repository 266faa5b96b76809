"""Running a native guard as a standalone Claude Code PreToolUse command hook."""

from __future__ import annotations

import sys

from bridge.pipeline import Ask, Deny, Execution, Guard
from bridge.wire.answer import deny, pre_tool_use
from bridge.wire.event import EventError, read_event

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from typing import BinaryIO


def run_guard_as_hook(
    guard: Guard, name: str, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> int:
    """Read one event, print a deny on objection or an ask on a question (nothing otherwise),
    exit 0.

    Bad stdin and the guard's own failures deny: a safety hook that cannot judge says no.
    """
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    try:
        event = read_event(stdin)
        if event.name != "PreToolUse":
            return 0
        execution = Execution.create(event.tool_name, event.tool_input, cwd=event.cwd)
        verdict = guard(execution)
    except EventError as error:
        verdict = f"{name} hook cannot judge this call: {error}"
    except Exception as error:  # fail closed, never a traceback
        verdict = f"{name} hook failed: {type(error).__name__}: {error}"
    if isinstance(verdict, Ask):
        stdout.write(pre_tool_use(Ask(verdict.reason or "asked")).stdout)
    elif isinstance(verdict, Deny):
        stdout.write(deny(verdict.reason or "objected").stdout)
    elif verdict is not None:
        stdout.write(deny(str(verdict) or "objected").stdout)
    return 0
