"""What one sub-hook said, as a value, before any folding."""

from __future__ import annotations

from bridge.pipeline.valueclass import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping
    from typing import Any, Literal

    # "block" is PostToolUse's word for deny; "failure" is a hook that did not give a usable answer.
    Kind = Literal["deny", "ask", "allow", "defer", "none", "block", "failure"]


class Verdict(Record, frozen=True, slots=True):
    kind: Kind
    reason: str = ""
    context: str = ""
    system_message: str = ""
    updated_input: Mapping[str, Any] | None = None
    updated_output: Any = None
    stop_reason: str | None = None  # set when the hook answered `continue: false`


class HookRun(Record, frozen=True, slots=True):
    """How one sub-hook process went: its exit and output, or why it never answered."""

    exit_code: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    duration_ms: float = 0.0
    # Could not start, timed out, output over the cap. With an exit code: it exited, but its
    # stdout was still held open at its timeout (what was read may be only part of an answer).
    error: str | None = None
