"""Agents other than Claude Code that run CC-shaped command hooks, at the wire layer only.

Each host module turns the host's event into the CC event ccbridge judges (`to_cc`: event and
tool names, field names, paths) and turns ccbridge's CC answer into what that host honours
(`answer`), so the pipeline, the config, the guards and the audit stay the same for every host.
A CC event never imports this package: `bridge.wire.event` sends only envelopes that do not look
like Claude Code's here.
"""

from __future__ import annotations

from bridge.wire import CC_EVENTS, HOSTS, EventError
from bridge.wire.answer import DENY_EXIT, Answer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

CLAUDE_CODE = HOSTS[0]

# Cursor's own event names (hooks.json); a CC-registered hook may also get CC's names.
CURSOR_EVENTS = frozenset(
    {
        *("preToolUse", "postToolUse", "postToolUseFailure", "beforeShellExecution"),
        *("afterShellExecution", "beforeMCPExecution", "afterMCPExecution", "beforeReadFile"),
        *("afterFileEdit", "beforeSubmitPrompt", "afterAgentResponse", "afterAgentThought"),
        *("stop", "sessionStart", "sessionEnd", "subagentStart", "subagentStop", "preCompact"),
        *("beforeTabFileRead", "afterTabFileEdit"),
    }
)
# Fields only Cursor's envelope carries.
CURSOR_FIELDS = ("cursor_version", "conversation_id", "generation_id", "workspace_roots")
# Tool names no CC tool has, that only Cursor sends (its shell tool).
CURSOR_TOOLS = frozenset({"Shell"})
GEMINI_EVENTS = frozenset(
    {
        *("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel"),
        *("BeforeToolSelection", "PreCompress"),
    }
)

# What ccbridge's opencode plugin sends (bridge.wire.hosts.opencode).
OPENCODE_EVENTS = frozenset({"tool.execute.before", "tool.execute.after"})


def detect(raw: Mapping[str, Any]) -> str | None:
    """The host whose envelope this is, or None when it is no host's we know."""
    if "hookEventName" in raw and "hook_event_name" not in raw:
        return "grok"  # Grok's envelope is camelCase throughout
    if "hook_event_name" not in raw and "toolName" in raw and "toolArgs" in raw:
        return "copilot"  # Copilot's camelCase envelope names no event
    if "hookName" in raw and "clineVersion" in raw:
        return "cline"
    name = text(raw.get("hook_event_name"))  # any JSON value may come: only a string names
    if any(key in raw for key in CURSOR_FIELDS) or name in CURSOR_EVENTS:
        return "cursor"
    if name in GEMINI_EVENTS:
        return "gemini"
    if name in OPENCODE_EVENTS:
        return "opencode"
    if name in CC_EVENTS and text(raw.get("tool_name")) in CURSOR_TOOLS:
        return "cursor"
    if name in CC_EVENTS and "turn_id" in raw:
        return "codex"  # CC's shape, plus the Codex turn the call belongs to
    if name:
        return CLAUDE_CODE  # CC adds events often: a new one is CC's until shown otherwise
    return None


def _seen(raw: Mapping[str, Any]) -> str:
    keys = ", ".join(sorted(str(key) for key in raw)[:12]) or "none"
    name = raw.get("hook_event_name", raw.get("hookEventName"))
    return f"event name {name!r}, fields: {keys}"


def translate(raw: dict[str, Any], host: str | None) -> tuple[str, dict[str, Any]]:
    """(host, the CC-shaped event) for a raw envelope; EventError when it cannot be judged."""
    found = host or detect(raw)
    if found is None:
        if set(raw) <= {"hook_event_name"}:
            raise EventError("hook event has no hook_event_name string")
        raise EventError(
            f"hook event has no hook_event_name string and is no other host's event ccbridge "
            f"knows ({_seen(raw)})"
        )
    if found == CLAUDE_CODE:
        return found, raw
    if found not in HOSTS:
        raise EventError(f"unknown host {found!r} (known: {', '.join(HOSTS)})")
    try:
        cc: dict[str, Any] = _adapter(found).to_cc(raw)
    except EventError as problem:
        problem.host = found
        raise
    return found, cc


def answer(host: str, result: Answer, event_name: str | None) -> Answer:
    """ccbridge's CC answer in the host's dialect."""
    if host == CLAUDE_CODE or host not in HOSTS:
        return result
    return _adapter(host).answer(no_ask(host, result), event_name)  # type: ignore[no-any-return]


def _adapter(host: str) -> Any:
    """The host's module. `__import__`, not importlib: the import statement's path, so the
    interpreter's own import report (the hot-path tests) sees it."""
    return __import__(f"bridge.wire.hosts.{host}", fromlist=["to_cc"])


def no_ask(host: str, result: Answer) -> Answer:
    """No other host gives a hook's `ask` to a person ccbridge can rely on (Codex refuses the
    value, Cursor and Grok let the call run, a headless Copilot, Qwen Code or opencode has
    nobody to ask): a question becomes a deny that says so."""
    if result.decision != "ask":
        return result
    reason = (
        f"{result.reason}\n(ccbridge: this call needs a person's approval, and {host} has no "
        "hook approval prompt ccbridge can rely on, so it is denied)"
    )
    specific = {**result.payload.get("hookSpecificOutput", {})}
    specific.update(permissionDecision="deny", permissionDecisionReason=reason)
    return Answer({**result.payload, "hookSpecificOutput": specific}, DENY_EXIT, reason)


def renamed(raw: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A copy of `raw` with the CC field names beside the host's own (kept for sub-hooks)."""
    out = dict(raw)
    for theirs, ours in names.items():
        if theirs in raw and ours not in raw:
            out[ours] = raw[theirs]
    return out


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def absolute(path: Any, cwd: str) -> Any:
    """A host may name a file relative to the workspace; CC's tools (and the guards) use
    absolute paths."""
    if isinstance(path, str) and path and not path.startswith("/") and cwd.startswith("/"):
        return cwd.rstrip("/") + "/" + path
    return path


def mcp_name(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


def cc_tool_name(tool: str, tools: Mapping[str, str], mcp_separator: str) -> str:
    """An agent's tool name as Claude Code's: its own tools by `tools`, an MCP tool named
    `<server><mcp_separator><tool>` as `mcp__server__tool`, anything else as it is."""
    if tool in tools:
        return tools[tool]
    if mcp_separator in tool:
        server, _, rest = tool.partition(mcp_separator)
        return mcp_name(server, rest)
    return tool


def required_tool(raw: Mapping[str, Any], host: str, event: str) -> tuple[str, dict[str, Any]]:
    name, tool_input = raw.get("tool_name"), raw.get("tool_input")
    if not isinstance(name, str) or not name:
        raise EventError(f"{host} {event} event has no tool_name string")
    if not isinstance(tool_input, dict):
        raise EventError(f"{host} {event} event has no tool_input object")
    return name, tool_input


def jsonish(value: Any) -> dict[str, Any]:
    """A tool input as an object: some hosts send it as a JSON string."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, str):
        from bridge.wire import jsonio

        try:
            parsed = jsonio.loads(value.encode())
        except ValueError:
            return {"input": value}
        return dict(parsed) if isinstance(parsed, dict) else {"input": value}
    return {}
