"""Nothing a sub-hook starts outlives the event (Linux).

Killing each hook's process group misses what leaves the group: `setsid`, a double fork. So
while hooks run, ccbridge is a child subreaper: such orphans are re-parented to ccbridge, not to
init, and at the end every descendant that ccbridge did not have before is killed and reaped.

ccbridge cannot clean up after its own SIGKILL. A watchdog process, forked before the first hook
starts and moved to a session of its own, holds the read end of a pipe: ccbridge sends it each
hook's process group, then an all-clear when the event is over. If the pipe closes without the
all-clear, ccbridge died: the watchdog kills those groups and every process whose environment
carries this event's token (`MARK`, which every hook and what it starts inherit), then exits.

Elsewhere (macOS) none of this exists: process groups are killed as before.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from contextlib import contextmanager, suppress
from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` is not imported on a hook call
    from collections.abc import Iterable, Iterator, Mapping
    from typing import Any, NoReturn

MARK = "CCBRIDGE_HOOK_RUN"  # tokens of the events whose hooks a process belongs to
_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37
_ALL_CLEAR = b"done\n"
_SWEEP_SECONDS = 5.0  # the watchdog's bound for killing what a dead ccbridge left


@cache
def _libc() -> Any:
    import ctypes  # only when a hook runs: a few milliseconds the hot path does not pay

    return ctypes.CDLL(None, use_errno=True)


def _prctl_subreaper(on: int) -> int:
    """Set the subreaper flag; its previous value."""
    import ctypes

    prctl = _libc().prctl
    previous = ctypes.c_int(0)
    prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(previous))  # the other arguments are unused
    if prctl(_PR_SET_CHILD_SUBREAPER, on) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    return previous.value


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 1 << 20)
    finally:
        os.close(fd)


def last_pid() -> int:
    """The pid handed out last (in ccbridge's pid namespace)."""
    return int(_read("/proc/loadavg").split()[-1])


def handed_out(pid: int, after: int, until: int) -> bool:
    """Whether `pid` was handed out after the pid `after`, up to `until`: pids wrap around."""
    if after <= until:
        return after < pid <= until
    return pid > after or pid <= until


def processes(after: int | None = None) -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, start time in clock ticks since boot) of every process, or of those
    started after the pid `after` (reading /proc/PID/stat is slow on a busy machine: each one
    costs about as much as all of /proc's listing)."""
    until = last_pid()
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (after is None or handed_out(int(name), after, until)):
            try:
                # The command name may hold spaces and parentheses: fields follow the last ")".
                fields = _read(f"/proc/{name}/stat").rsplit(b")", 1)[1].split()
                table[int(name)] = (int(fields[1]), int(fields[19]))
            except (OSError, IndexError, ValueError):  # it ended while we read
                continue
    return table


def boot_ticks() -> int:
    """Now, in the unit and from the origin of a process's start time in /proc."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK"))


def descendants(root: int, table: Mapping[int, tuple[int, int]], since: int) -> set[int]:
    """Every process below `root` whose branch started at `since` or later: children that
    were there before are not ours to kill (ccbridge used as a library)."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _started) in table.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [pid for pid in children.get(root, []) if table[pid][1] >= since]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, []))
    return found


def _tokens(environ: bytes) -> set[str]:
    for entry in environ.split(b"\0"):
        if entry.startswith(MARK.encode() + b"="):
            return set(entry.split(b"=", 1)[1].decode(errors="replace").split())
    return set()


def marked(token: str) -> list[int]:
    """Live processes whose environment carries the token."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if token in _tokens(_read(f"/proc/{name}/environ")):
                    found.append(int(name))
            except OSError:  # ended, or not ours to read
                continue
    return found


def _kill(pid: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def _sweep(groups: list[int], token: str) -> None:
    """What the watchdog does once ccbridge is gone: kill until two looks find nothing."""
    for group in groups:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    quiet, deadline = 0, time.monotonic() + _SWEEP_SECONDS
    while quiet < 2 and time.monotonic() < deadline:
        found = [pid for pid in marked(token) if pid != os.getpid()]
        for pid in found:
            _kill(pid)
        quiet = 0 if found else quiet + 1
        time.sleep(0.05)


def _watch(pipe: int, parents_end: int, token: str) -> NoReturn:
    """The watchdog's whole life, in the forked child; it never returns into the parent's code."""
    try:
        os.close(parents_end)  # else the pipe never reads as closed
        os.setsid()  # a kill of ccbridge's process group does not take the watchdog along
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # never hold Claude Code's pipes open
            os.dup2(null, fd)
        os.closerange(3, pipe)
        os.closerange(pipe + 1, os.sysconf("SC_OPEN_MAX"))
        said = b""
        while chunk := os.read(pipe, 4096):
            said += chunk
        if not said.endswith(_ALL_CLEAR):
            _sweep([int(line) for line in said.split() if line.isdigit()], token)
    finally:
        os._exit(0)


class Containment:
    """One event's hooks, held in: `env` goes into every hook's environment, `started` is told
    each hook's pid, `close` kills whatever is left."""

    def __init__(self) -> None:
        self.token = os.urandom(8).hex()
        self._since, self._after = boot_ticks(), last_pid()
        self._previous = _prctl_subreaper(1)
        read, self._pipe = os.pipe()
        # A mutant of the fork or of the branch below sends the forked child back into the
        # caller's code (under mutation testing: into pytest, which forks again): not mutated.
        try:
            self._watchdog = os.fork()  # pragma: no mutate
        except OSError:
            os.close(read)
            os.close(self._pipe)
            _prctl_subreaper(self._previous)
            raise
        if self._watchdog == 0:  # pragma: no mutate
            _watch(read, self._pipe, self.token)  # pragma: no mutate
        os.close(read)

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """The hook's environment with this event's token added (kept from enclosing events,
        so a ccbridge run as a hook of another one stays findable by both)."""
        return {**env, MARK: " ".join(filter(None, (env.get(MARK, ""), self.token)))}

    def started(self, pids: Iterable[int]) -> None:
        """Tell the watchdog the hooks' process groups, all in one write: a write per hook wakes
        the watchdog each time (about 0.7 ms apiece). Until then its token sweep covers them."""
        with suppress(OSError):  # a watchdog that died cannot be told; the rest still holds
            os.write(self._pipe, b"".join(b"%d\n" % pid for pid in pids))

    def close(self) -> None:
        me = os.getpid()
        for _ in range(100):  # each pass kills all it sees; their orphans come back to us
            table = processes(self._after)
            family = descendants(me, table, self._since) - {self._watchdog}
            if not family:
                break
            for pid in family:
                _kill(pid)
            for pid in family:
                if table[pid][0] == me:
                    with suppress(ChildProcessError):
                        os.waitpid(pid, 0)
        with suppress(OSError):
            os.write(self._pipe, _ALL_CLEAR)
        os.close(self._pipe)
        _prctl_subreaper(self._previous)
        with suppress(ChildProcessError):  # it exits as soon as it reads the all-clear
            os.waitpid(self._watchdog, 0)


@contextmanager
def contained() -> Iterator[Containment | None]:
    """Containment where the system has what it needs (Linux's /proc and prctl, a fork), else
    None: a hook still runs, held by its process group alone."""
    if not sys.platform.startswith("linux"):
        yield None
        return
    try:
        containment = Containment()
    except OSError:  # prctl or fork refused (seccomp, a process limit): process groups only
        yield None
        return
    try:
        yield containment
    finally:
        containment.close()
