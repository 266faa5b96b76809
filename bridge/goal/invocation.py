"""Whether a Bash command is a goal invocation: the one check every Bash call with goals on
pays, so it imports nothing but `re` and is one anchored match.

Only a command that starts with `ccbridge goal`, a path ending in /ccbridge, or
`python -m bridge goal` is judged. Anything else changes no goal: nothing is judged for it, so
nothing can be applied.
"""

from __future__ import annotations

import re

_GOAL_START = re.compile(
    r"[ \t]*(?:[^ \t\n]*/)?(?:ccbridge|python[0-9.]*[ \t]+-m[ \t]+bridge)[ \t]+goal(?:[ \t\n]|$)"
)


def starts_with_goal(command: str) -> bool:
    return _GOAL_START.match(command) is not None
