"""`ccbridge audit`: read the audit log: filter it, sum it up, find the gate's gaps."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from bridge.cli.output import dim, project_of, say
from bridge.commands.audit_query import (
    DECISIONS,
    decision_of,
    gaps,
    log_location,
    parse_when,
    selected,
    summary,
)


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


def unsent(env: Mapping[str, str]) -> None:
    """Configured events Claude Code never sends: no record of them can be in the log."""
    from bridge.commands.doctor import never_sent, never_sent_message
    from bridge.commands.mods import managed_files
    from bridge.paths import find_config, settings_files

    project = project_of(env)
    files = [Path(file) for file in settings_files(env, project)] + managed_files(env)
    paths = [Path(path) for path in find_config(None, env, project)[0]]
    try:
        found = never_sent(files, paths)
    except Exception:  # a broken config: `ccbridge check` says what is wrong
        return
    for event, where in found.items():
        say(f"not in the log, as {never_sent_message(event, where)}")


def _window(since: str | None, until: str | None) -> tuple[datetime | None, datetime | None]:
    now = datetime.now(UTC)
    try:
        return (
            parse_when(since, now) if since else None,
            parse_when(until, now) if until else None,
        )
    except ValueError as error:
        raise click.UsageError(str(error)) from None


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
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "otlp-json"]),
    help="Output format of the records: text, json (one audit record a line, as --json) or "
    "otlp-json (one OTLP/JSON ExportLogsServiceRequest a line, for the OpenTelemetry "
    "Collector's otlpjsonfile receiver; resource from CCBRIDGE_OTEL_HOST, CCBRIDGE_OTEL_USER, "
    "CCBRIDGE_OTEL_ORG, CCBRIDGE_OTEL_RESOURCE_ATTRIBUTES).",
)
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
    fmt: str | None,
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
      ccbridge audit --format otlp-json --since 1h >> /var/spool/ccbridge/otlp.jsonl
    """
    from bridge.audit.log import read

    if as_summary and as_gaps:
        raise click.UsageError("choose one of --summary and --gaps")
    if fmt == "otlp-json" and (as_summary or as_gaps or as_json):
        raise click.UsageError(
            "--format otlp-json exports records: not with --summary, --gaps, --json"
        )
    as_json = as_json or fmt == "json"
    env = os.environ
    start, end = _window(since, until)
    path, keep = log_location(file, env, project_of(env))
    if file and not path.is_file():
        raise click.ClickException(f"{file}: no such file")
    log = read(path, keep)
    records = list(selected(log, session, tool, decision, start, end))
    if log.skipped:  # torn by a killed writer, or not ccbridge's: said, never silently lost
        rotated = f" and its {keep} rotated generation(s)" if keep else ""
        say(f"skipped {log.skipped} corrupt line(s) in {path}{rotated}", err=True)
    if (as_gaps or as_summary) and not as_json:
        unsent(env)
    if as_gaps:
        _print_gaps(records, path, as_json)
    elif as_summary:
        data = summary(records)
        say(json.dumps(data, indent=2) if as_json else "\n".join(render_summary(data)))
    elif fmt == "otlp-json":
        from bridge.audit.otlp import export_line, resource_attributes

        resource = resource_attributes(env)
        for record in records:
            say(export_line(record, resource))
    else:
        for record in records:
            say(json.dumps(record, ensure_ascii=False) if as_json else render_record(record))
        if not records and not as_json:
            say(dim(f"no matching records in {path}"), err=True)


def _print_gaps(records: list[dict[str, Any]], path: Path, as_json: bool) -> None:
    """The tool calls without a PreToolUse verdict; exit 1 when there is one."""
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
