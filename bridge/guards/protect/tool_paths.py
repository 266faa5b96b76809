"""The paths a tool ccbridge does not know names: an MCP server's `write_file`, Cursor's
`Delete` and `TabWrite`, a tool a new Claude Code version adds. Such a tool runs outside the
Bash sandbox (an MCP server is its own process, the wall's `Edit` deny rules name CC's file
tools only), so its input is the one place to judge it.

A shell command line in the input (`command`, `cmd`, `script`, …: bridge.shell.tool_command)
is judged by both guards as a Bash command first.

Every string of the input that could be a path (one line, not too long, not under a key that
holds content) is matched against the protected paths. A tool whose name says it writes
(`write`, `edit`, `delete`, `move`, …) is denied, also for the directory that holds a protected
file (a copy into it); deleting or moving reaches everything below the named directory. Any
other tool naming a protected path is a question for the user under self-protection (it may
only read, but nothing tells), and passes the secrets guard, which denies only what it knows.
"""

from __future__ import annotations

import re

# `_collections_abc`, not `collections.abc`: the hot path, docs/architecture.md.
from _collections_abc import Mapping

from bridge.guards.protect import ANY_ABOVE, NOT_ABOVE, PARENT_ABOVE
from bridge.pipeline import Ask
from bridge.wire import READ_ONLY_TOOLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from bridge.guards.protect.entries import Protection
    from bridge.pipeline import Execution

# The words of a tool's name that say it changes files (`mcp__fs__write_file`, `TabWrite`,
# `ApplyAgentDiff`), and those that say it removes or moves them (`Delete`, `moveFile`).
_WRITES = frozenset(
    {
        *("write", "overwrite", "rewrite", "edit", "editor", "create", "save", "put", "patch"),
        *("apply", "append", "replace", "insert", "update", "upsert", "set", "upload", "copy"),
        *("cp", "touch", "mkdir", "chmod", "chown", "truncate", "store"),
    }
)
_REMOVES = frozenset({"delete", "remove", "rm", "rmdir", "unlink", "move", "mv", "rename"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
# Keys whose values are what is written or searched for, not where: a path in a file's content
# is not a file the call writes.
_CONTENT_KEYS = frozenset(
    {
        *("content", "contents", "text", "body", "data", "code", "new_string", "old_string"),
        *("new_text", "old_text", "newText", "oldText", "message", "description", "query"),
        *("pattern", "prompt", "replacement", "search", "diff", "patch"),
    }
)
_MAX_STRINGS = 256  # strings looked at per call: a huge input is judged in bounded time
_INPUT_DEPTH = 8  # levels of a tool input searched for strings that could be paths
_MAX_PATH = 4096


def judge(protection: Protection, execution: Execution, *, ask: bool) -> str | Ask | None:
    """The objection to a tool ccbridge does not know; `ask`: a tool that may only read but
    names a protected path is a question (self-protection), else it passes (the secrets guard)."""
    if execution.tool_name in READ_ONLY_TOOLS:
        return None
    name = execution.tool_name
    words = {word.lower() for word in _WORD.findall(name)}
    removes = bool(words & _REMOVES)
    writes = removes or bool(words & _WRITES)
    if not writes and not ask:
        return None
    strings: list[str] = []
    for text in _strings(execution.input, _INPUT_DEPTH):
        strings.append(text)
        if len(strings) > _MAX_STRINGS:
            break
    if len(strings) > _MAX_STRINGS:
        return Ask(
            f"{protection.label}: the {name} call holds more than {_MAX_STRINGS} strings; "
            "which paths it names is not looked at"
        )
    # Removing or moving a directory reaches all below it; writing into one, its direct contents.
    above = ANY_ABOVE if removes else PARENT_ABOVE if writes else NOT_ABOVE
    for text in strings:
        spec = protection.match(_as_path(text), execution.cwd, above=above)
        if spec is None:
            continue
        if writes:
            return (
                f"{protection.label}: {name} names {text}, which it may change (matches {spec!r})"
            )
        return Ask(
            f"{protection.label}: {name} names {text} (matches {spec!r}); ccbridge does not "
            "know whether this tool only reads"
        )
    return None


def _as_path(text: str) -> str:
    """A `file:` URI as the path it names (MCP servers take both)."""
    if not text.startswith("file:"):
        return text
    from urllib.parse import unquote, urlsplit

    try:
        parts = urlsplit(text)
    except ValueError:  # `file://[`: no URI at all, judged as the text it is
        return text
    return unquote(parts.path) if parts.netloc in ("", "localhost") else text


def _strings(value: object, depth: int) -> Iterator[str]:
    """The strings of a tool input that could be paths, keys excluded, at most `depth` deep."""
    if isinstance(value, str):
        if value and len(value) <= _MAX_PATH and "\n" not in value and "\0" not in value:
            yield value
    elif depth and isinstance(value, Mapping):
        for key, item in value.items():
            if key not in _CONTENT_KEYS:
                yield from _strings(item, depth - 1)
    elif depth and isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, depth - 1)
