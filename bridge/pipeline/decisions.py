"""Decisions are values: what a station says about a tool call or its result."""

from __future__ import annotations

from bridge.pipeline.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` is not imported on a hook call
    from typing import Any


@record(frozen=True, slots=True)
class Allow:
    """No objection: the call may go on (never a pre-approval towards Claude Code)."""


@record(frozen=True, slots=True)
class Deny:
    reason: str


@record(frozen=True, slots=True)
class Ask:
    """The call needs an explicit yes from an approval channel."""

    reason: str = ""


PreDecision = Allow | Deny | Ask


@record(frozen=True, slots=True)
class Accept:
    """Keep the result as it is, optionally adding context messages for the model."""

    context: tuple[str, ...] = ()


@record(frozen=True, slots=True)
class ReplaceContent:
    """Replace what the model sees of the result."""

    content: str
    context: tuple[str, ...] = ()


@record(frozen=True, slots=True)
class ReplaceValue:
    """Replace the structured result; only applies to successes."""

    value: Any
    context: tuple[str, ...] = ()


@record(frozen=True, slots=True)
class Block:
    """Turn the result into a corrective error carrying the reason."""

    reason: str
    context: tuple[str, ...] = ()


PostDecision = Accept | ReplaceContent | ReplaceValue | Block
