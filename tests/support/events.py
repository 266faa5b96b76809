"""Builders for what the tests feed ccbridge: hook events as CC sends them, and sub-hook specs
as the config compiles them. Each test passes what it looks at; the rest is a fixed default."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bridge.subhooks.spec import HookSpec

TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")


def event(name: str = "PreToolUse", command: str | None = "ls", **fields: Any) -> dict[str, Any]:
    """A hook event: session, cwd and name, a Bash `command` for the tool events (None: no
    tool fields), then `fields`, which win."""
    data: dict[str, Any] = {"hook_event_name": name, "session_id": "s1", "cwd": "/tmp"}
    if name in TOOL_EVENTS and command is not None:
        data.update(tool_name="Bash", tool_input={"command": command})
    data.update(fields)
    return data


def event_json(name: str = "PreToolUse", command: str | None = "ls", **fields: Any) -> str:
    """`event(...)` as the JSON text on ccbridge's stdin."""
    return json.dumps(event(name, command, **fields))


def hook(
    command: str | None = None,
    timeout: float = 10.0,
    *,
    name: str | None = None,
    where: str = "test",
    **extra: Any,
) -> HookSpec:
    """A PreToolUse sub-hook running `command`, named after it unless `name` says otherwise."""
    return HookSpec(
        event=extra.pop("event", "PreToolUse"),
        name=name if name is not None else command or "hook",
        where=where,
        order=extra.pop("order", 0),
        command=command,
        timeout=timeout,
        **extra,
    )


def tool_call(
    tool: str, tool_input: Mapping[str, Any], name: str = "PreToolUse", **fields: Any
) -> bytes:
    """A tool event as the bytes on ccbridge's (or a plain hook's) stdin: `event(...)` with this
    tool and input and a tool_use_id, then `fields`, which win."""
    fields = {"tool_use_id": "toolu_1", **fields}
    return event_json(name, None, tool_name=tool, tool_input=dict(tool_input), **fields).encode()
