"""Claude Code wiring: what the ccbridge hook engine calls for the goal on each hook event.

The engine hands over the parsed hook input as a mapping and the goal settings.

- UserPromptSubmit fires only for a human's prompt: `on_user_prompt` records a human turn start.
- Stop: `on_stop` admits the next round when the session's goal is active, armed in this Claude
  Code process and has rounds left, and returns the answer `{"decision": "block", "reason":
  <continuation>}`; Claude Code then keeps working with the reason as a meta user message.
  Otherwise the turn ends (at the cap, the goal is first blocked with reason `round-limit`).
- PreToolUse: `on_pre_tool_use` judges `ccbridge goal create|update` Bash commands against the
  session's turn window and applies an authorized change right here, on the host side. The
  command itself, when it then runs, only prints the outcome recorded here.

Claude Code's own cap on consecutive Stop blocks: Claude Code sets `stop_hook_active: true` on
a Stop that follows a Stop-hook block, and after 8 consecutive blocks (or
`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`) it ignores further blocks and ends the turn. The goal does
not use `stop_hook_active` (its own round counter and cap decide), but it counts the rounds it
admitted since the latest human prompt and stops blocking once they reach that cap
(`GoalSettings.stop_block_cap`, read from the same variable, which hooks inherit from Claude
Code), so it never admits a round that Claude Code would drop. The goal stays active and armed:
the next human prompt carries on with the next round. To let a goal run more rounds per prompt,
start Claude Code with `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` at least the goal's max rounds. Other
Stop hooks that block count towards Claude Code's cap but not ours.

Errors: `on_pre_tool_use` never raises for a goal command; every failure becomes a deny reason
(JSON text with `code` and `message`). `on_user_prompt` and `on_stop` raise GoalError when the
store fails; the engine should audit it and give no Stop block (the safe direction).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bridge.goal.errors import Code, GoalError
from bridge.goal.host import GoalHost
from bridge.goal.request import GET, parse_goal_command
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore

__all__ = ["GoalSettings", "deny_reason", "on_pre_tool_use", "on_stop", "on_user_prompt"]


def _session_id(event: Mapping[str, Any]) -> str:
    value = event.get("session_id")
    if not isinstance(value, str) or not value:
        raise GoalError(Code.INVALID_REQUEST, "the hook event names no session_id")
    return value


def _agent_id(event: Mapping[str, Any]) -> str | None:
    value = event.get("agent_id")
    return value if isinstance(value, str) and value else None


@contextmanager
def _host(settings: GoalSettings) -> Iterator[GoalHost]:
    with GoalStore.open(settings.db_path) as store:
        yield GoalHost(store, settings)


def deny_reason(error: Mapping[str, Any]) -> str:
    return json.dumps({"goal_error": dict(error)}, ensure_ascii=False)


def on_user_prompt(event: Mapping[str, Any], settings: GoalSettings) -> None:
    if not settings.enabled or _agent_id(event) is not None:
        return
    session_id = _session_id(event)
    with _host(settings) as host:
        host.human_turn(session_id)


def on_stop(event: Mapping[str, Any], settings: GoalSettings) -> dict[str, Any] | None:
    # A subagent's stop does not end the root's turn (Claude Code sends SubagentStop anyway).
    if not settings.enabled or _agent_id(event) is not None:
        return None
    session_id = _session_id(event)
    with _host(settings) as host:
        continuation = host.stop(session_id)
    if continuation is None:
        return None
    return {"decision": "block", "reason": continuation.message}


def on_pre_tool_use(event: Mapping[str, Any], settings: GoalSettings) -> str | None:
    """A deny reason for a goal command that may not or could not run; None to let it through."""
    if not settings.enabled or event.get("tool_name") != "Bash":
        return None
    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if not isinstance(command, str):
        return None
    try:
        request = parse_goal_command(command)
        if request is None or request == GET:
            return None
        session_id = _session_id(event)
        tool_use_id = event.get("tool_use_id")
        with _host(settings) as host:
            outcome = host.request(
                session_id,
                request,
                agent_id=_agent_id(event),
                tool_use_id=tool_use_id if isinstance(tool_use_id, str) else "",
            )
    except GoalError as error:
        return deny_reason(error.to_dict())
    return None if outcome["ok"] else deny_reason(outcome["error"])
