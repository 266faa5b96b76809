"""Cline CLI (`cline`, the @cline/core SDK): a hook is a file named for its event
(`PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `TaskStart` …, case aside, optionally with a
script ending such as `.sh`) in a hooks directory (~/.cline/hooks, ~/Documents/Cline/Hooks,
<workspace>/.clinerules/hooks, <workspace>/.cline/hooks), run through the interpreter its first
line names. Read from the 3.0.65 bundle (@cline/core, the same code in the CLI binary): stdin is
`{clineVersion, hookName: "tool_call", timestamp, taskId, workspaceRoots, userId, agent_id,
iteration, tool_call: {id, name, input}, preToolUse: {toolName, parameters}}`; the answer is the
JSON on stdout (or its last `HOOK_CONTROL\\t` line), whatever the exit code: `{"cancel": true,
"errorMessage": …}` stops the whole task (the model is not told), `overrideInput` replaces the
call's input. A hook that prints nothing, crashes, prints JSON Cline cannot parse or is killed
at 120 s is dropped and the call runs: so ccbridge always answers in JSON on stdout (`{}` for
no opinion), a deny with exit 2 and the reason on stderr as for every other host, and the hook
file `ccbridge install --host cline` writes refuses when ccbridge gives no answer.
"""

from __future__ import annotations

from bridge.wire import EventError
from bridge.wire.answer import DENY_EXIT, Answer
from bridge.wire.hosts import absolute, mcp_name, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "cline"
EVENTS = {
    "tool_call": "PreToolUse",
    "tool_result": "PostToolUse",
    "prompt_submit": "UserPromptSubmit",
    "agent_start": "SessionStart",
    "agent_resume": "SessionStart",
    "agent_end": "Stop",
    "session_shutdown": "SessionEnd",
    "pre_compact": "PreCompact",
}
TOOLS = {
    "run_commands": "Bash",
    "execute_command": "Bash",
    "editor": "Edit",
    "write_to_file": "Write",
    "replace_in_file": "Edit",
    "read_file": "Read",
    "search_codebase": "Grep",
    "fetch_web_content": "WebFetch",
}
_FILE_TOOLS = ("editor", "write_to_file", "replace_in_file", "read_file", "read_files")


def _commands(tool_input: dict[str, Any]) -> str:
    """`run_commands` runs a list: judged as the one script it amounts to."""
    given = tool_input.get("commands", tool_input.get("command"))
    items = given if isinstance(given, list) else [given]
    lines = [
        item if isinstance(item, str) else text(item.get("command"))
        for item in items
        if isinstance(item, (str, dict))
    ]
    return "\n".join(line for line in lines if line)


def _files(tool_input: dict[str, Any], cwd: str) -> list[str]:
    given = tool_input.get("files", tool_input.get("paths", tool_input.get("path")))
    items = given if isinstance(given, list) else [given]
    found = [item if isinstance(item, str) else item.get("path") for item in items if item]
    return [absolute(path, cwd) for path in found if isinstance(path, str) and path]


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    theirs = text(raw.get("hookName"))
    name = EVENTS.get(theirs)
    if name is None:
        raise EventError(f"cline event {theirs!r} is not one ccbridge judges")
    roots = raw.get("workspaceRoots")
    cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else ""
    cc = {**raw, "hook_event_name": name, "cwd": text(raw.get("cwd")) or cwd}
    cc.setdefault("session_id", text(raw.get("taskId")))
    if name == "UserPromptSubmit":
        prompt = raw.get("userPromptSubmit")
        cc.setdefault("prompt", text(prompt.get("prompt")) if isinstance(prompt, dict) else "")
    if name not in ("PreToolUse", "PostToolUse"):
        return cc
    call = raw.get("tool_call") if name == "PreToolUse" else raw.get("tool_result")
    call = call if isinstance(call, dict) else {}
    tool = text(call.get("name"))
    tool_input = call.get("input")
    if not tool:
        raise EventError(f"cline {theirs} event has no tool name")
    if not isinstance(tool_input, dict):
        raise EventError(f"cline {theirs} event has no tool input object")
    tool_input = dict(tool_input)
    cc["tool_use_id"] = text(call.get("id")) or None
    if cc["tool_use_id"] is None:
        del cc["tool_use_id"]
    cc["tool_name"] = TOOLS.get(tool, tool)
    if "__" in tool and tool not in TOOLS:  # an MCP tool: server__tool
        server, _, rest = tool.partition("__")
        cc["tool_name"] = mcp_name(server, rest)
    if cc["tool_name"] == "Bash":
        tool_input["command"] = _commands(tool_input)
        if not tool_input["command"]:
            raise EventError(f"cline {tool} call names no command")
    elif tool in _FILE_TOOLS:
        files = _files(tool_input, cc["cwd"])
        if not files:
            raise EventError(f"cline {tool} call names no file")
        if len(files) == 1:
            tool_input["file_path"] = files[0]
            cc["tool_name"] = "Read" if tool == "read_files" else cc["tool_name"]
        else:
            tool_input["file_paths"] = files  # judged one by one by the path guards
    cc["tool_input"] = tool_input
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    if result.decision in ("deny", "block"):
        payload = {"cancel": True, "errorMessage": result.reason}
        return Answer(payload, DENY_EXIT, result.reason)
    return Answer({}, 0, result.stderr, "{}")
