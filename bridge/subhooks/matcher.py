"""Claude Code's matcher rules, exactly: which tool names a matcher group applies to."""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` is not imported on a hook call
    from collections.abc import Callable

_EXACT_LIST = re.compile(r"[A-Za-z0-9_\-\s,|]+")
_SPLIT = re.compile(r"[|,]")


class MatcherError(ValueError):
    pass


@lru_cache(maxsize=256)
def compile_matcher(matcher: str | None) -> Callable[[str], bool]:
    """Omitted, "" or "*" match every tool; letters, digits, `_`, `-`, spaces, `,` and `|` make a
    list of exact names; anything else is an unanchored, case-sensitive regex (as in CC's
    JavaScript, `Edit.*` also matches `NotebookEdit`)."""
    if matcher is None or matcher.strip() in ("", "*"):
        return lambda _name: True
    if _EXACT_LIST.fullmatch(matcher):
        names = frozenset(part.strip() for part in _SPLIT.split(matcher) if part.strip())
        return names.__contains__
    try:
        pattern = re.compile(matcher)
    except re.error as error:
        raise MatcherError(
            f"matcher {matcher!r} is not a valid regular expression: {error}"
        ) from None
    return lambda name: pattern.search(name) is not None


def matches(matcher: str | None, tool_name: str) -> bool:
    return compile_matcher(matcher)(tool_name)
