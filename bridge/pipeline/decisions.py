"""Decisions are values: what a station says about a tool call or its result."""

from bridge.pipeline.valueclass import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from typing import Any


class Allow(Record, frozen=True, slots=True):
    """No objection: the call may go on (never a pre-approval towards Claude Code)."""


class Deny(Record, frozen=True, slots=True):
    reason: str


class Ask(Record, frozen=True, slots=True):
    """The call needs an explicit yes from an approval channel."""

    reason: str = ""


PreDecision = Allow | Deny | Ask


class Accept(Record, frozen=True, slots=True):
    """Keep the result as it is, optionally adding context messages for the model."""

    context: "tuple[str, ...]" = ()


class ReplaceContent(Record, frozen=True, slots=True):
    """Replace what the model sees of the result."""

    content: str
    context: "tuple[str, ...]" = ()


class ReplaceValue(Record, frozen=True, slots=True):
    """Replace the structured result; only applies to successes."""

    value: "Any"
    context: "tuple[str, ...]" = ()


class Block(Record, frozen=True, slots=True):
    """Turn the result into a corrective error carrying the reason."""

    reason: str
    context: "tuple[str, ...]" = ()


PostDecision = Accept | ReplaceContent | ReplaceValue | Block
