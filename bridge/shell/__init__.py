"""The shell reader: Bash command lines read the way bash reads them, without running anything.

`syntax` (lexer, parser, word expansion), `runners` (wrappers, interpreters and the code a
command hands on), `variables` (literal values of shell variables), `finds` (what a `find` line
does), `inline_code` (what literal interpreter code does).

The package itself holds what all of them and the guards use: regular expressions compiled on
first use (`Lazy`), a wildcard match without `re` (`fnmatchcase`), and the name and assignment
tests and `pairs` that `syntax` and `runners` share. Here rather than in a module
of their own, which every Bash call would import (a module costs an import; the package is
imported anyway). A plain command (`git status`) never meets most of the policies' patterns, and
importing `re` (with `enum`) and compiling them at import cost every hook call milliseconds.
Flags go inline in the source (`(?s)`, `(?m)`), so defining a pattern needs no `re` either.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterator, Sequence
    from typing import TypeVar

    T = TypeVar("T")


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


# Plain string code, not `re`, for what every command meets (see bridge.shell).
NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
NAME_CHARS = NAME_START | frozenset("0123456789")


def name_end(s: str, i: int) -> int:
    """The end of the run of name characters ([A-Za-z0-9_]) at `i`."""
    while i < len(s) and s[i] in NAME_CHARS:
        i += 1
    return i


def is_assignment(text: str) -> bool:
    """`name=`, `name+=`, `name[index]=` ... starts `text`."""
    if not text or text[0] not in NAME_START:
        return False
    i = name_end(text, 1)
    if text.startswith("[", i):
        close = text.find("]", i + 1)
        if close < 0:
            return False
        i = close + 1
    i += text.startswith("+", i)
    return text.startswith("=", i)


def pairs(items: "Sequence[T]") -> "Iterator[tuple[T, T]]":
    """Each item with the next: `itertools.pairwise` of a sequence, without importing
    itertools (a third of a millisecond) on every hook call."""
    return zip(items, items[1:], strict=False)  # noqa: RUF007
