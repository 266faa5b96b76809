"""Running matching sub-hook processes in parallel, each with a timeout and capped output.

Each hook is started by `spawn` in a session of its own, its stdin, stdout and stderr on pipes.
One `poll` loop then feeds stdin without blocking, drains stdout and stderr, and watches each
exit through a pidfd (polled where there is no pidfd: macOS, old kernels). The whole group is
killed on timeout, on output overflow, and at the end in any case; `contain` kills what left the
group, and what is left if ccbridge itself is killed. Not `selectors` or threads: see `spawn`.
"""

from __future__ import annotations

import errno
import os
import select
import time

from bridge.pipeline.valueclass import Record, field
from bridge.subhooks import spawn
from bridge.subhooks.contain import Containment, contained
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import HookRun

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    import signal as _signal
    from collections.abc import Mapping, Sequence

    from bridge.subhooks.spawn import Action
else:  # not `signal`: see spawn.py
    import _signal

OUTPUT_CAP = 1024 * 1024  # bytes per stream; more is a failure, never a truncated answer
EXIT_GRACE = 0.25  # seconds to drain a stderr still held once the hook exited and stdout closed
EXIT_POLL = 0.01  # seconds between looks at a hook's exit where no pidfd tells it
_CHUNK = 65536


def substitute(text: str, env: Mapping[str, str]) -> str:
    """CC's placeholders, replaced as plain text (no shell expansion of anything else)."""
    for name in ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT"):
        value = env.get(name)
        if value is not None:
            text = text.replace("${" + name + "}", value)
    return text


def argv_of(hook: HookSpec, env: Mapping[str, str]) -> list[str]:
    command = substitute(hook.command or "", env)
    if hook.args is not None:
        return [command, *(substitute(arg, env) for arg in hook.args)]
    return [hook.shell or "sh", "-c", command]


class _Live(Record):
    """A started hook: our ends of its pipes (None once closed) and what it said so far."""

    hook: HookSpec
    pid: int
    stdin: int | None
    stdout: int | None
    stderr: int | None
    pidfd: int | None  # None: the exit is polled
    started: float
    deadline: float
    data: bytes
    written: int = 0
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    exited_at: float | None = None
    exit_code: int | None = None  # once reaped
    error: str | None = None
    held_open: bool = False  # exited, its stdout still open at the timeout
    ended: float = 0.0
    done: bool = False


