"""Reading one hook event from stdin, tolerating whatever extra fields Claude Code adds."""

# `_collections_abc`, not `collections.abc`: the hot path, docs/architecture.md.
from _collections_abc import Mapping

from bridge.pipeline.valueclass import Record
from bridge.wire import CC_EVENTS as CC_EVENTS  # shared with bridge.wire.hosts
from bridge.wire import EventError as EventError
from bridge.wire import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterator
    from typing import Any

# A Write of a large file is normal; anything past this is refused, never truncated.
MAX_EVENT_BYTES = 16 * 1024 * 1024
# JSON nested deeper than this is refused: the pipeline and the audit walk it recursively
# and no real tool input comes near it.
MAX_JSON_DEPTH = 200

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})
# The one place saying which events' sub-hooks `ccbridge run` runs, each with the event field
# CC compares a group's matcher with (None: CC ignores matchers there, every group runs). Hooks
# of the other CC events in a ccbridge config would never run, so the config refuses them.
MATCHED_FIELD: "dict[str, str | None]" = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "PermissionRequest": "tool_name",
    "UserPromptSubmit": None,
    "Stop": None,
    "SubagentStop": "agent_type",
    "SubagentStart": "agent_type",
    "SessionStart": "source",
    "SessionEnd": "reason",
    "PreCompact": "trigger",
    "Notification": "notification_type",
    # A skill's or command's inline shell command (!`...`) as it loads: judged as a Bash call.
    "PreSkillShellCommand": "tool_name",
}
SUBHOOK_EVENTS = frozenset(MATCHED_FIELD)
# Why ccbridge does not run the hooks of each other CC event (`ccbridge check` says it to a
# config that has them): Claude Code runs them itself, from its settings.
_UNREAD = "ccbridge has no reading of its hooks' answers, so it cannot judge them"
NOT_RUN: "dict[str, str]" = {
    **dict.fromkeys(CC_EVENTS - SUBHOOK_EVENTS, _UNREAD),
    # 2.1.335's event for a turn that was stopped: who stopped it (`source`), why (`reason`),
    # how (`via`). Claude Code ignores what its hooks answer.
    "Interrupt": "Claude Code ignores what an Interrupt hook answers (the turn has already "
    "stopped), so there is nothing for ccbridge to judge",
}
# Events a hook can stop (a prompt, the end of a turn, a compaction, a permission): there a
# sub-hook that fails blocks, as a PreToolUse failure denies. Elsewhere a failure is told.
BLOCKING_EVENTS = frozenset(
    {
        *("PreToolUse", "PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop"),
        *("PreCompact", "PreSkillShellCommand"),
    }
)
SKILL_SHELL = "PreSkillShellCommand"
POST_EVENTS = ("PostToolUse", "PostToolUseFailure")  # after a tool call, as it went
GOAL_EVENTS = ("UserPromptSubmit", "Stop")  # what a goal is driven by


class HookEvent(Record, frozen=True, slots=True):
    name: str
    raw: "Mapping[str, Any]"  # CC's shape, whichever agent sent it
    data: bytes  # what sub-hooks get on stdin: CC's event
    # The agent that called (bridge.wire.hosts.HOSTS). A class attribute, not a field: every
    # field costs each hook call's event its share of __init__; other agents' events are
    # ForeignEvent.
    host = "claude-code"

    @property
    def session_id(self) -> str:
        return _text(self.raw.get("session_id"))

    @property
    def cwd(self) -> str:
        return _text(self.raw.get("cwd"))

    @property
    def tool_name(self) -> str:
        return _text(self.raw.get("tool_name"))

    @property
    def tool_input(self) -> "Mapping[str, Any]":
        value = self.raw.get("tool_input")
        return value if isinstance(value, Mapping) else {}

    @property
    def tool_use_id(self) -> str:
        return _text(self.raw.get("tool_use_id"))

    @property
    def subject(self) -> "str | None":
        """What CC matches a group's matcher against for this event (a tool name, a session
        start's source …); None where CC ignores matchers."""
        key = MATCHED_FIELD.get(self.name, "tool_name")
        return None if key is None else _text(self.raw.get(key))

    @property
    def agent_id(self) -> "str | None":
        value = self.raw.get("agent_id")
        return value if isinstance(value, str) and value else None


