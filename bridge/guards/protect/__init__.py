"""`builtin:protect_paths` and self-protection: `protect_paths` (the guards), `writes` (what
copies, moves, finds, extractions, patches and scripted editors write), `tripwire`
(self-protection's reading of any other command: the words it may write, the code it hands on,
copies of ccbridge), `tool_paths` (the paths named by a tool ccbridge does not know).

The package itself holds the paths a command may write, as `protect_paths` and `writes` both name
them: here rather than in a module of their own, which every Bash call would import (a module
costs an import; the package is imported anyway)."""

from bridge.pipeline.valueclass import Record

MOVERS = frozenset({"mv", "ln"})  # sources are moved or linked: a directory above counts too
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
