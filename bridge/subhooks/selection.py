"""Which configured handlers run for one tool call: CC's matcher and `if` rules, and identical
handlers once, with their strictest settings."""

from __future__ import annotations

from bridge.subhooks.matcher import matches
from bridge.subhooks.spec import HookSpec, merged

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Mapping, Sequence
    from typing import Any


def select(
    hooks: Sequence[HookSpec], tool_name: str, tool_input: Mapping[str, Any]
) -> list[tuple[HookSpec, bool]]:
    """Every hook with whether it runs, in config order. The first matching copy of identical
    handlers stands for all of them (merged); the other copies are listed as not run."""
    hits = [
        matches(hook.matcher, tool_name)
        and (hook.if_rule is None or _if_matches(hook.if_rule, tool_name, tool_input))
        for hook in hooks
    ]
    copies: dict[tuple[Any, ...], list[int]] = {}
    for index, hook in enumerate(hooks):
        if hits[index]:
            copies.setdefault(hook.identity, []).append(index)
    chosen = [(hook, False) for hook in hooks]
    for first, *others in copies.values():
        copy = hooks[first]  # one alone is as it was configured
        chosen[first] = (
            merged([copy, *(hooks[index] for index in others)]) if others else copy,
            True,
        )
    return chosen


def _if_matches(rule: str, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
    from bridge.subhooks.if_rule import if_matches  # `re` and the shell parser: only for an `if`

    return if_matches(rule, tool_name, tool_input)
