"""Google Gemini CLI: its own event names (BeforeTool, AfterTool …) and tool names
(`run_shell_command`, `write_file`, `replace` …), CC's field names. Read from its hook runner
(packages/core/src/hooks): stdout JSON `decision: deny|block` blocks, and so does any exit code
but 0 and 1, with stderr as the reason; exit 1 is a warning and the call goes ahead.
"""

from __future__ import annotations

from bridge.wire import EventError
from bridge.wire.answer import DENY_EXIT, Answer
from bridge.wire.hosts import absolute, mcp_name, required_tool, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "gemini"
EVENTS = {
    "BeforeTool": "PreToolUse",
    "AfterTool": "PostToolUse",
    "BeforeAgent": "UserPromptSubmit",
    "AfterAgent": "Stop",
    "SessionStart": "SessionStart",
    "SessionEnd": "SessionEnd",
    "Notification": "Notification",
    "PreCompress": "PreCompact",
}
BACK = {cc: ours for ours, cc in EVENTS.items()}
TOOLS = {
    "run_shell_command": "Bash",
    "write_file": "Write",
    "replace": "Edit",
    "read_file": "Read",
    "read_many_files": "Read",
    "glob": "Glob",
    "grep_search": "Grep",
    "search_file_content": "Grep",
    "list_directory": "LS",
    "web_fetch": "WebFetch",
    "google_web_search": "WebSearch",
}
_PATH_KEYS = ("file_path", "absolute_path", "path")


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    event = text(raw.get("hook_event_name"))
    name = EVENTS.get(event)
    if name is None:
        raise EventError(
            f"gemini event {event!r} is not one ccbridge judges (it runs "
            f"{', '.join(EVENTS)}): register ccbridge for those only"
        )
    cc = {**raw, "hook_event_name": name}
    cwd = text(raw.get("cwd"))
    if name in ("PreToolUse", "PostToolUse"):
        tool, tool_input = required_tool(raw, NAME, event)
        context = raw.get("mcp_context")
        if isinstance(context, dict) and text(context.get("server_name")):
            cc["tool_name"] = mcp_name(context["server_name"], text(context.get("tool_name")))
        else:
            cc["tool_name"] = TOOLS.get(tool, tool)
        tool_input = dict(tool_input)
        for key in _PATH_KEYS:
            if key in tool_input:
                tool_input[key] = absolute(tool_input[key], cwd)
        if "file_path" not in tool_input and isinstance(tool_input.get("absolute_path"), str):
            tool_input["file_path"] = tool_input["absolute_path"]
        cc["tool_input"] = tool_input
        cc.setdefault("tool_use_id", text(raw.get("tool_call_id")) or None)
        if cc["tool_use_id"] is None:
            del cc["tool_use_id"]
    if name == "PreCompact":
        cc.setdefault("trigger", raw.get("trigger"))
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    payload = dict(result.payload)
    specific = payload.pop("hookSpecificOutput", None)
    blocked = result.decision in ("deny", "block")
    if blocked:
        payload["decision"] = "deny"
        payload["reason"] = result.reason
    if isinstance(specific, dict) and specific.get("additionalContext"):
        ours = BACK.get(text(specific.get("hookEventName")), text(specific.get("hookEventName")))
        payload["hookSpecificOutput"] = {
            "hookEventName": ours,
            "additionalContext": specific["additionalContext"],
        }
    if blocked:
        return Answer(payload, DENY_EXIT, result.reason)
    return Answer(payload, 0, result.stderr, result.text)