def _kill_group(leader: int) -> None:
    try:
        os.killpg(leader, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def open_pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when the process exits, or None where the system has
    none (macOS, Linux before 5.3, a seccomp filter that forbids it)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


class _Spawner:
    """What every hook of one event starts with, worked out once: the environment, where the
    programs are, which inherited descriptors to close."""

    def __init__(
        self, env: Mapping[str, str], containment: Containment | None, closes: list[Action]
    ) -> None:
        self.env = containment.env(env) if containment else dict(env)
        # os.get_exec_path, without the `warnings` it imports
        self._search = self.env.get("PATH", os.defpath).split(os.pathsep)
        self._programs: dict[str, str] = {}
        self._closes = closes

    def program(self, name: str) -> str:
        """The file to run, found on the hooks' PATH as a shell would (`subprocess` does too)."""
        if "/" in name:
            return name
        if name not in self._programs:
            found = (os.path.join(directory, name) for directory in self._search if name)
            path = next((p for p in found if os.access(p, os.X_OK) and not os.path.isdir(p)), None)
            if path is None:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
            self._programs[name] = path
        return self._programs[name]

    def spawn(self, argv: list[str], stdio: tuple[int, int, int]) -> int:
        return spawn.start(self.program(argv[0]), argv, self.env, stdio, self._closes)


def _start(hook: HookSpec, data: bytes, spawner: _Spawner, now: float) -> _Live | HookRun:
    argv = argv_of(hook, spawner.env)
    ends: list[int] = []
    try:
        for _ in range(3):
            ends.extend(spawn.pipe())
        child_in, our_in, our_out, child_out, our_err, child_err = ends
        pid = spawner.spawn(argv, (child_in, child_out, child_err))
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in argv or env
        for fd in ends:
            os.close(fd)
        why = getattr(error, "strerror", None) or str(error)
        return HookRun(exit_code=None, error=f"could not start {argv[0]!r}: {why}")
    for fd in (child_in, child_out, child_err):  # the hook has its own copies now
        os.close(fd)
    item = _Live(
        hook=hook,
        pid=pid,
        stdin=our_in,
        stdout=our_out,
        stderr=our_err,
        pidfd=None,
        started=now,
        deadline=now + hook.timeout,
        data=data,
    )
    try:
        for fd in (our_in, our_out, our_err):
            os.set_blocking(fd, False)
        item.pidfd = open_pidfd(pid)
    except BaseException:  # a started hook never outlives a start that failed half-way
        _finish(item)
        raise
    return item


def _enter(cwd: str) -> int | None:
    """Move into the hooks' directory while they start (`os.posix_spawn` takes no working
    directory); a descriptor of where ccbridge was, or None if it is there already."""
    if os.path.samestat(os.stat(cwd), os.stat(".")):
        return None
    here = os.open(".", getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY)
    try:
        os.chdir(cwd)
    except BaseException:
        os.close(here)
        raise
    return here


def _leave(here: int | None) -> None:
    if here is not None:
        try:
            os.fchdir(here)
        finally:
            os.close(here)


def _start_all(
    hooks: Sequence[HookSpec],
    started: list[_Live | HookRun | None],
    data: bytes,
    cwd: str | None,
    spawner: _Spawner,
) -> None:
    """Start every hook, filling `started` in place (so a failure half-way leaves the caller
    what did start, to finish)."""
    now = time.monotonic()
    try:
        here = _enter(cwd) if cwd else None
    except OSError as error:
        for index in range(len(hooks)):
            started[index] = HookRun(
                exit_code=None, error=f"could not start: cannot enter {cwd!r}: {error.strerror}"
            )
        return
    try:
        for index, hook in enumerate(hooks):
            started[index] = _start(hook, data, spawner, now)
    finally:
        _leave(here)


class Terminated(Exception):
    """ccbridge was told to stop (SIGTERM) while its sub-hooks ran."""


def _terminated(signum: int, _frame: object) -> None:
    raise Terminated(f"ccbridge was stopped by signal {signum} while sub-hooks ran")


def run_hooks(
    hooks: Sequence[HookSpec],
    data: bytes,
    env: Mapping[str, str],
    cwd: str | None,
    output_cap: int = OUTPUT_CAP,
) -> list[HookRun]:
    """Run every hook at once on the same stdin; one HookRun per hook, in the order given.

    SIGTERM becomes an exception while hooks run, so the cleanup that kills every hook's
    process group still happens (Python's default SIGTERM exits without any cleanup)."""
    if cwd and not os.path.isdir(cwd):  # one reason for all, not a start failure per program
        error = f"could not start: no directory {cwd!r} to run in"
        return [HookRun(exit_code=None, error=error) for _ in hooks]
    try:
        previous = _signal.signal(_signal.SIGTERM, _terminated)
    except ValueError:  # not the main thread, where alone handlers can be set: run without
        return _run(hooks, data, env, cwd, output_cap)
    try:
        return _run(hooks, data, env, cwd, output_cap)
    finally:
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL if previous is None else previous)


def _run(
    hooks: Sequence[HookSpec],
    data: bytes,
    env: Mapping[str, str],
    cwd: str | None,
    output_cap: int,
) -> list[HookRun]:
    started: list[_Live | HookRun | None] = [None] * len(hooks)
    closes = spawn.inherited()
    containment = contained(closes)
    try:
        _start_all(hooks, started, data, cwd, _Spawner(env, containment, closes))
        live = [item for item in started if isinstance(item, _Live)]
        if containment:
            containment.started(item.pid for item in live)
        _drive(live, output_cap)
    finally:
        runs = [_finish(item) if isinstance(item, _Live) else item for item in started]
        if containment:
            containment.close()
    return [run for run in runs if run is not None]  # all, as _start_all raises or starts all


class _Watch:
    """The poll set: each descriptor with the hook and the stream it belongs to."""

    def __init__(self) -> None:
        self._poll = select.poll()
        self._owners: dict[int, tuple[_Live, str]] = {}

    def add(self, fd: int, item: _Live, what: str) -> None:
        self._poll.register(fd, select.POLLOUT if what == "stdin" else select.POLLIN)
        self._owners[fd] = (item, what)

    def drop(self, fd: int | None) -> None:
        if fd is not None and self._owners.pop(fd, None) is not None:
            self._poll.unregister(fd)

    def wait(self, seconds: float) -> list[tuple[_Live, str, int]]:
        """What became ready within `seconds`, for descriptors still watched."""
        ready = self._poll.poll(max(0, int(seconds * 1000) + 1))  # milliseconds, rounded up
        return [(*self._owners[fd], fd) for fd, _mask in ready if fd in self._owners]


def _watch_all(live: list[_Live]) -> _Watch:
    """Every hook's output and exit watched; its stdin too while there is data to feed it."""
    watch = _Watch()
    for item in live:
        assert item.stdout is not None and item.stderr is not None and item.stdin is not None
        watch.add(item.stdout, item, "stdout")
        watch.add(item.stderr, item, "stderr")
        if item.pidfd is not None:
            watch.add(item.pidfd, item, "exit")
        if item.data:
            watch.add(item.stdin, item, "stdin")
        else:
            _let_go(watch, item, "stdin")
    return watch


