"""Folding many sub-hook verdicts into one, strictest first and independent of their order.

deny > ask > no opinion. A failure counts as a deny unless the hook opted out
(`onFailure: ignore`), in which case the user is told in a system message. `allow` is
downgraded to no opinion (ccbridge never pre-approves). `defer` folds as `ask`: it asks the
host to decide later, which is a question, and the strict reading of a question is `ask`.
Only the winning rank's reasons are kept, sorted and de-duplicated, so neither config order nor
finishing order changes a single byte of the answer's decision or reason.
"""

from __future__ import annotations

from bridge.pipeline.valueclass import Record
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import HookRun, Verdict

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping, Sequence
    from typing import Any, Literal

    Rank = Literal["deny", "ask", "none"]

_STRICTNESS: dict[Rank, int] = {"none": 0, "ask": 1, "deny": 2}
CONTEXT_LIMIT = 10_000  # CC cuts longer strings to a preview


class Judged(Record, frozen=True, slots=True):
    hook: HookSpec
    verdict: Verdict


class Rewrite(Record, frozen=True, slots=True):
    hook: str
    diff: Mapping[str, Any]


class Folded(Record, frozen=True, slots=True):
    rank: Rank
    reason: str = ""
    contexts: tuple[str, ...] = ()
    system_messages: tuple[str, ...] = ()
    downgraded: tuple[str, ...] = ()
    rewrites: tuple[Rewrite, ...] = ()
    ignored_failures: tuple[str, ...] = ()
    stop_reason: str | None = None


class SubhookRecord(Record):
    """How one configured sub-hook of the event went, for the report and the audit: whether it
    matched, how its process ran, what it said and how the fold counted it."""

    hook: HookSpec
    matched: bool
    run: HookRun | None = None
    verdict: str = ""  # the kind the hook answered (deny, ask, ...), before the fold
    reason: str = ""
    action: str = ""

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "name": self.hook.name,
            "where": self.hook.where,
            "matched": self.matched,
        }
        if self.run is not None:
            record.update(
                duration_ms=round(self.run.duration_ms, 1),
                exit_code=self.run.exit_code,
                error=self.run.error,
            )
        if self.matched:
            record.update(verdict=self.verdict, reason=self.reason, action=self.action)
        return record


def rank_of(judged: Judged) -> Rank:
    kind = judged.verdict.kind
    if kind in ("deny", "block"):
        return "deny"
    if kind == "failure":
        return "none" if judged.hook.on_failure == "ignore" else "deny"
    if kind in ("ask", "defer"):
        return "ask"
    return "none"


def reason_of(judged: Judged) -> str:
    verdict = judged.verdict
    if verdict.kind == "failure":
        return f"[{judged.hook.name}] failed: {verdict.reason}"
    why = verdict.reason or f"{verdict.kind} without a reason"
    return f"[{judged.hook.name}] {why}"


def input_diff(original: Mapping[str, Any], proposed: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level keys a rewrite would change: {key: {"from": old, "to": new}}."""
    keys = sorted(set(original) | set(proposed))
    return {
        key: {"from": original.get(key), "to": proposed.get(key)}
        for key in keys
        if original.get(key) != proposed.get(key)
    }


def _joined(parts: Sequence[str]) -> str:
    text = "\n\n".join(parts)
    return text if len(text) <= CONTEXT_LIMIT else text[: CONTEXT_LIMIT - 1] + "…"


def fold(judged: Sequence[Judged], tool_input: Mapping[str, Any]) -> Folded:
    rank: Rank = "none"
    for item in judged:
        candidate = rank_of(item)
        if _STRICTNESS[candidate] > _STRICTNESS[rank]:
            rank = candidate
    reasons = sorted(
        {reason_of(item) for item in judged if rank != "none" and rank_of(item) == rank}
    )
    in_config_order = sorted(judged, key=lambda item: item.hook.order)
    contexts = tuple(item.verdict.context for item in in_config_order if item.verdict.context)
    messages = [
        item.verdict.system_message for item in in_config_order if item.verdict.system_message
    ]
    ignored = tuple(
        item.hook.name
        for item in in_config_order
        if item.verdict.kind == "failure" and item.hook.on_failure == "ignore"
    )
    messages += [
        f"ccbridge: {reason_of(item)} (ignored: onFailure is 'ignore')"
        for item in in_config_order
        if item.verdict.kind == "failure" and item.hook.on_failure == "ignore"
    ]
    stops = sorted({item.verdict.stop_reason for item in judged if item.verdict.stop_reason})
    return Folded(
        rank=rank,
        reason="\n\n".join(reasons),
        contexts=(_joined(contexts),) if contexts else (),
        system_messages=(_joined(messages),) if messages else (),
        downgraded=tuple(
            item.hook.name for item in in_config_order if item.verdict.kind == "allow"
        ),
        rewrites=tuple(
            Rewrite(item.hook.name, input_diff(tool_input, item.verdict.updated_input))
            for item in in_config_order
            if item.verdict.updated_input is not None
        ),
        ignored_failures=ignored,
        stop_reason="\n\n".join(stops) if stops else None,
    )
