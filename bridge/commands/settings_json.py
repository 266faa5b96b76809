"""A Claude Code settings file (JSON, its `hooks` block) as install reads it and writes it back:
in its author's layout (indent, one-line arrays, final newline), with a clear error for a file
install cannot safely edit."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge import CcbridgeError


class InstallError(CcbridgeError):
    """A settings or config file install cannot safely edit; the message says which and why."""


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InstallError(f"{path}: cannot read it ({error.strerror})") from None


def read_settings(path: Path, content: bytes | None) -> dict[str, Any]:
    if content is None or not content.strip():
        return {}
    try:
        data = json.loads(content)
    except (UnicodeDecodeError, ValueError) as error:
        raise InstallError(f"{path}: not valid JSON ({error}); fix it before installing") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: expected a JSON object at the top")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or not all(
        isinstance(groups, list) for groups in hooks.values()
    ):
        raise InstallError(f"{path}: `hooks` must map event names to lists of matcher groups")
    return data


def dump_settings(data: Mapping[str, Any], like: bytes | None = None) -> bytes:
    """JSON in the layout of `like` (the file as it was) where it can: its indent (spaces or a
    tab), one line if it was one line, its final newline; else two spaces."""
    text = like.decode("utf-8", "replace") if like else ""
    indent: str | int | None = 2
    if text.strip() and "\n" not in text.strip():
        indent = None
    else:
        found = re.search(r'^([ \t]+)["}\]]', text, re.MULTILINE)
        if found:
            indent = found.group(1)
    dumped = json.dumps(data, indent=indent, ensure_ascii=False)
    if indent is not None:
        dumped = _dump(data, indent if isinstance(indent, str) else " " * indent, _inline(text))
    return (dumped + ("" if text and not text.endswith("\n") else "\n")).encode()


_ONE_LINE_ARRAY = re.compile(r'"((?:[^"\\\n]|\\.)*)"[ \t]*:[ \t]*(\[[^\[\]\{\}\n]*\])')


def _inline(text: str) -> dict[tuple[str, str], str]:
    """The arrays of flat values `text` writes on one line, by key and value, as written."""
    found = {}
    for match in _ONE_LINE_ARRAY.finditer(text):
        try:
            value = json.loads(match.group(2))
        except ValueError:
            continue
        found[(match.group(1), json.dumps(value, sort_keys=True))] = match.group(2)
    return found


def _dump(value: Any, indent: str, inline: Mapping[tuple[str, str], str], depth: int = 0) -> str:
    """json.dumps with `indent`, but an array that was on one line (same key, same values)
    stays on one line, as it was written."""
    pad, inner = indent * depth, indent * (depth + 1)
    if isinstance(value, dict) and value:
        items = []
        for key, item in value.items():
            kept = (
                inline.get((key, json.dumps(item, sort_keys=True)))
                if isinstance(item, list)
                else None
            )
            shown = kept if kept is not None else _dump(item, indent, inline, depth + 1)
            items.append(f"{inner}{json.dumps(key, ensure_ascii=False)}: {shown}")
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value:
        items = [f"{inner}{_dump(item, indent, inline, depth + 1)}" for item in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def _handler_keys(groups: Any) -> set[tuple[str, str]]:
    """(matcher, handler) of every handler in these groups, for telling a copy from a hook."""
    keys = set()
    for group in groups if isinstance(groups, list) else ():
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler in handlers if isinstance(handlers, list) else ():
            matcher = str(group.get("matcher") or "")
            keys.add((matcher, json.dumps(handler, sort_keys=True, default=str)))
    return keys


def new_groups_only(groups: list[Any], present: Any) -> list[Any]:
    """`groups` without the handlers `present` already holds under the same matcher (a hook
    moved once, put back by a revert of the settings file and moved again, goes in once)."""
    seen = _handler_keys(present)
    out = []
    for group in groups:
        matcher = str(group.get("matcher") or "")
        fresh = []
        for handler in group["hooks"]:
            key = (matcher, json.dumps(handler, sort_keys=True, default=str))
            if key not in seen:  # a copy within `groups` is the user's own: kept
                fresh.append(handler)
        if fresh:
            out.append({**group, "hooks": fresh})
    return out