class ForeignEvent(HookEvent, frozen=True, slots=True):
    """An event another agent sent, in CC's shape (bridge.wire.hosts)."""

    host: str = "claude-code"


def _text(value: "Any") -> str:
    return value if isinstance(value, str) else ""


def deeper_than(value: "Any", limit: int) -> bool:
    """Whether JSON data nests arrays/objects more than `limit` levels. Walked depth-first with
    one iterator per open level, so it needs memory for `limit` levels, not for every item."""
    if type(value) is not dict and type(value) is not list:
        return False
    levels: list[Iterator[Any]] = [iter(value.values() if type(value) is dict else value)]
    while levels:
        for child in levels[-1]:
            kind = type(child)
            if kind is dict or kind is list:
                if len(levels) >= limit:
                    return True
                levels.append(iter(child.values() if kind is dict else child))
                break
        else:
            levels.pop()
    return False


def read_event(
    stream: "Any", limit: int = MAX_EVENT_BYTES, host: "str | None" = None
) -> "HookEvent":
    """One JSON object from a binary stream; raises EventError with a clear reason. `host`
    names the agent that calls (`ccbridge run --host`); None: told by the envelope."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise EventError(f"hook event on stdin is larger than the {limit}-byte cap")
    return parse_event(data, host)


def _foreign(raw: "dict[str, Any]") -> bool:
    """Whether the envelope may be another agent's: cheap, so a CC event pays nothing more."""
    name = raw.get("hook_event_name")
    return (
        type(name) is not str
        or name not in CC_EVENTS
        or "conversation_id" in raw
        or "cursor_version" in raw
        or "turn_id" in raw
        or raw.get("tool_name") == "Shell"
    )


def _check_skill_shell(raw: "Mapping[str, Any]") -> None:
    """A skill's inline command is judged by its text: without one there is nothing to judge,
    and the refusal is answered in the event's own form (EventError.event)."""
    problem = None
    tool_input = raw.get("tool_input")
    if not isinstance(raw.get("tool_name"), str) or not raw["tool_name"]:
        problem = "has no tool_name string"
    elif not isinstance(tool_input, Mapping):
        problem = "has no tool_input object"
    elif not isinstance(tool_input.get("command"), str):
        problem = "has no tool_input.command string"
    if problem is not None:
        error = EventError(f"{SKILL_SHELL} event {problem}")
        error.event = SKILL_SHELL
        raise error


def parse_event(data: bytes, host: "str | None" = None) -> "HookEvent":
    if not data.strip():
        raise EventError("stdin was empty: expected one hook event as a JSON object")
    try:
        raw = jsonio.loads(data)
    except jsonio.DecodeError as error:
        raise EventError(
            f"stdin is not valid JSON (error at line {error.lineno} column {error.colno})"
        ) from None
    if not isinstance(raw, dict):
        raise EventError(f"hook event must be a JSON object, got {type(raw).__name__}")
    # Fewer brackets than the cap (the usual event) cannot nest past it: skip the walk.
    if data.count(b"[") + data.count(b"{") > MAX_JSON_DEPTH and deeper_than(raw, MAX_JSON_DEPTH):
        raise EventError(f"hook event is nested deeper than the {MAX_JSON_DEPTH}-level cap")
    caller = "claude-code"
    if (host is not None and host != caller) or (host is None and _foreign(raw)):
        from bridge.wire.hosts import translate

        caller, mapped = translate(raw, host)
        if mapped is not raw:
            raw, data = mapped, jsonio.dumps(mapped)
    name = raw.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise EventError("hook event has no hook_event_name string")
    if name in TOOL_EVENTS:
        if not isinstance(raw.get("tool_name"), str) or not raw["tool_name"]:
            raise EventError(f"{name} event has no tool_name string")
        if not isinstance(raw.get("tool_input"), dict):
            raise EventError(f"{name} event has no tool_input object")
    elif name == SKILL_SHELL:
        _check_skill_shell(raw)
    for key in ("session_id", "cwd", "tool_use_id", "agent_id"):
        if key in raw and raw[key] is not None and not isinstance(raw[key], str):
            refusal = EventError(f"hook event field {key} must be a string")
            refusal.event = name
            raise refusal
    if caller == "claude-code":
        return HookEvent(name=name, raw=raw, data=data)
    return ForeignEvent(name=name, raw=raw, data=data, host=caller)
