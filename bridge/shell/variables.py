"""Variables a command line gives literal values itself: `x=rm; $x -rf /` is `rm -rf /`.

Only names whose every assignment in the line is literal are put in (one set to anything computed
or read stays unknown); a name with several values (`for d in build dist`, or set twice) gives
one variant per value, and each variant is judged, so the result is what bash could run, never
a guess. The values go into the source text and the line is parsed again, so an
unquoted `$x` splits into words as bash splits it.
"""

from __future__ import annotations

from itertools import product

from bridge.shell.lazyre import Lazy
from bridge.shell.syntax import Script, Unparseable, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_ASSIGNMENT = Lazy(r"(?s)([A-Za-z_][A-Za-z0-9_]*)=(.*)")
_DECLARERS = frozenset({"export", "local", "declare", "readonly", "typeset"})
# `d=$(mktemp -d)` names a new file or directory under /tmp, never one that exists already:
# it stands in as such a path, so `rm -rf "$d"` passes and `rm -rf "$d/.."` does not.
_FRESH = Lazy(r"\$\(\s*mktemp\b[^()`$;|&]*\)|`\s*mktemp\b[^`$;|&]*`")
_FRESH_STAND_IN = "/tmp/tmp.mktemp"
MAX_VARIANTS = 16  # more combinations than this: the variables stay unknown
_DYNAMIC = frozenset("$`*?[")


def with_literal_values(script: Script, source: str) -> list[Script]:
    """The script once per combination of its literal variable values, or the script itself."""
    values: dict[str, set[str]] = {}
    for command in script.commands():
        words = command.words if not command.argv else ()
        if command.argv and command.argv[0] in _DECLARERS:
            words = command.argv[1:]
        for word in words:
            if found := _ASSIGNMENT.fullmatch(word):
                value = _FRESH_STAND_IN if _FRESH.fullmatch(found[2]) else found[2]
                values.setdefault(found[1], set()).add(value)
        argv = command.argv
        if argv[:1] == ("for",) and argv[2:3] == ("in",):  # each word is a value in turn
            static = not any(i >= 3 for i in command.dynamic)
            values.setdefault(argv[1], set()).update(argv[3:] if static else ["$"])
        elif argv[:1] == ("read",):
            for name in argv[1:]:
                values.setdefault(name, set()).add("$")
    known = {
        name: sorted(found)
        for name, found in values.items()
        if found and all(_DYNAMIC.isdisjoint(value) for value in found)
    }
    combinations = [dict(zip(known, chosen, strict=True)) for chosen in product(*known.values())]
    if not known or len(combinations) > MAX_VARIANTS:
        return [script]
    import re  # only a script that sets variables comes this far

    names = "|".join(map(re.escape, known))
    pattern = re.compile(rf"\$(?:\{{({names})\}}|({names})\b)")
    variants = [parse(_put_in(pattern, source, chosen)) for chosen in combinations]
    if any(isinstance(variant, Unparseable) for variant in variants):
        return [script]
    return [variant for variant in variants if isinstance(variant, Script)]


def _put_in(pattern: re.Pattern[str], source: str, chosen: dict[str, str]) -> str:
    return pattern.sub(lambda found: chosen[found[1] or found[2]], source)
