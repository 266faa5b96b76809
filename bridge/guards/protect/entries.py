"""What a protected path is: entries (a path or a glob, `~` expanded, anchored or matching at
any depth) and matching a path a tool or a command names against them, wherever it may run.

Shared by both guards of bridge.guards.protect.protect_paths and by the judgement of tools
ccbridge does not know (bridge.guards.protect.tool_paths).
"""

import os
import posixpath

from bridge.guards.protect import NOT_ABOVE
from bridge.pipeline.valueclass import Record
from bridge.shell import fnmatchcase
from bridge.shell.syntax import expand_home

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterator, Sequence

    Path = str | os.PathLike[str]

GLOB_CHARS = frozenset("*?[")
# The words that make a `.env.*` file a template the project ships (`.env.example`,
# `.env.local.sample`), not a secret: a glob such as `.env.*` does not protect it (an entry
# naming it exactly does).
TEMPLATE_WORDS = frozenset({"example", "sample", "template", "dist", "defaults"})
_MAX_GLOB_MATCHES = 1000
_MAX_GLOB_ENTRIES = 20_000  # directory entries one glob may read


def is_template(name: str) -> bool:
    """`.env.example`, `.env.local.sample`: an env file's template, no secret."""
    words = name.split(".")
    return name.startswith(".env.") and not TEMPLATE_WORDS.isdisjoint(words[2:])


class Entry(Record, frozen=True, slots=True):
    spec: str  # as configured
    parts: "tuple[str, ...]"  # components of the pattern, `~` expanded
    anchored: bool
    literal: "tuple[str, ...] | None" = None  # an anchored plain path: its parts, matched fast

    def protects(self, parts: "tuple[str, ...]") -> bool:
        """Whether a path (absolute components) is this entry or lies under it."""
        if self.literal is not None:
            return parts[: len(self.literal)] == self.literal
        lead = () if self.anchored else ("**",)
        return _match((*lead, *self.parts, "**"), parts)

    def spares(self, parts: "tuple[str, ...]") -> bool:
        """Whether the path is an env template this entry only matches as a glob."""
        return bool(parts) and is_template(parts[-1]) and parts[-1] not in self.parts

    def beneath(self, parts: "tuple[str, ...]", levels: int) -> bool:
        """Whether this entry lies at most `levels` below the directory `parts` (absolute)."""
        own = self.parts[:-1] if self.parts[-1:] == ("**",) else self.parts
        if self.literal is not None:
            return len(own) - levels <= len(parts) < len(own) and own[: len(parts)] == parts
        if self.anchored:
            lowest = max(0, len(own) - levels)
            return any(_match(own[:k], parts) for k in range(lowest, len(own)))
        return any(  # `**/.claude/x` lies below any directory named `.claude`
            _match(("**", *own[:k]), parts)
            for k in range(max(1, len(own) - levels), len(own))
            if set(own[:k]) != {"**"}
        )

    def could_end_with(self, parts: "tuple[str, ...]") -> bool:
        """Whether a relative path of unknown base could name this entry (or a file in it)."""
        return any(
            _match((*self.parts[start:], "**"), parts)
            for start in range(len(self.parts))
            if set(self.parts[start:]) != {"**"}  # a bare `**` tail would fit any path
        )

    def could_hold(self, parts: "tuple[str, ...]", levels: int) -> bool:
        """Whether a relative path of unknown base could name a directory at most `levels`
        above this entry (`cd ~/.local && rm -rf state`)."""
        own = self.parts[:-1] if self.parts[-1:] == ("**",) else self.parts
        return any(
            _match(own[start:end], parts)
            for start in range(len(own))
            for end in range(max(start + 1, len(own) - levels), len(own))
            if set(own[start:end]) != {"**"}  # a bare `**` would fit any directory
        )

    def named(self, pattern: str, *, inside: bool = True) -> bool:
        """Whether a file name pattern (`find -name`) could match this entry or a directory
        holding it (or, `inside`, a file in an entry that is a directory)."""
        if inside and self.parts[-1:] == ("**",):
            return True
        return any(  # a directory on the way matched: `-exec rm -rf {} +` takes all below it
            fnmatchcase(part, pattern) or fnmatchcase(pattern, part)
            for part in self.parts
            if part != "**"
        )


def _match(pattern: "tuple[str, ...]", parts: "tuple[str, ...]") -> bool:
    """Whether path components match glob components (`**`: any number of them)."""
    reached = [True] + [False] * len(parts)  # reached[j]: the pattern so far matches parts[:j]
    for head in pattern:
        if head == "**":  # any number of components: reached from the first reached on
            first = reached.index(True) if True in reached else len(reached)
            reached = [False] * first + [True] * (len(reached) - first)
        else:
            reached = [False] + [
                reached[j] and fnmatchcase(part, head) for j, part in enumerate(parts)
            ]
    return reached[-1]


def split_path(path: str) -> "tuple[str, ...]":
    return tuple(part for part in posixpath.normpath(path).split("/") if part not in ("", "."))


