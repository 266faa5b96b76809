"""Reading `find`'s command line: its starting points, its tests and the commands it runs."""

from __future__ import annotations

import posixpath
from itertools import pairwise

from bridge.shell import fnmatchcase

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def found_by(expression: tuple[str, ...], start: str, base: str) -> Callable[[str], bool]:
    """Whether find, given `expression`, could list a path: its `-name`/`-path` tests must all
    match, and `-empty` never lists a directory that matters. With `-o`, `!` or `-not` the tests
    are not read (anything may be listed)."""
    if any(word in ("-o", "-or", ",", "!", "-not") for word in expression):
        return lambda path: True
    tests = list(pairwise(expression))

    def listed(path: str) -> bool:
        shown = start.rstrip("/") + path[len(base.rstrip("/")) :]
        name = posixpath.basename(path)
        return "-empty" not in expression and all(
            (test != "-name" or fnmatchcase(name, pattern))
            and (test != "-iname" or fnmatchcase(name.lower(), pattern.lower()))
            and (test not in ("-path", "-wholename") or fnmatchcase(shown, pattern))
            for test, pattern in tests
        )

    return listed


# Primaries that take a value (`-gid -delete` tests for the group named "-delete"), by how many.
_WITH_VALUE = dict.fromkeys(
    (
        *("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex"),
        *("-iregex", "-regextype", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm"),
        *("-size", "-atime", "-ctime", "-mtime", "-amin", "-cmin", "-mmin", "-used", "-newer"),
        *("-anewer", "-cnewer", "-inum", "-links", "-samefile", "-maxdepth", "-mindepth"),
        *("-fstype", "-lname", "-ilname", "-printf", "-fprint", "-fprint0", "-fls", "-context"),
    ),
    1,
) | {"-fprintf": 2}


_WRAPPERS = frozenset({"sudo", "env", "command", "busybox", "toybox", "nice", "nohup", "doas"})


def actions(expression: tuple[str, ...]) -> tuple[list[str], set[str]]:
    """find's expression without the commands it runs (`-exec CMD ... ;`), and their names."""
    tests: list[str] = []
    executed: set[str] = set()
    running = False
    values = 0  # words still to come that are a primary's value, not a primary
    wrapped = False  # the command run so far is a wrapper of the next word
    for previous, word in pairwise(("", *expression)):
        if values:  # a primary's value, not a primary
            values -= 1
            continue
        if running:
            running = not (word == ";" or (word == "+" and previous == "{}"))
        elif word in ("-exec", "-execdir", "-ok", "-okdir"):
            running = True
        else:
            tests.append(word)
            newer_xy = word.startswith("-newer") and len(word) == 8  # `-newermt DATE`
            values = _WITH_VALUE.get(word, 0) or int(newer_xy)
        if previous in ("-exec", "-execdir", "-ok", "-okdir"):
            executed.add(posixpath.basename(word))
            wrapped = posixpath.basename(word) in _WRAPPERS
        elif running and wrapped and not word.startswith("-") and "=" not in word:
            executed.add(posixpath.basename(word))  # `-exec sudo rm {} ;` runs rm
            wrapped = posixpath.basename(word) in _WRAPPERS
    return tests, executed


def starts(argv: tuple[str, ...]) -> tuple[int, int]:
    """Where find's starting points begin and end: after its own options (`-L`, `-D debug`,
    `-O3`), before the expression (`-name`, `(`, `!`)."""
    i = 1
    while i < len(argv) and (argv[i] in ("-H", "-L", "-P") or argv[i][:2] in ("-D", "-O")):
        i += 2 if argv[i] in ("-D", "-O") else 1
    start = i
    while i < len(argv) and not argv[i].startswith(("-", "(", "!", ")", ",")):
        i += 1
    return start, i
