"""Qwen Code (`@qwen-code/qwen-code`): CC's event names, field names and answer, with Gemini
CLI's tool names (`run_shell_command`, `write_file`, `edit`, `read_file` …). Read from its hook
runner (packages/core/src/hooks/hookRunner.ts in the 0.24.4 bundle): exit 2 blocks, and then it
reads stderr (not stdout) as the answer, plain text being the reason; exit 0 reads stdout JSON
(`hookSpecificOutput.permissionDecision`); any other exit, a crash or a timeout is a
"non-blocking error" and the call runs (measured for a crash, a hang and a ccbridge that cannot
start: tests/e2e/test_agents_matrix.py).
"""

from __future__ import annotations

from bridge.wire import EventError
from bridge.wire.answer import Answer
from bridge.wire.hosts import absolute, mcp_name, required_tool, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "qwen"
TOOLS = {
    "run_shell_command": "Bash",
    "write_file": "Write",
    "edit": "Edit",
    "read_file": "Read",
    "grep_search": "Grep",
    "glob": "Glob",
    "list_directory": "LS",
    "web_fetch": "WebFetch",
    "web_search": "WebSearch",
    "agent": "Task",
    "notebook_edit": "NotebookEdit",
}
_PATH_KEYS = ("file_path", "absolute_path", "path")


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    name = text(raw.get("hook_event_name"))
    if not name:
        raise EventError("qwen event has no hook_event_name string")
    cc = dict(raw)
    if name in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"):
        tool, tool_input = required_tool(raw, NAME, name)
        if tool.startswith("mcp__"):
            cc["tool_name"] = tool
        elif tool.startswith("mcp_") and tool.count("_") >= 2:  # mcp_<server>_<tool>
            server, _, rest = tool[4:].partition("_")
            cc["tool_name"] = mcp_name(server, rest)
        else:
            cc["tool_name"] = TOOLS.get(tool, tool)
        cwd = text(raw.get("cwd"))
        tool_input = dict(tool_input)
        for key in _PATH_KEYS:
            if key in tool_input:
                tool_input[key] = absolute(tool_input[key], cwd)
        if "file_path" not in tool_input and isinstance(tool_input.get("absolute_path"), str):
            tool_input["file_path"] = tool_input["absolute_path"]
        cc["tool_input"] = tool_input
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    # CC's answer, which Qwen reads as CC does; on exit 2 it takes stderr, the reason.
    return result
