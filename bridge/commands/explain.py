"""The trace `ccbridge explain` prints: what every sub-hook, guard and listener said about one
event, what ccbridge made of it, and the answer exactly as `ccbridge run` prints it.

`trace` builds plain JSON-ready data from the engine's Report; `render` turns that same data
into styled text, so the two outputs can never disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import click

from bridge.engine import Report
from bridge.subhooks.fold import SubhookRecord
from bridge.wire.answer import Answer
from bridge.wire.event import HookEvent

_OUTCOME_COLOURS = {
    "deny": "red",
    "block": "red",
    "error": "red",
    "failure": "red",
    "ask": "yellow",
    "defer": "yellow",
    "allow": "cyan",
}


def _subhook(record: SubhookRecord) -> dict[str, Any]:
    """The audit's view of a sub-hook, with every key present and the matcher shown."""
    blank = dict.fromkeys(("duration_ms", "exit_code", "error", "raw", "reason", "action"))
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


def _word(outcome: str | None) -> str:
    text = outcome or "-"
    return click.style(text, fg=_OUTCOME_COLOURS.get(text), bold=text in ("deny", "block"))


def _heading(text: str) -> str:
    return click.style(text, bold=True)


def _subhook_lines(item: Mapping[str, Any]) -> list[str]:
    where = click.style(item["where"], dim=True)
    if not item["matched"] and item.get("same_as"):
        return [
            f"  {click.style('skip', dim=True)}  {item['name']}  same handler as "
            f"{item['same_as']}, which runs once for both",
            f"        {where}",
        ]
    if not item["matched"]:
        why = f"matcher {item['matcher']!r}" if item["matcher"] else "its `if` rule"
        return [
            f"  {click.style('skip', dim=True)}  {item['name']}  not matched ({why})",
            f"        {where}",
        ]
    ran = f"exit {item['exit_code']}" if item["error"] is None else item["error"]
    lines = [
        f"  {_word(item['raw']):>4}  {item['name']}",
        f"        {where}",
        f"        {ran}, {item['duration_ms']} ms",
    ]
    if item["reason"]:
        said = str(item["reason"]).replace("\n", "\n" + " " * 14)
        lines.append(f"        said: {said}")
    lines.append(f"        ccbridge: {item['action']}")
    return lines


def render(data: Mapping[str, Any]) -> list[str]:
    event, config = data["event"], data["config"]
    head = [event["name"], event["tool"] or ""]
    head += [f"session {event['session']}"] if event["session"] else []
    head += [f"tool_use_id {event['tool_use_id']}"] if event["tool_use_id"] else []
    files = ", ".join(config["files"]) or "none (built-in defaults)"
    lines = [
        _heading("  ".join(part for part in head if part)),
        f"config: {files} (chosen by {config['chosen_by']})",
    ]
    if config["error"]:
        lines.append(click.style(f"config error: {config['error']}", fg="red"))
    protection = data["protection"]
    if protection["level"] == "wall":
        lines.append(
            "protection: wall (Claude Code's sandbox keeps the agent from ccbridge's files)"
        )
    else:
        lines.append(
            click.style("protection: tripwire", fg="yellow")
            + " (text judgement only: the agent can get past it; `ccbridge doctor` says how "
            "to put up the wall)"
        )
        lines += [f"  missing: {gap}" for gap in protection["missing"][:8]]
        if len(protection["missing"]) > 8:
            lines.append(f"  ... and {len(protection['missing']) - 8} more")
    subhooks = data["subhooks"]
    matched = sum(1 for item in subhooks if item["matched"])
    lines += [
        "",
        _heading(f"sub-hooks: {len(subhooks)} configured for this event, {matched} matched"),
    ]
    for item in subhooks:
        lines += _subhook_lines(item)
    if data["steps"]:
        lines += ["", _heading("guards and listeners")]
        for step in data["steps"]:
            # a reason of several lines stays under its column, not at the left margin
            detail = f"  {step['detail']}" if step["detail"] else ""
            detail = detail.replace("\n", "\n" + " " * 50)
            lines.append(
                f"  {step['station']:<12} {step['name']:<28} {_word(step['outcome'])}{detail}"
            )
    folded = data["folded"]
    if folded and folded["rewrites"]:
        lines += ["", _heading("rewrites recorded, not applied")]
        lines += [
            f"  {rewrite['hook']}: {json.dumps(rewrite['diff'], ensure_ascii=False)}"
            for rewrite in folded["rewrites"]
        ]
    if data["notes"] or data["error"]:
        lines += ["", _heading("notes")]
        lines += [f"  {note}" for note in data["notes"]]
        if data["error"]:
            lines.append(click.style(f"  ccbridge internal error: {data['error']}", fg="red"))
    answer = data["answer"]
    lines += ["", _heading(f"answer (exit {answer['exit_code']}), as `ccbridge run` prints it:")]
    lines.append(answer["stdout"].rstrip("\n") or dim_text("(no output)"))
    if answer["stderr"]:
        lines.append(dim_text(f"stderr: {answer['stderr']}"))
    return lines


def dim_text(text: str) -> str:
    return click.style(text, dim=True)
