"""Here-documents in a command line's source text, for bridge.shell.variables: where one
starts, and its body with the line's literal values put in as bash expands a body (the value as
it is: no fields, no quotes), or left as written where the delimiter is quoted."""

from __future__ import annotations

from bridge.shell import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# A backslash escape (`\$x` is a literal `$x`), `${name}` or `$name`.
_REFERENCE = Lazy(r"\\.|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")

Heredoc = tuple[str, bool, bool]  # delimiter, quoted, `<<-` (leading tabs stripped)


def start(source: str, i: int) -> tuple[int, Heredoc | None]:
    """Past `<<DELIM` (or `<<-`) at `i`: where it ends, and (delimiter, quoted, tabs stripped)."""
    j = i + 2
    strip = source.startswith("-", j)
    j += strip
    while j < len(source) and source[j] in " \t":
        j += 1
    begin = j
    while j < len(source) and source[j] not in " \t\n;&|<>()":
        j += 2 if source[j] == "\\" else 1
    word = source[begin:j]
    if not word:
        return j, None
    delimiter = word.replace("\\", "").replace("'", "").replace('"', "")
    return j, (delimiter, delimiter != word, strip)


def put_in_bodies(
    source: str, i: int, heredocs: list[Heredoc], chosen: dict[str, str], out: list[str]
) -> int:
    """The bodies from `i`, each to its delimiter line, into `out`, the chosen values put in
    unless the delimiter was quoted. Returns where the text after them starts."""
    for delimiter, quoted, strip in heredocs:
        while i < len(source):
            end = source.find("\n", i)
            end = len(source) if end < 0 else end + 1
            line = source[i:end]
            i = end
            if (line.lstrip("\t") if strip else line).rstrip("\n") == delimiter:
                out.append(line)
                break
            out.append(line if quoted else _put_in_line(line, chosen))
    return i


def _put_in_line(line: str, chosen: dict[str, str]) -> str:
    def value(found: re.Match[str]) -> str:
        name = found[1] or found[2]
        if name not in chosen or "\n" in chosen[name]:  # a newline would end the line
            return found[0]
        return chosen[name]

    return _REFERENCE.sub(value, line)
