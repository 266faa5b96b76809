"""The work of `ccbridge audit`: select records of the audit log, sum them up, find the gate's
gaps (tool calls with a PostToolUse record and no PreToolUse verdict)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bridge.audit.log import subhook_verdict
from bridge.wire.event import POST_EVENTS

_RELATIVE = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
DECISIONS = ("deny", "ask", "block", "none")


def parse_when(text: str, now: datetime) -> datetime:
    """An ISO 8601 time (UTC unless it says otherwise) or an age such as 30m, 2h, 1d."""
    relative = _RELATIVE.fullmatch(text.strip())
    if relative:
        return now - timedelta(**{_UNITS[relative.group(2)]: int(relative.group(1))})
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is neither an ISO time (2026-11-29T18:00) nor an age (30m, 2h, 1d)"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def record_time(record: Mapping[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(str(record.get("ts")).replace("Z", "+00:00"))
    except ValueError:
        return None


def decision_of(record: Mapping[str, Any]) -> str:
    final = record.get("final")
    return str(final.get("decision", "none")) if isinstance(final, dict) else "none"


def selected(
    records: Iterable[dict[str, Any]],
    session: str | None,
    tool: str | None,
    decision: str | None,
    since: datetime | None,
    until: datetime | None,
) -> Iterable[dict[str, Any]]:
    for record in records:
        if session is not None and record.get("session") != session:
            continue
        if tool is not None and record.get("tool") != tool:
            continue
        if decision is not None and decision_of(record) != decision:
            continue
        when = record_time(record)
        if (since or until) and when is None:
            continue
        if since is not None and when is not None and when < since:
            continue
        if until is not None and when is not None and when > until:
            continue
        yield record


def subhooks_of(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    items = record.get("subhooks")
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def summary(records: Sequence[Mapping[str, Any]], slowest: int = 10) -> dict[str, Any]:
    per_tool: dict[str, Counter[str]] = defaultdict(Counter)
    per_hook: dict[str, Counter[str]] = defaultdict(Counter)
    failures: list[dict[str, Any]] = []
    timings: list[dict[str, Any]] = []
    for record in records:
        per_tool[str(record.get("tool") or record.get("event"))][decision_of(record)] += 1
        if record.get("error"):
            failures.append({"ts": record.get("ts"), "what": "ccbridge", "reason": record["error"]})
        for item in subhooks_of(record):
            name = str(item.get("name"))
            verdict = subhook_verdict(item)
            per_hook[name][verdict] += 1
            if verdict == "failure":
                failures.append(
                    {
                        "ts": record.get("ts"),
                        "what": name,
                        "reason": item.get("reason") or item.get("error"),
                    }
                )
            if isinstance(item.get("duration_ms"), int | float):
                timings.append(
                    {
                        "name": name,
                        "where": item.get("where"),
                        "duration_ms": item["duration_ms"],
                        "ts": record.get("ts"),
                    }
                )
    timings.sort(key=lambda item: -item["duration_ms"])
    return {
        "records": len(records),
        "per_tool": {tool: dict(counts) for tool, counts in sorted(per_tool.items())},
        "per_subhook": {name: dict(counts) for name, counts in sorted(per_hook.items())},
        "failures": failures,
        "slowest": timings[:slowest],
    }


def gaps(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls with a PostToolUse (or PostToolUseFailure) record and no PreToolUse record:
    the gate never ran for them."""
    gated: set[str] = set()
    after: dict[str, Mapping[str, Any]] = {}
    for record in records:
        key = record.get("tool_use_id")
        if not isinstance(key, str) or not key:
            continue
        if record.get("event") == "PreToolUse":
            gated.add(key)
        elif record.get("event") in POST_EVENTS:
            after.setdefault(key, record)
    return [
        {
            "tool_use_id": key,
            "tool": record.get("tool"),
            "session": record.get("session"),
            "event": record.get("event"),
            "ts": record.get("ts"),
        }
        for key, record in after.items()
        if key not in gated
    ]


def log_location(file: str | None, env: Mapping[str, str], project: Path) -> tuple[Path, int]:
    """The log to read and how many rotated generations to read with it."""
    if file:
        return Path(file), 0
    from bridge.config.cache import load
    from bridge.paths import find_config, state_dir, wide_layers

    paths, _how = find_config(None, env, project)
    audit = load(paths, None, wide=wide_layers(paths, env, None)).audit
    return Path(audit.path or Path(state_dir(env)) / "audit.jsonl"), audit.keep
