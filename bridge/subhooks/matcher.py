"""Claude Code's matcher rules, exactly: which tool names a matcher group applies to."""

from __future__ import annotations

from bridge import CcbridgeError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Callable

# What a list of exact names is made of (plus whitespace, as `\s` of a regex): plain string
# checks, so the usual matchers (`Bash`, `Edit|Write`) never import `re` on a hook call.
_EXACT_LIST_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-,|")
_compiled: dict[str | None, Callable[[str], bool]] = {}  # one per matcher of the config


class MatcherError(CcbridgeError):
    pass


def compile_matcher(matcher: str | None) -> Callable[[str], bool]:
    """Omitted, "" or "*" match every tool; letters, digits, `_`, `-`, spaces, `,` and `|` make a
    list of exact names; anything else is an unanchored, case-sensitive regex (as in CC's
    JavaScript, `Edit.*` also matches `NotebookEdit`)."""
    found = _compiled.get(matcher)
    if found is None:
        found = _compiled[matcher] = _compile(matcher)
    return found


def _compile(matcher: str | None) -> Callable[[str], bool]:
    if matcher is None or matcher.strip() in ("", "*"):
        return lambda _name: True
    if all(char in _EXACT_LIST_CHARS or char.isspace() for char in matcher):
        parts = matcher.replace("|", ",").split(",")
        names = frozenset(part.strip() for part in parts if part.strip())
        return names.__contains__
    import re  # a regex matcher: the rare case

    try:
        pattern = re.compile(matcher)
    except re.error as error:
        raise MatcherError(
            f"matcher {matcher!r} is not a valid regular expression: {error}"
        ) from None
    return lambda name: pattern.search(name) is not None


def matches(matcher: str | None, tool_name: str) -> bool:
    return compile_matcher(matcher)(tool_name)
