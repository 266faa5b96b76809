"""Claude Code wiring: what the ccbridge hook engine calls for the goal on each hook event.

The engine hands over the parsed hook input as a mapping and the goal settings.

- UserPromptSubmit fires for a person's prompt and also for prompts Claude Code submits by
  itself (a background task's notice, a scheduled wake-up, ...), which the event does not tell
  apart: `on_user_prompt` records a turn start for the prompt (its prompt_id and text digest),
  and a goal command is granted a person's authority only when Claude Code's transcript shows
  that prompt as typed (`typed.py`). An event that says it is no person's is a delivery.
- Stop: `on_stop` admits the next round when the session's goal is active, armed in this Claude
  Code process and has rounds left, and returns the answer `{"decision": "block", "reason":
  <continuation>}`; Claude Code then keeps working with the reason as a meta user message.
  Otherwise the turn ends (at the cap, the goal is first blocked with reason `round-limit` and
  the user is told in a systemMessage).
- PreToolUse: `on_pre_tool_use` judges `ccbridge goal create|update` Bash commands against the
  session's turn window and keeps an authorized change pending, bound to the session, the
  tool_use_id and the exact command. The command itself, when it runs, only prints the
  outcome recorded here.
- PostToolUse / PostToolUseFailure of that same call: `on_post_tool_use` applies the pending
  change once (compare-and-set on the revision) and tells the model the result as context. A
  call that Claude Code never ran (a permission rule, the user's "no", another hook's deny)
  sends no such event, so its change is never applied; it expires with its turn.
- Every one of these refuses when this process descends from Claude Code's Bash tool or carries
  the marks of its sandbox (`provenance.py`). That is a tripwire; the boundary is the sandbox
  `ccbridge install` sets up, inside which the state directory cannot be written at all.

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
from bridge.goal.invocation import starts_with_goal
from bridge.goal.keeper import GoalKeeper, RoundLimit
from bridge.goal.request import GET, parse_goal_command
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore
from bridge.goal.typed import PromptRef, digest, judge_transcript, not_a_person

__all__ = [
    "GoalSettings",
    "deny_reason",
    "on_post_tool_use",
    "on_pre_tool_use",
    "on_stop",
    "on_user_prompt",
]


def _session_id(event: Mapping[str, Any]) -> str:
    value = event.get("session_id")
    if not isinstance(value, str) or not value:
        raise GoalError(Code.INVALID_REQUEST, "the hook event names no session_id")
    return value


def _agent_id(event: Mapping[str, Any]) -> str | None:
    value = event.get("agent_id")
    return value if isinstance(value, str) and value else None


@contextmanager
def _keeper(settings: GoalSettings) -> Iterator[GoalKeeper]:
    with GoalStore.open(settings.db_path) as store:
        yield GoalKeeper(store, settings)


def deny_reason(error: Mapping[str, Any]) -> str:
    return json.dumps({"goal_error": dict(error)}, ensure_ascii=False)


def _check_provenance(settings: GoalSettings) -> None:
    refusal = settings.provenance()
    if refusal is not None:
        raise GoalError(Code.NOT_HOST, f"not recorded: {refusal}")


def prompt_of(event: Mapping[str, Any]) -> PromptRef | None:
    """The prompt a UserPromptSubmit event submits, or None when it shows itself a delivery
    or cannot be found again (no prompt_id, no text)."""
    prompt_id, text = event.get("prompt_id"), event.get("prompt")
    if not_a_person(event) is not None or not isinstance(text, str):
        return None
    if not isinstance(prompt_id, str) or not prompt_id:
        return None
    return PromptRef(prompt_id, digest(text))


def on_user_prompt(event: Mapping[str, Any], settings: GoalSettings) -> None:
    if not settings.enabled or _agent_id(event) is not None:
        return
    session_id = _session_id(event)
    _check_provenance(settings)
    with _keeper(settings) as keeper:
        keeper.prompt_turn(session_id, prompt_of(event))


def on_stop(event: Mapping[str, Any], settings: GoalSettings) -> dict[str, Any] | None:
    # A subagent's stop does not end the root's turn (Claude Code sends SubagentStop anyway).
    if not settings.enabled or _agent_id(event) is not None:
        return None
    session_id = _session_id(event)
    _check_provenance(settings)
    with _keeper(settings) as keeper:
        outcome = keeper.stop(session_id)
    if outcome is None:
        return None
    if isinstance(outcome, RoundLimit):
        return {"systemMessage": outcome.message}
    return {"decision": "block", "reason": outcome.message}


def _bash_command(event: Mapping[str, Any]) -> str | None:
    """The command of a Bash call that starts with a goal invocation, else None (cheap)."""
    if event.get("tool_name") != "Bash":
        return None
    tool_input = event.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    return command if isinstance(command, str) and starts_with_goal(command) else None


def _tool_use_id(event: Mapping[str, Any]) -> str:
    value = event.get("tool_use_id")
    return value if isinstance(value, str) else ""


def on_pre_tool_use(event: Mapping[str, Any], settings: GoalSettings) -> str | None:
    """A deny reason for a goal command that may not or could not run; None to let it through.

    An authorized change is only judged here; `on_post_tool_use` applies it once the call ran.
    """
    command = _bash_command(event) if settings.enabled else None
    if command is None:
        return None
    try:
        request = parse_goal_command(command)
        if request is None or request == GET:
            return None
        session_id = _session_id(event)
        _check_provenance(settings)
        with _keeper(settings) as keeper:
            outcome = keeper.judge(
                session_id,
                request,
                agent_id=_agent_id(event),
                tool_use_id=_tool_use_id(event),
                command=command,
                typed=lambda prompt: judge_transcript(event.get("transcript_path"), prompt),
            )
    except GoalError as error:
        return deny_reason(error.to_dict())
    return None if outcome["ok"] else deny_reason(outcome["error"])


def on_post_tool_use(event: Mapping[str, Any], settings: GoalSettings) -> str | None:
    """PostToolUse / PostToolUseFailure: Claude Code ran the call, so the change judged for it
    is applied now. Returns the context that tells the model the goal's resulting state, or
    None when no change waited for this call. Raises GoalError when the store fails or this
    process is not a hook of Claude Code's."""
    command = _bash_command(event) if settings.enabled else None
    try:
        request = None if command is None else parse_goal_command(command)
    except GoalError:
        return None  # refused at PreToolUse: nothing was judged for it
    if command is None or request is None or request == GET:
        return None
    session_id = _session_id(event)
    _check_provenance(settings)
    with _keeper(settings) as keeper:
        outcome = keeper.commit(session_id, _tool_use_id(event), command)
    if outcome is None:
        return None
    verdict = "applied" if outcome["ok"] else "NOT applied"
    return f"ccbridge goal: the change is {verdict}. " + json.dumps(outcome, ensure_ascii=False)
