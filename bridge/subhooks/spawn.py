"""Starting a program the cheap way: `posix_spawn` (a vfork and an exec, no copy of ccbridge's
memory), in a session of its own, its stdio on given descriptors.

Not `subprocess`: with what it imports (`enum`, `re`, `locale`, `selectors`, `threading`) it
costs a hook call more than starting 16 hooks does. Not `os.fork`: a fork copies the
interpreter's page tables, every page ccbridge touches afterwards faults and is copied again, and
forking a process that has threads can deadlock the child.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    import signal as _signal
    from collections.abc import Mapping, Sequence

    Action = tuple[int, int] | tuple[int, int, int]  # a posix_spawn file action
else:  # `signal` is `_signal` plus enums, and importing `enum` costs a hook call about 5 ms
    import _signal

# Python ignores SIGPIPE (and SIGXFSZ); an ignored signal stays ignored across exec, so each
# program gets them back at their defaults, as `subprocess` does (restore_signals).
_RESTORED_SIGNALS = (_signal.SIGPIPE, _signal.SIGXFSZ)


def pipe() -> tuple[int, int]:
    """A pipe whose ends are above the standard descriptors: with one of those closed, a pipe
    end there would be overwritten while a program's stdio is set up."""
    ends = os.pipe()
    if min(ends) > 2:
        return ends
    try:
        return pipe()  # the low ends stay open until then, so the next pipe lands higher
    finally:
        os.close(ends[0])
        os.close(ends[1])


def inherited() -> list[Action]:
    """Closing what a started program would inherit: ccbridge's own descriptors are all
    close-on-exec, so these came from whoever started ccbridge (`close_fds`, as `subprocess`)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(listing)
        except OSError:
            continue
        found: list[Action] = []
        for fd in map(int, names):
            try:
                if fd > 2 and os.get_inheritable(fd):
                    found.append((os.POSIX_SPAWN_CLOSE, fd))
            except OSError:  # the listing's own descriptor, closed by now
                continue
        return found
    return []


def start(
    path: str,
    argv: list[str],
    env: Mapping[str, str],
    stdio: tuple[int, int, int],
    closes: Sequence[Action],
) -> int:
    """Start `path` in a new session with `stdio` as its descriptors 0, 1 and 2; its pid."""
    actions: list[Action] = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(stdio)]
    return os.posix_spawn(
        path,
        argv,
        env,
        file_actions=[*actions, *closes],
        setsid=True,
        setsigdef=_RESTORED_SIGNALS,
    )