def entries_of(spec: "str | Path", *, tree: bool) -> "Iterator[Entry]":
    text = expand_home(os.path.expanduser(str(spec)))
    anchored = text.startswith("/")
    tail = ("**",) if tree else ()  # a directory: any name inside it is protected
    if not anchored or not GLOB_CHARS.isdisjoint(text):
        yield Entry(str(spec), (*split_path(text), *tail), anchored)
        return
    yield Entry(str(spec), (*split_path(text), *tail), anchored=True, literal=split_path(text))
    real = real_path(text)  # a protected symlink: its target too
    if real is not None and split_path(real) != split_path(text):
        yield Entry(str(spec), (*split_path(real), *tail), anchored=True, literal=split_path(real))


def real_path(path: str) -> "str | None":
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # e.g. an embedded NUL: the literal form is still checked
        return None


class Protection:
    def __init__(
        self, paths: "Sequence[str | Path]", label: str, trees: "Sequence[Entry]" = ()
    ) -> None:
        """`paths` are protected with what lies below them; `trees` are ready-made entries."""
        self.paths, self.trees, self.label = tuple(paths), tuple(trees), label
        self._entries: tuple[Entry, ...] | None = None

    @property
    def entries(self) -> "tuple[Entry, ...]":
        """Built on first use: resolving every path (symlinks too) costs a call a millisecond,
        and a command that writes nothing (most are) never asks."""
        if self._entries is None:
            paths = (entry for spec in self.paths for entry in entries_of(spec, tree=False))
            self._entries = (*paths, *self.trees)
        return self._entries

    def match(
        self,
        path: str,
        cwd: str,
        *,
        shell_word: bool = False,
        unknown_base: bool = False,
        above: int = NOT_ABOVE,
        names: "tuple[str, ...]" = (),
    ) -> "str | None":
        """The protected entry `path` hits, resolved in `cwd` (a shell word: globs expanded);
        `above`: so does a directory at most that many levels above an entry."""
        path = expand_home(path)
        base = cwd if cwd.startswith("/") else os.getcwd()
        absolute = posixpath.join(base, path)
        forms: set[tuple[str, ...]] = set()
        matches = self._globbed(absolute) if shell_word else []
        for expanded in (absolute, *matches[:_MAX_GLOB_MATCHES]):
            forms |= {split_path(expanded), split_path(real_path(expanded) or expanded)}
        # More matches than are looked at: any of them, all below the glob's fixed part, may hit.
        crowded = _crowded(absolute, above) if len(matches) > _MAX_GLOB_MATCHES else []
        relative = split_path(path) if unknown_base and not path.startswith("/") else None
        while relative and relative[0] == "..":  # above an unknown directory: still unknown
            relative = relative[1:]
        for entry in self.entries:
            named = any(entry.named(name) for name in names)
            if not entry.anchored and any(entry.named(name, inside=False) for name in names):
                return entry.spec  # `find x -name .env -delete`
            below = above and (named or not names)
            if any(
                (entry.protects(form) and not entry.spares(form))
                or (below and entry.beneath(form, above))
                for form in forms
            ):
                return entry.spec
            if relative is not None and (
                (entry.could_end_with(relative) and not entry.spares(relative))
                or (below and entry.could_hold(relative, above))
            ):
                return entry.spec
            if any(entry.beneath(fixed, deep) for fixed, deep in crowded):
                return _Crowded(entry.spec)
        return None

    @staticmethod
    def _globbed(pattern: str) -> "list[str]":
        """What the shell expands a glob to now (the files it would touch exist), hidden names
        included; more than `_MAX_GLOB_MATCHES` (the caller then judges everything below the
        glob's fixed part) once the matches or the directory entries read pass a bound, so a
        deep glob over a large tree answers at once."""
        if GLOB_CHARS.isdisjoint(pattern):
            return []
        parts = pattern.split("/")
        found = ["/" if pattern.startswith("/") else ""]
        budget = _MAX_GLOB_ENTRIES
        for part in parts:
            if not part:
                continue
            if GLOB_CHARS.isdisjoint(part):
                found = [posixpath.join(f, part) for f in found]
                continue
            grown: list[str] = []
            for directory in found:
                try:
                    with os.scandir(directory or ".") as entries:
                        for entry in entries:
                            budget -= 1
                            if budget < 0:
                                return [pattern] * (_MAX_GLOB_MATCHES + 1)
                            if fnmatchcase(entry.name, part):
                                grown.append(posixpath.join(directory, entry.name))
                except (OSError, ValueError):
                    continue
            found = grown
            if len(found) > _MAX_GLOB_MATCHES:
                return found
        return [f for f in found if posixpath.lexists(f)]


class _Crowded(str):
    """An entry hit by a glob too large to expand: shown with the bound that was met."""

    __slots__ = ()

    def __repr__(self) -> str:
        return (
            f"{str.__repr__(self)} (a glob past {_MAX_GLOB_MATCHES} matches or "
            f"{_MAX_GLOB_ENTRIES} directory entries read counts as all below its fixed part)"
        )


def _crowded(pattern: str, above: int) -> "list[tuple[tuple[str, ...], int]]":
    """The directory a glob's matches lie in (its part without a glob, also as resolved), and
    how far below it they, and what they reach (`above`), go."""
    parts = split_path(pattern)
    fixed = next((i for i, part in enumerate(parts) if not GLOB_CHARS.isdisjoint(part)), len(parts))
    deep = len(parts) - fixed + above
    real = real_path("/" + "/".join(parts[:fixed])) or "/"
    return [(parts[:fixed], deep), (split_path(real), deep)]
