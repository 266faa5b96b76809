"""What a path operand of a destructive command can name, judged without touching the disk.

A static path is critical when it is `/`, a top-level system directory, the home directory,
the project directory, or a directory holding one of those. A word that is only known at run
time (`$X/build`, `"$(pwd)"`, `/h*`) is judged by what it could be: a glob by the critical
paths it could match, an expansion by its static prefix, which must lie inside the project.
"""

from __future__ import annotations

import os
import posixpath

from bridge.pipeline.valueclass import Record
from bridge.shell import fnmatchcase

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

SYSTEM_DIRS = frozenset(
    {
        *("/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32"),
        *("/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp"),
        *("/usr", "/var", "/Applications", "/Library", "/System", "/Users", "/Volumes"),
        "/private",
    }
)
_GLOB = "*?["
_EXPANSION = "$`<>"  # parameter, command and process substitution


class Place(Record, frozen=True, slots=True):
    """Where a command runs: its working directory and the project it belongs to.

    `cwd` is "" when the event named none (relative targets are then judged leniently) and
    None once a `cd` to somewhere unknown happened (relative targets are then unknown).
    """

    cwd: str | None
    project: str

    @classmethod
    def of(cls, cwd: str) -> Place:
        project = posixpath.normpath(os.environ.get("CLAUDE_PROJECT_DIR") or cwd or ".")
        known = project.startswith("/") and project != "/"  # `/` would make everything inside
        return cls(cwd, project if known else "")

    def moved(self, cwd: str | None) -> Place:
        return Place(cwd, self.project)


def home() -> str:
    return posixpath.normpath(os.path.expanduser("~"))


def _known_variables(word: str, place: Place) -> str:
    """`$HOME/x`, `${PWD}/x`, `$(pwd)/x`, `$CLAUDE_PROJECT_DIR/x` with the value put in."""
    values = {"HOME": home(), "PWD": place.cwd or "", "CLAUDE_PROJECT_DIR": place.project}
    for name, value in values.items():
        forms = (f"${name}", f"${{{name}}}", *(("$(pwd)", "`pwd`") if name == "PWD" else ()))
        for form in forms:
            if value and (word == form or word.startswith(form + "/")):
                return value + word[len(form) :]
    return word


def resolve(path: str, place: Place) -> str | None:
    """The absolute, normalised path, or None when it is relative to an unknown directory."""
    if not path.startswith("/"):
        if place.cwd is None:
            return None
        path = posixpath.join(place.cwd or ".", path)
    path = posixpath.normpath(path)
    return "/" + path.lstrip("/") if path.startswith("/") else path


def critical(path: str, place: Place) -> str | None:
    """What `path` (absolute and normalised) is if destroying it wrecks the machine or the work."""
    if path == "/":
        return "/, the root of the filesystem"
    if path == home():
        return f"{path}, your home directory"
    if path in SYSTEM_DIRS:
        return f"{path}, a top-level system directory"
    if path == place.project:
        return f"{path}, the project directory"
    if place.project and path == place.project + "/.git":
        return f"{path}, the project's repository: every commit, branch and stash not pushed"
    for precious, what in ((place.project, "the project"), (home(), "your home directory")):
        if precious and precious.startswith(path + "/"):
            return f"{path}, which holds {what}"
    return None


def _criticals(place: Place) -> list[str]:
    """Every path `critical` names, for matching globs against."""
    found = set(SYSTEM_DIRS) | ({place.project + "/.git"} if place.project else set())
    for precious in (home(), place.project):
        while precious not in ("", "/"):
            found.add(precious)
            precious = posixpath.dirname(precious)
    return sorted(found)


class Unknown(str):
    """Why a target cannot be told before the command runs (a reason, not a harm)."""


def beneath(base: str, place: Place, listed: Callable[[str], bool] | None = None) -> str | None:
    """The first critical path strictly below `base` (that `listed` accepts, if given): what a
    search of `base` may name."""
    inside = base.rstrip("/") + "/"
    for path in _criticals(place):
        if path.startswith(inside) and (listed is None or listed(path)):
            return critical(path, place)
    return None


