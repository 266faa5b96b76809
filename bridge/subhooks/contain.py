"""Nothing a sub-hook starts outlives the event (Linux).

Killing each hook's process group misses what leaves the group: `setsid`, a double fork. So
while hooks run, ccbridge is a child subreaper: such orphans are re-parented to ccbridge, not to
init, and at the end every descendant that ccbridge did not have before is killed and reaped.

ccbridge cannot clean up after its own SIGKILL. A watchdog, a small shell started before the
first hook in a session of its own, holds the read end of a pipe: ccbridge sends it each hook's
process group, then an all-clear when the event is over. If the pipe closes without the
all-clear, ccbridge died: the watchdog kills those groups, then becomes a Python sweep that kills
every process whose environment carries this event's token (`MARK`, which every hook and what it
starts inherit). A shell rather than a fork of ccbridge: see `spawn`; Python, with its start-up
time, is only paid for when ccbridge did die.

Elsewhere (macOS) none of this exists: process groups are killed as before.
"""

from __future__ import annotations

import os
import sys
import time

from bridge.subhooks import spawn

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    import signal as _signal
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from bridge.subhooks.spawn import Action
else:  # not `signal`: see spawn.py
    import _signal

MARK = "CCBRIDGE_HOOK_RUN"  # tokens of the events whose hooks a process belongs to
_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37
_ALL_CLEAR = b"done\n"
_SWEEP_SECONDS = 5.0  # the watchdog's bound for killing what a dead ccbridge left
# The watchdog: $0 is Python, $1 the sweep's code, $2 where the bridge package is, $3 the token,
# $4 when the event began (boot ticks).
# Process groups come one a line, the all-clear last; anything else read is no group. A last
# line without its newline (ccbridge died while writing) still counts.
_WATCHDOG = """
groups=
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
        done) exit 0 ;;
        ''|0|*[!0-9]*) ;;
        *) groups="$groups $line" ;;
    esac
done
for group in $groups; do kill -s KILL -- "-$group"; done 2>/dev/null
exec "$0" -I -c "$1" "$2" "$3" "$4"
"""
_SWEEPER = "import sys; sys.path.insert(0, sys.argv[1]); from bridge.subhooks import contain; "
_SWEEPER += "contain.sweep(sys.argv[2], int(sys.argv[3]))"
_PACKAGES = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_BOUND: list[Any] = []  # prctl, once bound: a run calls it twice, binding costs 27 us


def _prctl() -> Any:
    """libc's prctl, bound through `_ctypes`, the C half of ctypes: `import ctypes` costs a
    hook call about 2 ms (its Python half defines dozens of types), this about 0.5 ms."""
    if _BOUND:
        return _BOUND[0]
    import _ctypes

    class Int(_ctypes._SimpleCData):  # type: ignore[type-arg]  # ctypes.c_int
        _type_ = "i"

    class Function(_ctypes.CFuncPtr):  # ctypes.CFUNCTYPE(c_int, use_errno=True)
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = Int

    _BOUND.append(Function(_ctypes.dlsym(_ctypes.dlopen(None), "prctl")))  # type: ignore[arg-type]
    return _BOUND[0]


def _prctl_subreaper(on: int) -> int:
    """Set the subreaper flag; its previous value."""
    import _ctypes

    prctl = _prctl()
    previous = prctl.restype(0)
    prctl(_PR_GET_CHILD_SUBREAPER, _ctypes.byref(previous))  # the other arguments are unused
    if prctl(_PR_SET_CHILD_SUBREAPER, on) != 0:
        raise OSError(_ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    return int(previous.value)


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
                # Not mutated: its mutant (`not in`) has the watchdog kill every other process.
                if token in _tokens(_read(f"/proc/{name}/environ")):  # pragma: no mutate
                    found.append(int(name))
            except OSError:  # ended, or not ours to read
                continue
    return found


def _kill(pid: int) -> None:
    try:
        os.kill(pid, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def sweep(token: str, since: int) -> None:
    """What the watchdog does once ccbridge is gone (the groups it was told are killed by then):
    kill what carries the token until two looks in a row find nothing. Only processes started
    since the event began (`since`, in boot ticks) can be the event's, whatever their
    environment says: an older one is never killed."""
    quiet, deadline = 0, time.monotonic() + _SWEEP_SECONDS
    while quiet < 2 and time.monotonic() < deadline:
        table = processes()
        found = [
            pid
            for pid in marked(token)
            if pid != os.getpid() and pid in table and table[pid][1] >= since
        ]
        for pid in found:
            _kill(pid)
        quiet = 0 if found else quiet + 1
        time.sleep(0.05)


class Containment:
    """One event's hooks, held in: `env` goes into every hook's environment, `started` is told
    each hook's pid, `close` kills whatever is left."""

    def __init__(self, closes: Sequence[Action] = ()) -> None:
        """`closes`: what the watchdog must not inherit (see `spawn.inherited`)."""
        self.token = os.urandom(8).hex()
        self._since, self._after = boot_ticks(), last_pid()
        self._previous = _prctl_subreaper(1)
        read, self._pipe = spawn.pipe()
        null = os.open(os.devnull, os.O_WRONLY)  # never hold Claude Code's pipes open
        try:
            argv = ["sh", "-c", _WATCHDOG, sys.executable, _SWEEPER, _PACKAGES, self.token]
            argv.append(str(self._since))
            self._watchdog = spawn.start("/bin/sh", argv, os.environ, (read, null, null), closes)
        except OSError:
            os.close(self._pipe)
            _prctl_subreaper(self._previous)
            raise
        finally:
            os.close(read)
            os.close(null)

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """The hook's environment with this event's token added (kept from enclosing events,
        so a ccbridge run as a hook of another one stays findable by both)."""
        return {**env, MARK: " ".join(filter(None, (env.get(MARK, ""), self.token)))}

    def started(self, pids: Iterable[int]) -> None:
        """Tell the watchdog the hooks' process groups, all in one write: a write per hook wakes
        the watchdog each time (about 0.7 ms apiece). Until then its token sweep covers them."""
        try:
            os.write(self._pipe, b"".join(b"%d\n" % pid for pid in pids))
        except OSError:  # a watchdog that died cannot be told; the rest still holds
            pass

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
                    _wait(pid)
        try:
            os.write(self._pipe, _ALL_CLEAR)
        except OSError:  # the watchdog is gone: there is no one left to tell
            pass
        os.close(self._pipe)
        _prctl_subreaper(self._previous)
        _wait(self._watchdog)  # it exits as soon as it reads the all-clear


def _wait(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # reaped already
        pass


def contained(closes: Sequence[Action] = ()) -> Containment | None:
    """Containment where the system has what it needs (Linux's /proc and prctl, a shell), else
    None: a hook still runs, held by its process group alone. The caller closes it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return Containment(closes)
    except OSError:  # prctl or the watchdog refused (seccomp, a process limit): groups only
        return None
