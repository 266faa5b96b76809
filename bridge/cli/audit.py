"""`ccbridge audit`: read the audit log: filter it, sum it up, find the gate's gaps."""

from __future__ import annotations

import json
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click

from bridge.cli.output import dim, project_of, say

_RELATIVE = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
POST_EVENTS = ("PostToolUse", "PostToolUseFailure")
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
            per_hook[name][str(item.get("raw") or "none")] += 1
            if item.get("raw") == "failure":
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


def _table(title: str, rows: Mapping[str, Mapping[str, int]]) -> list[str]:
    columns = sorted(
        {column for counts in rows.values() for column in counts},
        key=lambda c: (DECISIONS.index(c) if c in DECISIONS else 9, c),
    )
    width = max([len(title), *(len(name) for name in rows)])
    lines = [click.style(f"{title:<{width}}  " + "  ".join(f"{c:>7}" for c in columns), bold=True)]
    for name, counts in rows.items():
        lines.append(f"{name:<{width}}  " + "  ".join(f"{counts.get(c, 0):>7}" for c in columns))
    return lines


def render_summary(data: Mapping[str, Any]) -> list[str]:
    lines = [f"{data['records']} record(s)", ""]
    lines += [*_table("tool", data["per_tool"]), ""]
    if data["per_subhook"]:
        lines += [*_table("sub-hook", data["per_subhook"]), ""]
    lines.append(click.style(f"failures: {len(data['failures'])}", bold=True))
    lines += [f"  {item['ts']}  {item['what']}: {item['reason']}" for item in data["failures"]]
    if data["slowest"]:
        lines += ["", click.style("slowest sub-hooks", bold=True)]
        lines += [
            f"  {item['duration_ms']:>9.1f} ms  {item['name']}  {dim(str(item['where']))}"
            for item in data["slowest"]
        ]
    return lines


def render_record(record: Mapping[str, Any]) -> str:
    decision = decision_of(record)
    colour = {"deny": "red", "block": "red", "ask": "yellow"}.get(decision)
    final = record.get("final")
    final = final if isinstance(final, dict) else {}
    reason = str(final.get("reason") or record.get("error") or "").replace("\n", " ")
    parts = [
        str(record.get("ts")),
        str(record.get("event")),
        str(record.get("tool") or "-"),
        click.style(f"{decision:<5}", fg=colour),
        reason[:160],
        dim(f"session {record.get('session')}"),
    ]
    return "  ".join(part for part in parts if part)


def log_location(file: str | None, env: Mapping[str, str]) -> tuple[Path, int]:
    """The log to read and how many rotated generations to read with it."""
    if file:
        return Path(file), 0
    from bridge.config.compiled import load
    from bridge.paths import find_config, state_dir, wide_layers

    paths, _how = find_config(None, env, project_of(env))
    audit = load(paths, None, wide_layers(paths, env, None)).audit
    return Path(audit.path or Path(state_dir(env)) / "audit.jsonl"), audit.keep


@click.command()
@click.option("--session", help="Only this session id.")
@click.option("--tool", help="Only this tool name (e.g. Bash).")
@click.option("--decision", type=click.Choice(DECISIONS), help="Only this final decision.")
@click.option("--since", help="Not before: ISO time (UTC by default) or an age: 30m, 2h, 1d.")
@click.option("--until", help="Not after: ISO time or an age.")
@click.option(
    "--summary",
    "as_summary",
    is_flag=True,
    help="Decisions per tool and per sub-hook, failures, slowest sub-hooks.",
)
@click.option(
    "--gaps",
    "as_gaps",
    is_flag=True,
    help="Tool calls with a PostToolUse record but no PreToolUse record; exits 1 "
    "when there is one.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option(
    "--file",
    "file",
    type=click.Path(dir_okay=False),
    help="Read this log instead of the configured one (rotated files not included).",
)
def audit(
    session: str | None,
    tool: str | None,
    decision: str | None,
    since: str | None,
    until: str | None,
    as_summary: bool,
    as_gaps: bool,
    as_json: bool,
    file: str | None,
) -> None:
    """Read ccbridge's audit log (oldest first), filtered.

    The log is audit.path from the config, else $CCBRIDGE_STATE_DIR/audit.jsonl (default
    ~/.local/state/ccbridge/audit.jsonl), with its rotated generations. Filters apply to
    --summary and --gaps too; a tool call whose PreToolUse lies before --since shows as a gap.

    \b
    Examples:
      ccbridge audit --decision deny --since 2h
      ccbridge audit --summary --session 9a58c2
      ccbridge audit --gaps --json
    """
    from bridge.audit.log import read

    if as_summary and as_gaps:
        raise click.UsageError("choose one of --summary and --gaps")
    env = os.environ
    now = datetime.now(UTC)
    try:
        start = parse_when(since, now) if since else None
        end = parse_when(until, now) if until else None
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    path, keep = log_location(file, env)
    if file and not path.is_file():
        raise click.ClickException(f"{file}: no such file")
    log = read(path, keep)
    records = list(selected(log, session, tool, decision, start, end))
    if log.skipped:  # torn by a killed writer, or not ccbridge's: said, never silently lost
        rotated = f" and its {keep} rotated generation(s)" if keep else ""
        say(f"skipped {log.skipped} corrupt line(s) in {path}{rotated}", err=True)
    if as_gaps:
        found = gaps(records)
        if as_json:
            say(json.dumps(found, indent=2))
        else:
            say(f"{len(found)} tool call(s) without a PreToolUse verdict in {path}")
            for item in found:
                say(
                    f"  {item['ts']}  {item['tool']}  {item['tool_use_id']}  "
                    f"{dim('session ' + str(item['session']))}"
                )
        if found:
            raise SystemExit(1)
        return
    if as_summary:
        data = summary(records)
        say(json.dumps(data, indent=2) if as_json else "\n".join(render_summary(data)))
        return
    for record in records:
        say(json.dumps(record, ensure_ascii=False) if as_json else render_record(record))
    if not records and not as_json:
        say(dim(f"no matching records in {path}"), err=True)