def target(word: str, place: Place, dynamic: bool) -> str | None:
    """Why deleting (or re-owning) what `word` names is not allowed, else None."""
    word = _known_variables(word, place)
    if dynamic and any(c in word for c in _EXPANSION):
        return _expansion(word, place)
    if dynamic and any(c in word for c in _GLOB):
        return _glob(word, place)
    return _static(word, place)


def _static(word: str, place: Place) -> str | None:
    follows = word.endswith(("/", "/."))  # `rm -rf g/` deletes what a link g points to
    if word.endswith(("/*", "/.*")) or word in ("*", ".*"):  # everything inside it
        word = posixpath.dirname(word) or "."
        follows = True
    if not word.startswith("/") and not place.cwd:
        if set(posixpath.normpath(word).split("/")) == {".."}:
            return f"{word}, which climbs out of the working directory"
        if place.cwd is None:
            return Unknown(f"{word} is relative to a working directory that is not known")
        return None
    path = resolve(word, place)
    if not path:
        return None
    found = critical(path, place)
    if found is None and (real := _linked(path, follows=follows)) is not None:
        why = critical(real, place)
        return f"{word}, a link to {why}" if why else None
    return found


def _linked(path: str, *, follows: bool) -> str | None:
    """Where `path` really is when a symbolic link on it (made by an earlier call: `ln -s
    .git g`) leads elsewhere; the last one only if it is followed. None if nothing links."""
    head, name = posixpath.split(path)
    real = os.path.realpath(path) if follows else posixpath.join(os.path.realpath(head), name)
    return real if real != posixpath.normpath(path) else None


def _glob(word: str, place: Place) -> str | None:
    parts = word.split("/")
    first = next(i for i, part in enumerate(parts) if any(c in part for c in _GLOB))
    base = resolve("/".join(parts[:first]) or ("/" if word.startswith("/") else "."), place)
    if base is None:
        return Unknown(f"{word} is relative to a working directory that is not known")
    pattern = [p for p in parts[first:] if p]
    if pattern in (["*"], [".*"]):
        found = critical(base, place)
        if found is None and (real := _linked(base, follows=True)) is not None:
            why = critical(real, place)
            return f"{word}, inside a link to {why}" if why else None
        return found
    inside = base.rstrip("/") + "/"
    for path in _criticals(place):
        names = path[len(inside) :].split("/") if path.startswith(inside) else []
        deeper = pattern[len(names) :]  # at most a trailing `*`: everything inside the match
        if (
            names
            and len(pattern) >= len(names)
            and deeper in ([], ["*"], [".*"])
            and all(fnmatchcase(n, p) for n, p in zip(names, pattern, strict=False))
        ):
            return f"{word}, which can match {critical(path, place) or path}"
    return None


def _expansion(word: str, place: Place) -> str | None:
    cut = min(word.index(c) for c in _EXPANSION if c in word)
    prefix = word[:cut]
    unknown = Unknown(
        f"{word} is only known when the command runs, and its known part is not inside the project"
    )
    if "/" not in prefix:
        if prefix in ("", ".", "..") or place.cwd is None:
            return unknown
        return None if _inside(place.cwd or "", place, strictly=False) else unknown
    base = resolve(prefix[: prefix.rindex("/") + 1], place)
    return None if base and _inside(base, place, strictly=True) else unknown


def _inside(path: str, place: Place, strictly: bool) -> bool:
    project = place.project
    if not project or not path.startswith("/"):
        return False
    return path.startswith(project.rstrip("/") + "/") or (not strictly and path == project)


def option_letters(argv: tuple[str, ...]) -> Iterable[str]:
    """Options before `--`, short clusters split into single letters (`-rf` -> -r, -f)."""
    for word in argv[1:]:
        if word == "--":
            return
        if word.startswith("--"):
            yield word
        elif word.startswith("-") and len(word) > 1:
            yield from (f"-{letter}" for letter in word[1:])


def operand_indexes(argv: tuple[str, ...]) -> list[int]:
    """Indexes of the operands: words that are not options, and every word after `--`."""
    cut = argv.index("--", 1) if "--" in argv[1:] else len(argv)
    plain = [i for i in range(1, cut) if argv[i] == "-" or not argv[i].startswith("-")]
    return plain + list(range(cut + 1, len(argv)))
