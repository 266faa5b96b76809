"""The warm ccbridge: `ccbridge warm-serve PID START_TIME`, started by `start.py`.

It serves one Claude Code process (the pid and start time it was started with) on the socket
`<state>/warm/<pid>`, and ends when that process does, after IDLE seconds with no call, or once
ccbridge's own files change (an upgrade: the next call starts a server of the new code). Each
call is taken by a child forked ahead of it (`_Pool`), which takes on the hook process's
environment, working directory and umask for the call and has the call's own deadline and
sub-hook containment, as `ccbridge run` does; nothing is left behind in the server. A child then
waits for another call, up to CALLS_PER_CHILD of them (no fork, no copied memory a call), unless
a call loaded code that is not ccbridge's or the standard library's (a policy file: loaded once
per process, an edit would go unseen), or the deadline's hard stop ended it. The child's
answer goes back framed as

    A RS <exit code> RS <stdout> RS <stderr> RS      or      F RS <event> RS

(F: fall back to `ccbridge run`, handing the event back), with RS the ASCII record separator
(0x1E), which JSON never holds unescaped: the shell client splits on it (`client.py`).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import io
import os
import select
import socket
import sys
import time
from pathlib import Path

from bridge import paths
from bridge.goal import activation
from bridge.goal.activation import ProcessIdentity, read_stat
from bridge.warm import peer, rehearsal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

RS = b"\x1e"
FALLBACK = b"F" + RS  # and the event, and RS
IDLE = 900.0  # seconds without a call before the server ends (the next call starts one)
MOST_AT_ONCE = 16  # children at once, waiting or judging
SPARES = 2  # children waiting for a call
CALLS_PER_CHILD = 200  # calls a child serves, one after another, before a fresh one takes over
_OWN_OR_STANDARD = frozenset({"bridge", *sys.stdlib_module_names, *sys.builtin_module_names})
READ_TIMEOUT = 10.0  # for the client's event, once connected
SEND_TIMEOUT = 5.0
MAX_EVENT = 64 * 1024 * 1024  # what a child reads; the event reader denies what is too large
WARM_DIRECTORY = "warm"
# Loaded once here so that no child pays for them: all of ccbridge but the command line's
# (click, pydantic) and what only runs outside a hook call (compiling a config, doctor's checks).
NOT_WARMED = (
    "bridge.cli",
    "bridge.commands",
    "bridge.__main__",
    "bridge.config.build",
    "bridge.config.hook_commands",
    "bridge.config.schema",
)


def directory(env: object = os.environ) -> str:
    """Where the sockets live: inside the state directory, which the wall keeps read-only."""
    return os.path.join(paths.state_dir(env), WARM_DIRECTORY)  # type: ignore[arg-type]


def private_directory(path: str) -> bool:
    """Make `path` (mode 0700) or check it: a directory of ours, not a link, nobody else's."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        status = os.lstat(path)
    except OSError:
        return False
    import stat

    return (
        stat.S_ISDIR(status.st_mode)
        and status.st_uid == os.getuid()
        and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def code_signature(root: str = PACKAGE) -> tuple[tuple[str, int, int], ...]:
    """ccbridge's own files as they are now (path, size, mtime): an upgrade changes them."""
    found = []
    pending = [root]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    pending.append(entry.path)
                elif entry.name.endswith(".py"):
                    status = entry.stat()
                    found.append((entry.path, status.st_size, status.st_mtime_ns))
    return tuple(sorted(found))


def main(args: list[str]) -> int:
    """`warm-serve PID START_TIME`: serve that Claude Code process until it ends."""
    try:
        served = ProcessIdentity(int(args[0]), int(args[1]), _boot_id())
    except (IndexError, ValueError):
        sys.stderr.write("usage: ccbridge warm-serve PID START_TIME (started by ccbridge run)\n")
        return 2
    where = directory()
    if not private_directory(where):
        return 1
    return serve(served, where)


def serve(served: ProcessIdentity, where: str) -> int:
    import fcntl

    name = str(served.pid)
    lock = os.open(os.path.join(where, f"{name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server has this process
    os.chdir(where)  # the socket is bound by its short name: a full path may be too long
    try:
        os.ftruncate(lock, 0)
        os.write(lock, f"{os.getpid()}\n".encode())  # for a person who wants to stop it
        watched = _watch(served)
        if watched is not None:
            _listen(name, watched, served)
    finally:
        _remove(f"{name}.lock", os.fstat(lock).st_ino)
    return 0


def _watch(served: ProcessIdentity) -> int | None:
    """A pidfd of the served process, None when it is gone (its pid may be another's now)."""
    try:
        watched = os.pidfd_open(served.pid)
    except OSError:
        return None
    alive = read_stat(Path("/proc"), served.pid)
    if alive is None or alive.start_time != served.start_time:
        os.close(watched)
        return None
    return watched


def _listen(name: str, watched: int, served: ProcessIdentity) -> None:
    _warm_up()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name)  # a socket left by a server that was killed
    listener.bind(name)
    listener.listen(64)
    bound = os.stat(name).st_ino
    with contextlib.suppress(FileNotFoundError):
        os.unlink(f"{name}.tried")  # up: a later server may be started as soon as needed
    signature = code_signature()
    gc.collect()
    gc.freeze()  # the children touch none of it: fewer pages copied on their writes
    gc.disable()
    try:
        _accept_calls(listener, watched, served, signature)
    finally:
        _remove(name, bound)


def _warm_up() -> None:
    """Import ccbridge's modules a call may need (one that fails to import is left to the call,
    which then fails closed as `ccbridge run` would)."""
    for name in warmed():
        with contextlib.suppress(Exception):
            __import__(name)


def warmed(root: str = PACKAGE) -> list[str]:
    """The modules `_warm_up` imports: found on disk, not by importing each package to walk it
    (pkgutil.walk_packages), which would load the command line's packages, click and pydantic
    with them, into every child."""
    found = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        package = os.path.relpath(directory, os.path.dirname(root)).replace(os.sep, ".")
        for file in sorted(files):
            if file.endswith(".py"):
                stem = file[:-3]
                name = package if stem == "__init__" else f"{package}.{stem}"
                if not any(name == n or name.startswith(n + ".") for n in NOT_WARMED):
                    found.append(name)
    return found


class _Pool:
    """Children forked ahead of the calls (SPARES of them waiting in `accept`), so that no call
    waits for a fork: a child that took a connection says so on `taken` (its pid), and again
    when it waits for another call (minus its pid); the server forks the next spare as needed.
    At most MOST_AT_ONCE children live at once; a connection past them waits in the socket's
    queue for the next spare.

    A spare rehearses a call before it waits (bridge.warm.rehearsal), unless no other spare is
    waiting: then a call may be waiting for it. While a call is judged only one spare is kept
    ready, for a call that comes meanwhile; once it is over (`ended`: a pidfd of each busy
    child) its child waits again, or where it ended the missing spare is forked then: a new
    spare's fork and rehearsal take some 10 ms of CPU, which on two cores the judging child
    would otherwise wait for."""

    def __init__(self, listener: socket.socket, served: ProcessIdentity, closes: list[int]) -> None:
        self.listener, self.served, self.closes = listener, served, closes
        self.server = os.getpid()
        self.taken_read, self.taken_write = os.pipe()
        self.spares: set[int] = set()
        self.busy: dict[int, int | None] = {}  # pid: a pidfd, readable once the child ends

    def fill(self) -> None:
        wanted = 1 if self.busy else SPARES
        while len(self.spares) < wanted and len(self.spares) + len(self.busy) < MOST_AT_ONCE:
            # With no other spare waiting, a call may be waiting for this one: no rehearsal.
            rehearse = bool(self.spares)
            pid = os.fork()
            if pid == 0:
                self._spare(rehearse)  # never returns
            self.spares.add(pid)

    def took(self) -> bool:
        """Read which child took a connection (it is busy from now on; True) or is waiting for
        one again after its call (False)."""
        said = int.from_bytes(os.read(self.taken_read, 4), "little", signed=True)
        pid = abs(said)
        if said < 0:
            ended = self.busy.pop(pid, None)
            if ended is not None:
                os.close(ended)
            self.spares.add(pid)
            return False
        self.spares.discard(pid)
        try:
            self.busy[pid] = os.pidfd_open(pid)
        except OSError:  # not to be had: its end is seen at the next wake-up instead
            self.busy[pid] = None
        return True

    def ended(self) -> list[int]:
        """What to wait on for a busy child's end."""
        return [fd for fd in self.busy.values() if fd is not None]

    def reap(self) -> None:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.spares.discard(pid)
            fd = self.busy.pop(pid, None)
            if fd is not None:
                os.close(fd)

    def stop(self) -> None:
        """End the waiting spares (a busy child finishes its call)."""
        for pid in self.spares:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 9)

    def _spare(self, rehearse: bool) -> NoReturn:
        _die_with_parent(True)
        if os.getppid() != self.server:  # it ended before that took effect
            os._exit(0)
        for fd in self.closes:
            os.close(fd)
        os.close(self.taken_read)
        if rehearse:
            rehearsal.rehearse()  # its pages copied now, not on the call's time
        loaded = frozenset(sys.modules)
        try:
            for _ in range(CALLS_PER_CHILD):
                connection, _address = self.listener.accept()
                self._say(os.getpid())
                _die_with_parent(False)  # a call once taken is answered, whatever the server does
                _answer(connection, self.served)
                if not _may_serve_again(loaded):
                    break
                _die_with_parent(True)
                if os.getppid() != self.server:
                    break
                self._say(-os.getpid())
        except BaseException:
            pass  # nothing here may run on into the server's code (this is a fork of it)
        os._exit(0)

    def _say(self, pid: int) -> None:
        os.write(self.taken_write, pid.to_bytes(4, "little", signed=True))


def _die_with_parent(on: bool) -> None:
    """PR_SET_PDEATHSIG: a spare waiting in `accept` ends when the server does."""
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, 9 if on else 0, 0, 0, 0)


