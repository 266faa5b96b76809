"""The trace `ccbridge explain` prints: what every sub-hook, guard and listener said about one
event, what ccbridge made of it, and the answer exactly as `ccbridge run` prints it.

`trace` builds plain JSON-ready data from the engine's Report; `render` turns that same data
into styled text, so the two outputs can never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bridge.engine import Report
from bridge.subhooks.fold import SubhookRecord
from bridge.wire.answer import Answer
from bridge.wire.event import HookEvent


def _subhook(record: SubhookRecord) -> dict[str, Any]:
    """The audit's view of a sub-hook, with every key present and the matcher shown."""
    blank = dict.fromkeys(("duration_ms", "exit_code", "error", "verdict", "reason", "action"))
    hook = record.hook
    return {**blank, "matcher": hook.matcher, "if": hook.if_rule, **record.to_json()}


def _subhooks(records: Sequence[SubhookRecord]) -> list[dict[str, Any]]:
    """Each sub-hook; a copy of a handler that ran says which one stood for it."""
    items = []
    for record in records:
        item = _subhook(record)
        twin = None
        if not record.matched:
            twin = next(
                (r for r in records if r.matched and r.hook.identity == record.hook.identity),
                None,
            )
        item["same_as"] = f"{twin.hook.name} ({twin.hook.where})" if twin else None
        items.append(item)
    return items


def answer_json(answer: Answer) -> dict[str, Any]:
    return {
        "stdout": answer.stdout.decode(),
        "exit_code": answer.exit_code,
        "stderr": answer.stderr,
    }


def trace(
    event: HookEvent,
    report: Report | None,
    answer: Answer,
    files: Sequence[str],
    chosen_by: str,
    error: str | None = None,
    missing: Sequence[str] = (),
) -> dict[str, Any]:
    """Everything explain knows, as JSON-ready data. `report` is None when the engine failed
    (`error` says how) and `answer` is then the fail-closed answer `run` would give."""
    folded = report.folded if report is not None else None
    return {
        "event": {
            "name": event.name,
            "tool": event.tool_name or None,
            "session": event.session_id or None,
            "tool_use_id": event.tool_use_id or None,
        },
        "config": {
            "files": list(files),
            "chosen_by": chosen_by,
            "error": report.config.error if report is not None else None,
        },
        "protection": {
            "level": report.config.protection if report is not None else "tripwire",
            "missing": list(missing),
        },
        "subhooks": _subhooks(report.subhooks) if report else [],
        "steps": [
            {
                "station": step.station,
                "name": step.name,
                "outcome": step.outcome,
                "detail": step.detail,
            }
            for step in report.steps
        ]
        if report
        else [],
        "folded": None
        if folded is None
        else {
            "rank": folded.rank,
            "reason": folded.reason,
            "downgraded": list(folded.downgraded),
            "rewrites": [{"hook": r.hook, "diff": dict(r.diff)} for r in folded.rewrites],
            "ignored_failures": list(folded.ignored_failures),
        },
        "notes": list(report.notes) if report else [],
        "error": error,
        "answer": answer_json(answer),
    }
