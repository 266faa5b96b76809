"""GitHub Copilot CLI (`@github/copilot`): hooks in `.github/hooks/*.json` (`{"version": 1,
"hooks": {…}}`) or inline under `hooks` in its settings.json, camelCase events (`preToolUse`,
`postToolUse` …). Measured from the 1.0.102 client (tests/e2e/test_agents_matrix.py): a
camelCase hook gets `{sessionId, timestamp (ms), cwd, toolName, toolArgs}` with no event name
(`toolArgs` an object; its documentation shows a JSON string: both are read), and its own tool
names (`bash`, `view`, `create`, `edit` …); a hook registered under a PascalCase name gets CC's
snake_case envelope with CC's tool names instead. A deny is `permissionDecision: "deny"` with
its reason, and exit 2 (its changelog: "preToolUse hooks that exit with code 2 deny tool
calls"). Copilot applies a hook's `modifiedArgs`/`updatedInput` and an `allow` skips its own
approval prompt, so ccbridge sends it neither: only a deny, or nothing.
"""

from __future__ import annotations

from bridge.wire import CC_EVENTS, EventError
from bridge.wire.answer import DENY_EXIT, Answer
from bridge.wire.hosts import absolute, cc_tool_name, jsonish, renamed, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "copilot"
TOOLS = {
    "bash": "Bash",
    "powershell": "Bash",
    "view": "Read",
    "create": "Write",
    "edit": "Edit",
    "str_replace": "Edit",
    "grep": "Grep",
    "glob": "Glob",
    "task": "Task",
    "web_fetch": "WebFetch",
}
# Copilot's argument names beside CC's (its own stay, for sub-hooks that read them).
ARGS = {
    "path": "file_path",
    "file_text": "content",
    "old_str": "old_string",
    "new_str": "new_string",
}
FIELDS = {"sessionId": "session_id", "toolResult": "tool_response", "toolCallId": "tool_use_id"}


def _event(raw: dict[str, Any]) -> str:
    """Copilot's camelCase envelope names no event: its fields tell which it is."""
    if "toolName" in raw:
        if "toolResult" in raw:
            return "PostToolUse"
        return "PostToolUseFailure" if "error" in raw else "PreToolUse"
    if isinstance(raw.get("prompt"), str):
        return "UserPromptSubmit"
    raise EventError(
        "copilot event has neither a toolName nor a prompt: register ccbridge for preToolUse, "
        "postToolUse and userPromptSubmitted only"
    )


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    if text(raw.get("hook_event_name")) in CC_EVENTS:
        # A PascalCase registration: CC's envelope and tool names already.
        cc = dict(raw)
        if text(cc.get("tool_name")) in TOOLS:
            cc["tool_name"] = TOOLS[cc["tool_name"]]
        return cc
    name = _event(raw)
    cc = renamed(raw, FIELDS)
    cc["hook_event_name"] = name
    if name == "UserPromptSubmit":
        return cc
    tool = raw.get("toolName")
    if not isinstance(tool, str) or not tool:
        raise EventError(f"copilot {name} event has no toolName string")
    if not isinstance(raw.get("toolArgs"), (dict, str)):
        raise EventError(f"copilot {name} event has no toolArgs object")
    tool_input = renamed(jsonish(raw["toolArgs"]), ARGS)
    cwd = text(raw.get("cwd"))
    if "file_path" in tool_input:
        tool_input["file_path"] = absolute(tool_input["file_path"], cwd)
    cc["tool_name"] = cc_tool_name(tool, TOOLS, "/")  # an MCP tool: server/tool
    cc["tool_input"] = tool_input
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    if result.decision == "deny" and event_name in (None, "PreToolUse"):
        payload = {"permissionDecision": "deny", "permissionDecisionReason": result.reason}
        return Answer(payload, DENY_EXIT, result.reason)
    if result.decision == "block" and event_name == "UserPromptSubmit":
        return Answer({"decision": "block", "reason": result.reason}, 0, result.reason)
    return Answer({})
