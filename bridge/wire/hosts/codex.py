"""OpenAI Codex CLI: CC's event and tool names (`Bash`, `apply_patch`, `mcp__server__tool`)
and CC's fields on stdin; its answer reader is stricter than CC's. Read from the 0.171.0 binary:
`permissionDecision: ask`, `continue: false`, `stopReason` and `suppressOutput` on a PreToolUse
answer make the whole answer invalid, and an invalid answer does not block. So a deny carries
only the decision, its reason, and exit 2 with the reason on stderr (which Codex also blocks on).
"""

from __future__ import annotations

from bridge.wire.answer import Answer
from bridge.wire.hosts import absolute, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "codex"
# Where Codex rejects these keys on an answer; everywhere else they pass through.
_UNSUPPORTED = {
    "PreToolUse": ("continue", "stopReason", "suppressOutput"),
    "PermissionRequest": ("continue", "stopReason", "suppressOutput"),
    "PostToolUse": ("suppressOutput",),
}


def patch_files(patch: str) -> list[str]:
    """The files an apply_patch envelope adds, updates, deletes or moves to. Codex's parser
    trims the marker lines, so a marker after blanks counts too."""
    heads = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
    return [
        line[len(head) :].strip()
        for line in (raw.strip() + " " for raw in patch.splitlines())
        for head in heads
        if line.startswith(head)
    ]


def to_cc(raw: dict[str, Any]) -> dict[str, Any]:
    cc = dict(raw)
    tool_input = raw.get("tool_input")
    if raw.get("tool_name") == "apply_patch" and isinstance(tool_input, dict):
        # One file touched: the CC Edit it is. Several (or none read): the call keeps its name
        # (sub-hooks matching apply_patch still run) and names every file in `file_paths`,
        # which the path guards judge one by one (none: they cannot tell, and deny).
        cwd = text(raw.get("cwd"))
        files = [absolute(name, cwd) for name in patch_files(text(tool_input.get("command")))]
        if len(files) == 1:
            cc["tool_name"] = "Edit"
            cc["tool_input"] = {**tool_input, "file_path": files[0]}
        else:
            cc["tool_input"] = {**tool_input, "file_paths": files}
    return cc


def answer(result: Answer, event_name: str | None) -> Answer:
    drop = _UNSUPPORTED.get(event_name or "PreToolUse", ())
    payload = {key: value for key, value in result.payload.items() if key not in drop}
    return Answer(payload, result.exit_code, result.stderr, result.text)
