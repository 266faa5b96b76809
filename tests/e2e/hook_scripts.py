"""Small sub-hook programs the e2e tests write into temporary directories."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

MARKER = "marker"
TOUCH_MARKER = f"touch {MARKER}"


def write_hook(directory: Path, name: str, body: str) -> Path:
    """An executable `sh` script that drains its stdin (the CC event) and then runs `body`."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\ncat >/dev/null\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def prints_json(payload: dict[str, Any]) -> str:
    return f"printf '%s\\n' {shlex.quote(json.dumps(payload))}"


def pre_tool_use(decision: str | None = None, reason: str | None = None, **extra: Any) -> str:
    """A script body answering PreToolUse with the given decision fields."""
    output: dict[str, Any] = {"hookEventName": "PreToolUse", **extra}
    if decision is not None:
        output["permissionDecision"] = decision
    if reason is not None:
        output["permissionDecisionReason"] = reason
    return prints_json({"hookSpecificOutput": output})


def command_handler(path: Path | str, **fields: Any) -> dict[str, Any]:
    return {"type": "command", "command": shlex.quote(str(path)), **fields}


def hooks_block(event: str, *handlers: dict[str, Any], matcher: str = "Bash") -> dict[str, Any]:
    """The CC `hooks` settings block registering `handlers` on `event` (one matcher group)."""
    return {event: [{"matcher": matcher, "hooks": list(handlers)}]}
