"""`ccbridge explain`: why an event gets the answer it gets."""

from __future__ import annotations

import json
import os
import sys

import click

from bridge.cli.output import say


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
    whether it matched, its duration, exit code and raw verdict, and what ccbridge did
    with it (downgraded, rewrite recorded, failure turned into deny); then each guard and
    listener; then the answer exactly as `ccbridge run` would print it.

    \b
    Example:
      echo '{"hook_event_name":"PreToolUse","tool_name":"Bash",
             "tool_input":{"command":"rm -rf /"},"session_id":"s","cwd":"."}' \\
        | ccbridge explain
    """
    from bridge.commands.explain import render, trace
    from bridge.config.cache import Cache, Surroundings, load
    from bridge.engine import Host, handle
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
        report = handle(event, loaded, Host(env=env))
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