def _accept_calls(
    listener: socket.socket,
    watched: int,
    served: ProcessIdentity,
    signature: tuple[tuple[str, int, int], ...],
) -> None:
    pool = _Pool(listener, served, [watched])
    last_call = checked = time.monotonic()
    try:
        while True:
            pool.reap()
            if not pool.busy and checked < last_call:  # after the calls, not on their time
                checked = last_call
                if code_signature() != signature:
                    return  # an upgrade: the calls of the new code go to a server of the new code
            pool.fill()
            wait = 1.0 if pool.busy else max(IDLE - (time.monotonic() - last_call), 0.0)
            ready, _, _ = select.select([pool.taken_read, watched, *pool.ended()], [], [], wait)
            if watched in ready:
                return  # Claude Code ended
            if pool.taken_read in ready and pool.took():
                last_call = time.monotonic()
            elif not ready and not pool.busy and time.monotonic() - last_call >= IDLE:
                return
    finally:
        pool.stop()


def _answer(connection: socket.socket, served: ProcessIdentity) -> None:
    """A child: judge the client's event as `ccbridge run` would and send the answer. Where no
    judgement was made (not a hook's client, an unreadable event) or the deadline's hard stop
    answered, the child ends here."""
    event = b""
    try:
        connection.settimeout(READ_TIMEOUT)
        event = _read_event(connection)
        client, uid = peer.credentials(connection)
        hook = peer.hook_process(client, uid, served)
        if isinstance(hook, str):
            _quietly_send(connection, fallback(event))
            os._exit(0)
        _become(hook)
        captured = _capture_output()
    except BaseException:  # nothing judged yet: `ccbridge run` judges it instead
        _quietly_send(connection, fallback(event))
        os._exit(0)
    from bridge.deadline import deadline
    from bridge.hookcall import run

    done: list[int] = []

    def finish(code: int) -> NoReturn:
        if not done:
            done.append(code)
            _send_answer(connection, code, captured, event)
        os._exit(done[0])

    deadline.end = finish  # the hard stop answers, then ends the child
    code = run(None, io.BytesIO(event), sys.stdout.buffer, sys.stderr, os.environ, None)
    deadline.end = os._exit
    _send_answer(connection, code, captured, event)
    connection.close()
    for fd in captured:
        os.close(fd)
    gc.collect()  # gc is off in the children: what this call left in cycles, after its answer


