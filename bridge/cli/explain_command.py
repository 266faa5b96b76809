"""`ccbridge explain`: why an event gets the answer it gets."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

import click

from bridge.cli.output import dim, say


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the trace as one JSON object.")
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="Use this config file instead of the layered lookup (as `run --config`).",
)
def explain(as_json: bool, config: str | None) -> None:
    """Run one hook event from stdin and show why it gets its answer.

    Every sub-hook runs for real, as under `ccbridge run`, but no audit record is
    written. The trace shows each sub-hook with where it was configured (file:line),
    whether it matched, its duration, exit code and own verdict, and what ccbridge did
    with it (downgraded, rewrite recorded, failure turned into deny); then each guard and
    listener; then the answer exactly as `ccbridge run` would print it.

    \b
    Example:
      echo '{"hook_event_name":"PreToolUse","tool_name":"Bash",
             "tool_input":{"command":"rm -rf /"},"session_id":"s","cwd":"."}' \\
        | ccbridge explain
    """
    from bridge.commands.explain import trace
    from bridge.config.cache import Cache, Surroundings, load
    from bridge.engine import Machine, handle
    from bridge.hookcall import failure_answer, hint_on_terminal
    from bridge.paths import find_config, project_dir, wide_layers
    from bridge.wire.event import EventError, read_event

    env = os.environ
    hint_on_terminal(sys.stdin.buffer, sys.stderr, "explain")
    try:
        event = read_event(sys.stdin.buffer)
    except EventError as problem:
        raise click.ClickException(f"{problem} (`ccbridge run` would deny this)") from None
    project = project_dir(env, event.cwd)
    paths, how = find_config(config, env, project)
    report, error = None, None
    try:
        around = Surroundings(env, project)
        wide = wide_layers(paths, env, config)
        loaded = load(paths, Cache.of(env), around, wide=wide)
        report = handle(event, loaded, Machine(env=env))
        answer = report.answer
    except Exception as problem:  # show what `run` would do with our own failure
        error = f"{type(problem).__name__}: {problem}"
        answer = failure_answer(event.name, f"ccbridge internal error: {error}")
    from bridge import wall

    compiled = report.config if report is not None else None
    hooks = compiled.hooks if compiled is not None else {}
    audit = compiled.audit.path if compiled is not None else None
    _level, missing = wall.judge(env, project, hooks, audit)
    data = trace(event, report, answer, [str(path) for path in paths], how, error, missing)
    if as_json:
        say(json.dumps(data, indent=2, ensure_ascii=False))
        return
    for line in render(data):
        say(line)


_OUTCOME_COLOURS = {
    "deny": "red",
    "block": "red",
    "error": "red",
    "failure": "red",
    "ask": "yellow",
    "defer": "yellow",
    "allow": "cyan",
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
        f"  {_word(item['verdict']):>4}  {item['name']}",
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
    lines.append(answer["stdout"].rstrip("\n") or dim("(no output)"))
    if answer["stderr"]:
        lines.append(dim(f"stderr: {answer['stderr']}"))
    return lines
