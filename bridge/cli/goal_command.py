"""`ccbridge goal`: the goal commands as the model runs them through Bash.

They never change goal state. `get` reads it; `create` and `update` print the outcome that the
ccbridge PreToolUse hook recorded when it judged and applied this very command on the host side.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import click

from bridge.goal.errors import Code, GoalError
from bridge.goal.model import UPDATE_ACTIONS, Action
from bridge.goal.request import GoalRequest
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"


def _emit(payload: dict[str, Any]) -> NoReturn:
    click.echo(json.dumps(payload, ensure_ascii=False))
    raise SystemExit(0 if payload.get("ok") is True else 1)


def _fail(error: GoalError) -> NoReturn:
    _emit({"ok": False, "error": error.to_dict()})


def _session(explicit: str | None) -> str:
    session_id = explicit or os.environ.get(SESSION_ENV)
    if not session_id:
        _fail(
            GoalError(
                Code.INVALID_REQUEST,
                f"no session: {SESSION_ENV} is not set (Claude Code sets it for its Bash tool)",
            )
        )
    return session_id


def _get(session_id: str) -> dict[str, Any]:
    settings = GoalSettings()
    store = GoalStore.open_readonly(settings.db_path)
    if store is None:
        return {"ok": True, "session_id": session_id, "goal": None, "armed": False}
    with store, store.read() as tx:
        goal = tx.current_goal(session_id)
        armed = tx.is_armed(session_id, settings.identity())
    return {
        "ok": True,
        "session_id": session_id,
        "goal": None if goal is None else goal.to_dict(),
        "armed": armed,
    }


def _list() -> dict[str, Any]:
    """Outside a session (a person at a terminal): every session's goal, to pick one from."""
    store = GoalStore.open_readonly(GoalSettings().db_path)
    goals = {}
    if store is not None:
        with store, store.read() as tx:
            goals = tx.current_goals()
    return {
        "ok": True,
        "session_id": None,
        "note": f"not in a session (no ${SESSION_ENV}): every session's goal; "
        "`ccbridge goal get --session ID` shows one",
        "sessions": [{"session_id": sid, "goal": goal.to_dict()} for sid, goal in goals.items()],
    }


def _recorded_outcome(request: GoalRequest) -> dict[str, Any]:
    session_id = _session(None)
    store = GoalStore.open_readonly(GoalSettings().db_path)
    outcome = None
    if store is not None:
        with store, store.read() as tx:
            outcome = tx.outcome_for(session_id, request.key())
    if outcome is None:
        off = _goals_off(os.environ)
        if off is not None:
            raise GoalError(Code.GOALS_OFF, off)
        raise GoalError(
            Code.NOT_RECORDED,
            "no goal change was recorded for this command in the current turn. Goal changes "
            "are applied by the ccbridge hook when the command runs as one plain Bash command "
            "in a Claude Code session; this command by itself changes nothing. Run "
            "`ccbridge goal get` to see the current goal.",
        )
    return outcome


def _goals_off(env: Mapping[str, str]) -> str | None:
    """Why the hook ignores goal commands here, when the config it runs with has goals off."""
    from bridge.cli.output import project_of
    from bridge.config.build import ConfigError
    from bridge.config.cache import load
    from bridge.paths import find_config, wide_layers

    project = project_of(env)
    try:
        paths, _how = find_config(None, env, project)
        compiled = load(list(paths), None, wide=wide_layers(paths, env, None))
        problem = compiled.error
    except (ConfigError, OSError) as error:
        problem = str(error)
    if problem:  # the hook denies every call then: say so
        return (
            f"the ccbridge config cannot be loaded ({problem}): goals do not run; `ccbridge check`"
        )
    if compiled.goals.enabled:
        return None
    where = ", ".join(paths) if paths else "no ccbridge config file"
    return (
        f"goals are off: `goals.enabled` is not true in the ccbridge config ({where}), so the "
        "ccbridge hook ignores goal commands and this one changed nothing. To switch goals on, "
        f"add `goals: {{enabled: true}}` to {project / '.claude' / 'ccbridge.yaml'} (or to "
        "~/.claude/ccbridge.yaml), then run `ccbridge install` again: it registers the "
        "UserPromptSubmit and Stop events goals need"
    )


def _run(produce: Callable[[], dict[str, Any]]) -> NoReturn:
    try:
        payload = produce()
    except GoalError as error:
        _fail(error)
    _emit(payload)


@click.group(name="goal")
def goal() -> None:
    """Long-running goals. Changes are applied by the ccbridge hook, never by these commands."""


@goal.command("get")
@click.option("--session", "session_id", help=f"Session id (default: ${SESSION_ENV}).")
def get_command(session_id: str | None) -> None:
    """Print the session's current goal as JSON; outside a session, every session's goal."""
    resolved = session_id or os.environ.get(SESSION_ENV)
    _run(lambda: _get(resolved) if resolved else _list())


@goal.command("create")
@click.option("--objective", required=True, help="The goal's one-line objective.")
@click.option("--max-rounds", type=int, help="Cap on automatic continuation rounds.")
def create_command(objective: str, max_rounds: int | None) -> None:
    """Print the outcome of creating a goal (a human must have asked for it in this turn)."""
    request = GoalRequest(Action.CREATE, objective=objective, max_rounds=max_rounds)
    _run(lambda: _recorded_outcome(request))


@goal.command("update")
@click.option("--id", "goal_id", required=True, help="The goal's id.")
@click.option("--revision", type=int, required=True, help="The revision the change expects.")
@click.option(
    "--action", type=click.Choice([action.value for action in UPDATE_ACTIONS]), required=True
)
@click.option("--objective", help="New objective (edit).")
@click.option("--max-rounds", type=int, help="New round cap (edit).")
@click.option("--reason", help="Why the goal is blocked (blocked).")
def update_command(
    goal_id: str,
    revision: int,
    action: str,
    objective: str | None,
    max_rounds: int | None,
    reason: str | None,
) -> None:
    """Print the outcome of a goal update, as judged and applied by the ccbridge hook."""
    request = GoalRequest(Action(action), goal_id, revision, objective, max_rounds, reason)
    _run(lambda: _recorded_outcome(request))


if __name__ == "__main__":
    goal(prog_name="ccbridge goal")
