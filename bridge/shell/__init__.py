"""The shell reader: Bash command lines read the way bash reads them, without running anything.

`syntax` (lexer, parser, word expansion, wrapper and interpreter tables), `variables` (literal
values of shell variables), `finds` (what a `find` line does), `code` (what literal interpreter
code does).

The package itself holds what all of them and the guards use: regular expressions compiled on
first use (`Lazy`) and a wildcard match without `re` (`fnmatchcase`). Here rather than in a module
of their own, which every Bash call would import (a module costs an import; the package is
imported anyway). A plain command (`git status`) never meets most of the policies' patterns, and
importing `re` (with `enum`) and compiling them at import cost every hook call milliseconds.
Flags go inline in the source (`(?s)`, `(?m)`), so defining a pattern needs no `re` either.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator


class Lazy:
    """The `re.Pattern` methods the policies use, compiling `source` the first time."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> "re.Pattern[str]":
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source)
        return self._compiled

    def match(self, text: str, pos: int = 0) -> "re.Match[str] | None":
        return self.compiled.match(text, pos)

    def fullmatch(self, text: str) -> "re.Match[str] | None":
        return self.compiled.fullmatch(text)

    def search(self, text: str) -> "re.Match[str] | None":
        return self.compiled.search(text)

    def finditer(self, text: str) -> "Iterator[re.Match[str]]":
        return self.compiled.finditer(text)

    def split(self, text: str) -> "list[str]":
        return self.compiled.split(text)

    def sub(self, replacement: "str | Callable[[re.Match[str]], str]", text: str) -> str:
        return self.compiled.sub(replacement, text)


def fnmatchcase(name: str, pattern: str) -> bool:
    """`fnmatch.fnmatchcase`, without `re` for a pattern that has no `[` (a set)."""
    if "[" in pattern:
        from fnmatch import fnmatchcase as compiled

        return compiled(name, pattern)
    # `*` and `?` only: the usual wildcard walk, going back to the last `*` on a mismatch.
    n = p = 0
    star, resume = -1, 0
    while n < len(name):
        if p < len(pattern) and pattern[p] == "*":
            star, resume, p = p, n, p + 1
        elif p < len(pattern) and pattern[p] in ("?", name[n]):
            n, p = n + 1, p + 1
        elif star >= 0:
            resume += 1
            n, p = resume, star + 1
        else:
            return False
    return pattern[p:].strip("*") == ""
