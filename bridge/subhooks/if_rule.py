"""The `if` field of a CC handler: a permission-rule pattern such as `Bash(git *)` or
`Edit(src/**)`, narrowing when the handler runs below what the matcher already selected."""

from __future__ import annotations

import os
import re
from fnmatch import fnmatchcase

from bridge import CcbridgeError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping
    from typing import Any

_RULE = re.compile(r"\s*([A-Za-z0-9_\-]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
_PATH_KEYS = ("file_path", "notebook_path", "path")


class IfRuleError(CcbridgeError):
    pass


def parse(rule: str) -> tuple[str, str | None]:
    found = _RULE.fullmatch(rule)
    if found is None:
        raise IfRuleError(f"`if` rule {rule!r} must look like Tool or Tool(pattern)")
    return found.group(1), found.group(2)


def _bash_matches(pattern: str, command: str) -> bool:
    from bridge.shell.syntax import Unparseable, parse

    if pattern.endswith(":*"):  # legacy prefix form, `git:*`
        pattern = pattern[:-2] + "*"
    script = parse(command)
    if isinstance(script, Unparseable):
        return True  # cannot tell: run the hook rather than skip a check
    # Each subcommand on its own, wrappers (sudo, env, timeout ...) stripped, as CC does. The
    # parser puts the home directory in for `~`, so the pattern's `~` is put in too; a command
    # whose name is only known when it runs could be any: the hook runs.
    home = re.sub(r"(^|\s)~(?=/|\s|$)", lambda m: m[1] + os.path.expanduser("~"), pattern)
    return any(
        0 in simple.dynamic
        or fnmatchcase(" ".join(simple.argv), pattern)
        or fnmatchcase(" ".join(simple.argv), home)
        for simple in script.commands()
    )


def if_matches(rule: str | None, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
    if rule is None:
        return True
    name, pattern = parse(rule)
    if name != tool_name:
        return False
    if pattern is None or pattern in ("", "*"):
        return True
    if tool_name == "Bash":
        return _bash_matches(pattern, str(tool_input.get("command", "")))
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            return fnmatchcase(value, pattern) or fnmatchcase(value, f"*/{pattern}")
    url = tool_input.get("url")
    if isinstance(url, str) and pattern.startswith("domain:"):
        host = _host(url)
        return host is None or fnmatchcase(host, pattern.removeprefix("domain:").lower())
    return True


def _host(url: str) -> str | None:
    """The URL's host name, lower-case, without user, password or port; None when the URL
    cannot be read (then the hook runs rather than a check being skipped)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url if "//" in url else f"//{url}")  # CC also fetches `host/path`
    except ValueError:  # e.g. an unclosed `[` of an IPv6 address
        return None
    return parts.hostname