def _send_answer(
    connection: socket.socket, code: int, captured: tuple[int, int], event: bytes
) -> None:
    """What the call printed, framed (or handed back where it cannot be), to the client."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    connection.settimeout(SEND_TIMEOUT)
    _quietly_send(connection, framed(code, *map(_contents, captured)) or fallback(event))


def _may_serve_again(loaded: frozenset[str]) -> bool:
    """Whether a child may take another call: not once a call has loaded code that is neither
    ccbridge's nor the standard library's (a policy file, a policy module; what the server had
    loaded before, `loaded`, is its own). Loaded once per process, an edit to it would go unseen
    by the next call and its module state would carry over; a fresh child loads it anew, as
    `ccbridge run` does."""
    return all(name.partition(".")[0] in _OWN_OR_STANDARD for name in set(sys.modules) - loaded)


def fallback(event: bytes) -> bytes:
    """Fall back to `ccbridge run` with this event."""
    return FALLBACK + event + RS


def _read_event(connection: socket.socket) -> bytes:
    chunks = []
    size = 0
    while size <= MAX_EVENT:
        chunk = connection.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _become(hook: peer.HookProcess) -> None:
    """Take on the hook process's surroundings, as `ccbridge run` would have had them."""
    if dict(os.environ) != hook.environ:  # mostly the same: the server's came from a hook too
        os.environ.clear()
        os.environ.update(hook.environ)
    os.chdir(hook.cwd)
    os.umask(hook.umask)
    activation.stand_in(hook.pid)


def _capture_output() -> tuple[int, int]:
    """Standard output and error into memory files: the answer, the deadline's hard stop
    (which writes to descriptors 1 and 2) and anything else printed there."""
    captured = (os.memfd_create("stdout"), os.memfd_create("stderr"))
    for target, fd in enumerate(captured, start=1):
        os.dup2(fd, target)
    return captured


def _contents(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""


def framed(code: int, stdout: bytes, stderr: bytes) -> bytes | None:
    """The answer as the client reads it, or None where it cannot be framed (an RS or NUL in
    the answer itself: JSON has neither, so only text output could)."""
    stderr = stderr.replace(RS, b"?").replace(b"\0", b"?")  # a person reads it
    if code not in (0, 2) or RS in stdout or b"\0" in stdout:
        return None
    return b"A" + RS + str(code).encode() + RS + stdout + RS + stderr + RS


def _quietly_send(connection: socket.socket, data: bytes) -> None:
    try:
        connection.sendall(data)
        connection.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _remove(name: str, inode: int) -> None:
    """Remove our own file, not one a later server put there."""
    try:
        if os.lstat(name).st_ino == inode:
            os.unlink(name)
    except OSError:
        pass


def _boot_id() -> str:
    with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as file:
        return file.read().strip()
