"""How many different ccbridge registrations Claude Code starts for one event.

Claude Code runs a hook named in several settings files once when the entries are the same and
each one when they differ (measured through 2.1.335, tests/e2e/test_once_e2e.py): shell
commands are the same when their strings are, whatever their timeout, onFailure or matcher;
an exec-form entry (`command` plus `args`) only with an identical exec-form entry, never with
the shell command that spells it. So the PATH launcher of a project's shared file, this
machine's absolute path in user settings and the exec form of managed settings start one
ccbridge each for every event. Counted when the config is compiled (off the hot path: the cache
is keyed by the settings files' identity), so a call with one registration pays nothing for it;
bridge.coordination makes the others wait for one judgement instead of judging again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any


def handlers(data: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(event, handler) for every hook handler of one settings object."""
    hooks = data.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, Mapping) else ():
        for group in groups if isinstance(groups, list) else ():
            found = group.get("hooks") if isinstance(group, Mapping) else None
            for handler in found if isinstance(found, list) else ():
                if isinstance(handler, Mapping):
                    yield str(event), handler


def identity(handler: Mapping[str, Any]) -> str:
    """What Claude Code tells one hook from another by: the command string, and for exec form
    its arguments too."""
    args, command = handler.get("args"), handler.get("command")
    form = ["exec", command, args] if isinstance(args, list) else ["shell", command]
    return json.dumps(form, default=str)


def distinct(layers: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Per event, how many different ccbridge registrations these settings objects (every file
    Claude Code reads) hold, for the events with more than one."""
    from bridge.commands.install import is_registration

    per_event: dict[str, set[str]] = {}
    for data in layers:
        for event, handler in handlers(data):
            if handler.get("type", "command") == "command" and is_registration(handler):
                per_event.setdefault(event, set()).add(identity(handler))
    return {event: len(found) for event, found in sorted(per_event.items()) if len(found) > 1}


def counted(env: Mapping[str, str], project: str) -> dict[str, int]:
    """`distinct` for the settings files Claude Code reads here; a file it cannot parse it
    ignores whole, and so does this."""
    from bridge.paths import settings_layers
    from bridge.wall import settings_object

    loaded = (settings_object(path) for path in settings_layers(env, project))
    return distinct([data for data in loaded if data is not None])