def _drive(live: list[_Live], output_cap: int) -> None:
    watch = _watch_all(live)
    while True:
        now = time.monotonic()
        pending = []
        for item in live:
            if item.done:
                continue
            if item.exited_at is None and item.pidfd is None and _exited(item):
                item.exited_at = now
            if now >= item.deadline:
                item.held_open = item.exited_at is not None and item.stdout is not None
                item.error = (
                    f"exited, but something it started still held its stdout open at its "
                    f"{item.hook.timeout:g}s timeout, so its answer may be unfinished"
                    if item.held_open
                    else f"timed out after {item.hook.timeout:g}s"
                )
                _close(watch, item)
            elif (
                item.exited_at is not None
                and item.stdout is None
                and (item.stderr is None or now >= item.exited_at + EXIT_GRACE)
            ):
                _close(watch, item)
            else:
                pending.append(item)
        if not pending:
            return
        wake = min(_wake_at(item) for item in pending)
        if any(item.pidfd is None and item.exited_at is None for item in pending):
            wake = min(wake, now + EXIT_POLL)
        for item, what, fd in watch.wait(wake - time.monotonic()):
            if not item.done:  # an earlier event of this batch may have closed it
                _service(watch, item, what, fd, output_cap)


def _wake_at(item: _Live) -> float:
    """When a pending hook next needs a look without any of its descriptors becoming ready.
    Its stdout is read to the end, however long after its exit, within its timeout: whatever
    still holds it (`(sleep 1; echo deny) &`) may yet write the answer, which Claude Code reads
    when it comes soon enough. Only stderr, which never decides, gets no more than the grace."""
    if item.exited_at is None or item.stdout is not None:
        return item.deadline
    return min(item.deadline, item.exited_at + EXIT_GRACE)


def _exited(item: _Live) -> bool:
    """Whether a hook without a pidfd has exited (it is reaped here, its exit code kept)."""
    try:
        pid, status = os.waitpid(item.pid, os.WNOHANG)
    except ChildProcessError:  # reaped by someone else: see _finish
        return True
    if pid == 0:
        return False
    item.exit_code = os.waitstatus_to_exitcode(status)
    return True


def _service(watch: _Watch, item: _Live, what: str, fd: int, output_cap: int) -> None:
    if what == "exit":
        watch.drop(fd)
        item.exited_at = time.monotonic()
        return
    if what == "stdin":
        try:
            item.written += os.write(fd, item.data[item.written :][:_CHUNK])
        except OSError:  # the hook does not read its stdin (EPIPE): that is its right
            item.written = len(item.data)
        if item.written >= len(item.data):
            _let_go(watch, item, "stdin")
        return
    try:
        chunk = os.read(fd, _CHUNK)
    except BlockingIOError:
        return
    if not chunk:
        _let_go(watch, item, what)
        return
    buffer = item.out if what == "stdout" else item.err
    buffer += chunk
    if len(buffer) > output_cap:
        item.error = f"{what} exceeded the {output_cap}-byte output cap"
        _close(watch, item)


def _let_go(watch: _Watch, item: _Live, stream: str) -> None:
    """Stop watching one of the hook's pipes (`stdin`, `stdout`, `stderr`) and close our end."""
    fd = getattr(item, stream)
    if fd is not None:
        watch.drop(fd)
        os.close(fd)
        setattr(item, stream, None)


def _close(watch: _Watch, item: _Live) -> None:
    """Kill what is left of the hook's process group and stop watching all it had."""
    _kill_group(item.pid)
    for stream in ("stdin", "stdout", "stderr"):
        _let_go(watch, item, stream)
    watch.drop(item.pidfd)
    item.ended = time.monotonic()
    item.done = True


def _finish(item: _Live) -> HookRun:
    """Kill, reap and let go of the hook; what it said, or why it did not answer."""
    _kill_group(item.pid)
    if item.exit_code is None:
        try:
            item.exit_code = os.waitstatus_to_exitcode(os.waitpid(item.pid, 0)[1])
        except ChildProcessError:  # reaped by someone else (SIGCHLD ignored): never a pass
            item.error = item.error or "its exit status was lost (SIGCHLD ignored?)"
    for fd in (item.stdin, item.stdout, item.stderr, item.pidfd):
        if fd is not None:
            os.close(fd)
    duration = ((item.ended or time.monotonic()) - item.started) * 1000
    if item.error is not None:
        return HookRun(
            exit_code=item.exit_code if item.held_open else None,
            stdout=bytes(item.out),
            stderr=bytes(item.err),
            duration_ms=duration,
            error=item.error,
        )
    return HookRun(
        exit_code=item.exit_code,
        stdout=bytes(item.out),
        stderr=bytes(item.err),
        duration_ms=duration,
    )
