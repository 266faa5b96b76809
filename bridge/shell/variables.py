"""Variables a command line gives literal values itself: `x=rm; $x -rf /` is `rm -rf /`.

Only names whose every assignment in the line is literal are put in (one set to anything computed
or read stays unknown); a name with several values (`for d in build dist`, or set twice) gives
one variant per value, and each variant is judged, so the result is what bash could run, never
a guess. The values go into the source text as bash expands them, never as syntax: an unquoted
`$x` becomes one quoted word per field of its value (split at blanks; `c=' #'; true $c` is
`true '#'`, not a comment), a quoted `"$x"` one word, and `'$x'` stays as it is.
"""

from __future__ import annotations

from itertools import product

from bridge.shell import Lazy
from bridge.shell.syntax import Script, Unparseable, parse

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
    variants = [parse(put_in(source, chosen)) for chosen in combinations]
    if any(isinstance(variant, Unparseable) for variant in variants):
        return [script]
    return [variant for variant in variants if isinstance(variant, Script)]


_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME = _NAME_START | frozenset("0123456789")
_GLOB_CHARS = frozenset("*?[]")
_BEFORE_COMMENT = frozenset({"", " ", "\t", "\n", ";", "&", "|", "("})


def put_in(source: str, chosen: dict[str, str]) -> str:
    """`source` with `$name` and `${name}` of the chosen variables expanded as bash expands
    them: outside quotes each field of the value a word of its own, quoted so that nothing in
    it is syntax (glob characters stay active, as bash globs the fields); inside double quotes
    the value escaped for them; inside single quotes, `$'...'`, comments and arithmetic
    nothing. In a here-document's body the value goes in as it is (nothing at all where the
    delimiter is quoted, or the value holds a newline, which would end the body's line)."""
    out: list[str] = []
    # Contexts: "" plain, '"' double quotes; a `$(`/backquote inside quotes starts plain text.
    stack: list[str] = [""]
    heredocs: list[tuple[str, bool, bool]] = []  # delimiter, quoted, `<<-`: bodies to come
    i, n = 0, len(source)
    while i < n:
        c, context = source[i], stack[-1]
        plain = context != '"'
        if c == "\\":
            out.append(source[i : i + 2])
            i += 2
        elif plain and c in "'$(" and (end := _verbatim_end(source, i)) > i:
            out.append(source[i:end])
            i = end
        elif plain and c == "<" and source.startswith("<<", i) and source[i + 2 : i + 3] != "<":
            from bridge.shell import here_documents  # (few lines have one: not on every call)

            end, heredoc = here_documents.start(source, i)
            out.append(source[i:end])
            heredocs += [heredoc] if heredoc else []
            i = end
        elif c == "\n" and heredocs:
            from bridge.shell import here_documents

            out.append(c)
            i = here_documents.put_in_bodies(source, i + 1, heredocs, chosen, out)
            heredocs = []
        elif plain and c == "#" and (not out or out[-1][-1:] in _BEFORE_COMMENT):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(source[i:end])
            i = end
        elif c == '"':
            if not plain:
                stack.pop()
            else:
                stack.append('"')
            out.append(c)
            i += 1
        elif source.startswith("$(", i) and not source.startswith("$((", i):
            stack.append("(")
            out.append("$(")
            i += 2
        elif c in "()" and context == "(":
            if c == "(":
                stack.append(c)
            else:
                stack.pop()
            out.append(c)
            i += 1
        elif c == "$" and i + 1 < n and (source[i + 1] in _NAME_START or source[i + 1] == "{"):
            value, end = _reference(source, i, chosen)
            if value is None:
                out.append(source[i:end])
            else:
                out.append(_fields(value) if plain else _quoted_value(value))
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _verbatim_end(source: str, i: int) -> int:
    """Past a `'...'`, `$'...'` or arithmetic `((...))` starting at `i`, where nothing is put
    in (in arithmetic `<<` is a shift, and values stay unknown); `i` where none starts."""
    if source.startswith("'", i):
        end = source.find("'", i + 1)
        return len(source) if end < 0 else end + 1
    if source.startswith("$'", i):
        j = i + 2
        while j < len(source) and source[j] != "'":
            j += 2 if source[j] == "\\" else 1
        return j + 1
    if source.startswith("((", i):
        depth, j = 0, i
        while j < len(source):
            depth += (source[j] == "(") - (source[j] == ")")
            j += 1
            if depth == 0:
                break
        return j
    return i


def _reference(text: str, i: int, chosen: dict[str, str]) -> tuple[str | None, int]:
    """The chosen value the `$name` or `${name}` at `i` stands for, and where it ends; for a
    variable not chosen None, and where its name ends."""
    braced = text[i + 1] == "{"
    start = end = i + 2 if braced else i + 1
    while end < len(text) and text[end] in _NAME:
        end += 1
    if text[start:end] in chosen and (not braced or text.startswith("}", end)):
        return chosen[text[start:end]], end + braced
    return None, end


def _quoted_value(value: str) -> str:
    return "".join("\\" + c if c in '\\$`"' else c for c in value)


def _fields(value: str) -> str:
    """An unquoted expansion's fields as words: each quoted but for its glob characters."""
    fields = value.split()  # no field (empty or blank): the word goes, as in bash
    return " ".join(_quote_field(field) for field in fields)


def _quote_field(field: str) -> str:
    parts: list[str] = []
    literal: list[str] = []
    for c in field:
        if c in _GLOB_CHARS:
            if literal:
                parts.append("'" + "".join(literal).replace("'", "'\\''") + "'")
                literal = []
            parts.append(c)
        else:
            literal.append(c)
    if literal:
        parts.append("'" + "".join(literal).replace("'", "'\\''") + "'")
    return "".join(parts)
