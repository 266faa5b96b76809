"""opencode (`opencode-ai`): no command hooks, JavaScript plugins. `ccbridge install --host
opencode` writes a plugin (bridge.commands.agents.OPENCODE_PLUGIN) whose `tool.execute.before`
and `tool.execute.after` run `ccbridge run --host opencode` with
`{hook_event_name: "tool.execute.before", tool, sessionID, callID, args, cwd}` (opencode's own
`input` and `output.args`, read from the 1.18.33 binary's `trigger("tool.execute.before",
{tool, sessionID, callID}, {args})`) and throw, which stops the call, on a deny (exit 2), on any
other exit, and when ccbridge cannot start or does not answer in time.
"""

from __future__ import annotations

from bridge.wire import EventError
from bridge.wire.answer import DENY_EXIT, Answer
from bridge.wire.hosts import absolute, cc_tool_name, renamed, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "opencode"
EVENTS = {"tool.execute.before": "PreToolUse", "tool.execute.after": "PostToolUse"}
TOOLS = {
    "bash": "Bash",
    "edit": "Edit",
    "write": "Write",
    "read": "Read",
    "patch": "Edit",
    "multiedit": "MultiEdit",
    "glob": "Glob",
    "grep": "Grep",
    "list": "LS",
    "task": "Task",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
}
FIELDS = {"sessionID": "session_id", "callID": "tool_use_id", "output": "tool_response"}
ARGS = {"filePath": "file_path", "oldString": "old_string", "newString": "new_string"}


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    theirs = text(raw.get("hook_event_name"))
    name = EVENTS.get(theirs)
    if name is None:
        raise EventError(f"opencode event {theirs!r} is not one ccbridge judges")
    tool, args = raw.get("tool"), raw.get("args")
    if not isinstance(tool, str) or not tool:
        raise EventError(f"opencode {theirs} event has no tool string")
    if not isinstance(args, dict):
        raise EventError(f"opencode {theirs} event has no args object")
    cc = renamed(raw, FIELDS)
    cc["hook_event_name"] = name
    tool_input = renamed(args, ARGS)
    if "file_path" in tool_input:
        tool_input["file_path"] = absolute(tool_input["file_path"], text(raw.get("cwd")))
    cc["tool_name"] = cc_tool_name(tool, TOOLS, "_")  # an MCP tool: <server>_<tool>
    cc["tool_input"] = tool_input
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    if result.decision == "deny" and event_name in (None, "PreToolUse"):
        return Answer({"decision": "deny", "reason": result.reason}, DENY_EXIT, result.reason)
    return Answer({})
