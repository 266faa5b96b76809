"""The paths a command may write, as the protect guard and its reader of writers (`writes`) both
name them."""

from __future__ import annotations

from bridge.pipeline.record import Record

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
    names: tuple[str, ...] = ()  # `find -name` patterns: only entries they could name count
    asked: bool = False  # whether it is written is only known when it runs (`git pull`)
