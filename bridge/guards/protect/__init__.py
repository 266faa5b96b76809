"""`builtin:protect_paths` and self-protection: `protect_paths` (the guards and the judgement of
one Bash call), `writes` (what copies, moves, finds, extractions, patches and scripted editors
write), `tripwire` (self-protection's reading of any other command: the words it may write, the
code it hands on, copies of ccbridge), `tool_paths` (the paths named by a tool ccbridge does not
know).

The package itself holds what those modules share: the paths a command may write, the commands
each reads, and a reason that asks rather than denies. Here rather than in a module of their
own, which every Bash call would import (a module costs an import; the package is imported
anyway)."""

from bridge.pipeline.valueclass import Record
from bridge.shell import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from bridge.shell.syntax import Script, SimpleCommand

MOVERS = frozenset({"mv", "ln"})  # sources are moved or linked: a directory above counts too
# Commands that write, move, delete or re-permission the files they name.
WRITERS = frozenset(
    {
        *("tee", "mv", "cp", "rm", "rmdir", "unlink", "ln", "truncate", "install", "touch"),
        *("chmod", "chown", "chgrp", "shred", "rsync", "dd", "patch", "chattr", "setfacl"),
        *("ed", "red", "ex", "vi", "vim", "nvim", "emacs", "nano", "sponge", "sqlite3"),
        *("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "split"),
    }
)
# The commands whose targets bridge.guards.protect.writes reads closely (and git's writing ones).
COPIERS = frozenset({"cp", "install", "rsync"})  # sources are read: only an exact hit counts
EXTRACTORS = frozenset({"tar", "bsdtar", "unzip", "7z", "7za", "7zr", "cpio", "ar", "jar"})
# Commands that set variables from their arguments (`export X=1`).
DECLARERS = frozenset({"export", "local", "declare", "readonly", "typeset"})
READ_CLOSELY = COPIERS | MOVERS | EXTRACTORS | {"find", "patch"}
SCRIPTED = frozenset({"sed", "awk", "gawk", "mawk", "nawk"})  # sed `w`, awk `print > f`
# Words of interpreter code that can write files (`open`, `rename`, `subprocess` ...).
CODE_WRITES = Lazy(
    r"open|write|dump|save|rename|replace|remove|unlink|rmtree|rmSync|system|subprocess|exec"
    r"|spawn|popen|sqlite|connect|chmod|symlink|copy|move|truncate|print\s*>|>"
)
# How far below a written path a protected one is hit: not at all (a file is written), one level
# (files land in a directory: its direct contents), any depth (it is deleted, moved, extracted).
NOT_ABOVE, PARENT_ABOVE, ANY_ABOVE = 0, 1, 1 << 10


class Target(Record, frozen=True, slots=True):
    """A path a command may write: `dynamic` if only known when it runs; `above`: how many
    levels below it writing it reaches (a deletion, a move or an extraction: all of them)."""

    text: str
    dynamic: bool = False
    above: int = ANY_ABOVE
    names: "tuple[str, ...]" = ()  # `find -name` patterns: only entries they could name count
    asked: bool = False  # whether it is written is only known when it runs (`git pull`)


class RunTime(str):
    """A reason about what only the run would tell, in a line that names nothing protected:
    the guard asks, it does not deny."""


def asked_as(reason: "str | None", text: str) -> str:
    """`text`, a question again if `reason` was one (a nested reason keeps its kind)."""
    return RunTime(text) if isinstance(reason, RunTime) else text


def shown(command: "SimpleCommand") -> str:
    """The command as a reason quotes it, cut at 200 characters."""
    text = " ".join(command.words)
    return text if len(text) <= 200 else text[:197] + "..."


def source_text(script: "Script") -> str:
    """All words of a script and its nested scripts, for a cheap text search."""
    return "\n".join(
        " ".join((*c.words, *(r.target for r in c.redirects), *(r.body or "" for r in c.redirects)))
        for c in script.commands()
    )
