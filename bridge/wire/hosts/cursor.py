"""Cursor: hooks from its own hooks.json and, as "third-party hooks", from CC's settings files.
Its events are camelCase (`preToolUse`, `beforeShellExecution` …), its shell tool is `Shell`,
its envelope carries `conversation_id`, `workspace_roots` and `cursor_version` (cursor.com/docs
hooks reference). Exit 2 blocks every Cursor hook; the JSON answer names the same verdict in
Cursor's fields (`permission`, `user_message`, `agent_message`; `decision`/`reason` for
preToolUse; `continue` for a prompt; `followup_message` for stop) and in CC's.
"""

from __future__ import annotations

from bridge.wire import CC_EVENTS, EventError
from bridge.wire.answer import DENY_EXIT, Answer
from bridge.wire.hosts import absolute, jsonish, mcp_name, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "cursor"
EVENTS = {
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "beforeShellExecution": "PreToolUse",
    "afterShellExecution": "PostToolUse",
    "beforeMCPExecution": "PreToolUse",
    "afterMCPExecution": "PostToolUse",
    "beforeReadFile": "PreToolUse",
    "afterFileEdit": "PostToolUse",
    "beforeSubmitPrompt": "UserPromptSubmit",
    "stop": "Stop",
    "sessionStart": "SessionStart",
    "sessionEnd": "SessionEnd",
    "subagentStart": "SubagentStart",
    "subagentStop": "SubagentStop",
    "preCompact": "PreCompact",
}
TOOLS = {
    "Shell": "Bash",
    "Read": "Read",
    "Write": "Write",
    "StrReplace": "Edit",
    "Edit": "Edit",
    "MultiEdit": "MultiEdit",
    "Grep": "Grep",
    "Glob": "Glob",
    "LS": "LS",
    "WebFetch": "WebFetch",
    "WebSearch": "WebSearch",
    "Task": "Task",
}
_PATH_KEYS = ("file_path", "path", "target_file")


def _event(raw: dict[str, Any]) -> tuple[str, str]:
    theirs = text(raw.get("hook_event_name"))
    if theirs in CC_EVENTS:
        return theirs, theirs  # a CC-registered hook may be called with CC's name
    ours = EVENTS.get(theirs)
    if ours is None:
        raise EventError(f"cursor event {theirs!r} is not one ccbridge judges")
    return theirs, ours


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    theirs, name = _event(raw)
    roots = raw.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else ""
    cwd = text(raw.get("cwd")) or root
    cc = {**raw, "hook_event_name": name, "cwd": cwd}
    if not isinstance(raw.get("session_id"), str):
        cc["session_id"] = text(raw.get("conversation_id"))
    if theirs in ("beforeShellExecution", "afterShellExecution"):
        cc["tool_name"], cc["tool_input"] = "Bash", {"command": text(raw.get("command"))}
        if not text(raw.get("command")):
            raise EventError(f"cursor {theirs} event has no command string")
    elif theirs in ("beforeReadFile", "afterFileEdit"):
        path = text(raw.get("file_path"))
        if not path:
            raise EventError(f"cursor {theirs} event has no file_path string")
        cc["tool_name"] = "Read" if theirs == "beforeReadFile" else "Edit"
        cc["tool_input"] = {"file_path": absolute(path, cwd)}
    elif theirs in ("beforeMCPExecution", "afterMCPExecution"):
        tool = text(raw.get("tool_name"))
        if not tool:
            raise EventError(f"cursor {theirs} event has no tool_name string")
        server = text(raw.get("server_name")) or text(raw.get("url")) or text(raw.get("command"))
        cc["tool_name"] = mcp_name(server or "cursor", tool)
        cc["tool_input"] = jsonish(raw.get("tool_input"))
    elif name in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        tool = text(raw.get("tool_name"))
        tool_input = jsonish(raw.get("tool_input"))
        if not tool:
            raise EventError(f"cursor {theirs} event has no tool_name string")
        if tool.startswith("MCP:"):  # Cursor's name for an MCP tool: MCP:<tool>
            cc["tool_name"] = mcp_name("cursor", tool[4:])
        else:
            cc["tool_name"] = TOOLS.get(tool, tool)
        for key in _PATH_KEYS:
            if key in tool_input:
                tool_input[key] = absolute(tool_input[key], cwd)
        if "file_path" not in tool_input:
            for key in ("path", "target_file"):
                if isinstance(tool_input.get(key), str):
                    tool_input["file_path"] = tool_input[key]
                    break
        cc["tool_input"] = tool_input
    if name == "PostToolUse" and "tool_response" not in cc:
        cc["tool_response"] = raw.get("tool_output", raw.get("output", raw.get("result_json")))
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    payload = dict(result.payload)
    decision, reason = result.decision, result.reason
    if decision == "deny":
        payload.update(
            permission="deny",
            decision="deny",
            reason=reason,
            user_message=reason,
            agent_message=reason,
        )
        return Answer(payload, DENY_EXIT, reason)
    if decision == "block" and event_name == "UserPromptSubmit":
        payload.update({"continue": False, "user_message": reason})
        return Answer(payload, DENY_EXIT, reason)
    if decision == "block" and event_name in ("Stop", "SubagentStop"):
        payload["followup_message"] = reason
    # Cursor reads a JSON answer on every path: `{}` is "no opinion".
    shown = result.text or ("" if payload else "{}")
    return Answer(payload, result.exit_code, result.stderr, shown)
