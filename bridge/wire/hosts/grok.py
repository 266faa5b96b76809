"""Grok Build (`xai-grok-hooks`): reads CC's settings files' hooks by default and calls them with
its own camelCase envelope (`hookEventName: "pre_tool_use"`, `toolName`, `toolInput`,
`toolUseId`; tools `run_terminal_command`, `read_file`, `search_replace`, `write` …). Only
`pre_tool_use` can deny and `stop`/`subagent_stop` can block; every failure of a hook is
fail-open by design. A deny is `{"decision": "deny", "reason": …}` on stdout (honoured whatever
the exit code) and exit 2 with the reason on stderr.
"""

from __future__ import annotations

from bridge.wire import EventError
from bridge.wire.answer import DENY_EXIT, Answer
from bridge.wire.hosts import absolute, mcp_name, renamed, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "grok"
EVENTS = {
    "pre_tool_use": "PreToolUse",
    "post_tool_use": "PostToolUse",
    "post_tool_use_failure": "PostToolUseFailure",
    "user_prompt_submit": "UserPromptSubmit",
    "stop": "Stop",
    "subagent_stop": "SubagentStop",
    "subagent_start": "SubagentStart",
    "session_start": "SessionStart",
    "session_end": "SessionEnd",
    "notification": "Notification",
    "pre_compact": "PreCompact",
}
TOOLS = {
    "run_terminal_command": "Bash",
    "read_file": "Read",
    "hashline_read": "Read",
    "write": "Write",
    "search_replace": "Edit",
    "hashline_edit": "Edit",
    "grep": "Grep",
    "hashline_grep": "Grep",
    "list_dir": "Glob",
    "web_search": "WebSearch",
    "web_fetch": "WebFetch",
    "spawn_subagent": "Task",
}
FIELDS = {
    "sessionId": "session_id",
    "transcriptPath": "transcript_path",
    "permissionMode": "permission_mode",
    "promptId": "prompt_id",
    "toolUseId": "tool_use_id",
    "toolResult": "tool_response",
    "stopHookActive": "stop_hook_active",
    "lastAssistantMessage": "last_assistant_message",
    "subagentType": "agent_type",
}
_PATH_KEYS = ("file_path", "path", "target_file")


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    theirs = raw.get("hookEventName")
    if not isinstance(theirs, str) or not theirs:
        raise EventError("grok event has no hookEventName string")
    # Grok's display names are snake_case; its config also accepts CC's PascalCase.
    name = EVENTS.get(text(theirs)) or (theirs if theirs in EVENTS.values() else None)
    cc = renamed(raw, FIELDS)
    if name is None:
        # Every other Grok event is observe-only: its answer is ignored, nothing to judge.
        cc["hook_event_name"] = f"grok:{text(theirs)}"
        return cc
    cc["hook_event_name"] = name
    if name in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        tool, tool_input = raw.get("toolName"), raw.get("toolInput")
        if not isinstance(tool, str) or not tool:
            raise EventError(f"grok {theirs} event has no toolName string")
        if not isinstance(tool_input, dict):
            raise EventError(f"grok {theirs} event has no toolInput object")
        if raw.get("toolInputTruncated") is True:
            # Grok cuts a tool input past 128 KB: the part ccbridge would judge is not the
            # call that runs.
            raise EventError(f"grok sent the {tool} input truncated: it cannot be judged whole")
        if tool in TOOLS:
            cc["tool_name"] = TOOLS[tool]
        elif "__" in tool and not tool.startswith("mcp__"):  # an MCP tool: server__tool
            server, _, rest = tool.partition("__")
            cc["tool_name"] = mcp_name(server, rest)
        else:
            cc["tool_name"] = tool
        cwd = text(raw.get("cwd"))
        tool_input = dict(tool_input)
        for key in _PATH_KEYS:
            if key in tool_input:
                tool_input[key] = absolute(tool_input[key], cwd)
        cc["tool_input"] = tool_input
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    decision, reason = result.decision, result.reason
    if decision == "deny" and event_name in (None, "PreToolUse"):  # None: not judged at all
        return Answer({"decision": "deny", "reason": reason}, DENY_EXIT, reason)
    if decision == "block" and event_name in ("Stop", "SubagentStop"):
        return Answer({"decision": "block", "reason": reason})
    return Answer(result.payload)
