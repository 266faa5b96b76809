"""Running matching sub-hook processes in parallel, each with a timeout and capped output.

One thread drives every process through a selector: stdin is fed without blocking, stdout and
stderr are drained, and each process's exit is watched through a pidfd (polled where there is no
pidfd: macOS, old kernels). Each hook runs in its own process group (session); the whole group is
killed on timeout, on output overflow, and at the end in any case; `contain` kills what left the
group, and what is left if ccbridge itself is killed.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
import time
from contextlib import contextmanager, suppress

from bridge.pipeline.record import field, record
from bridge.subhooks.contain import Containment, contained
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import HookRun

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` is not imported on a hook call
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from typing import IO

OUTPUT_CAP = 1024 * 1024  # bytes per stream; more is a failure, never a truncated answer
EXIT_GRACE = 0.25  # seconds to drain pipes a hook's children still hold after it exited
EXIT_POLL = 0.01  # seconds between looks at a hook's exit where no pidfd tells it
_CHUNK = 65536
_STARTERS = 4  # threads starting hooks: enough to keep two cores busy with execs


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


@record()
class _Live:
    hook: HookSpec
    process: subprocess.Popen[bytes]
    started: float
    deadline: float
    pidfd: int | None  # None: the exit is polled
    stdin: bytes
    written: int = 0
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    open_streams: int = 2
    exited_at: float | None = None
    error: str | None = None
    ended: float = 0.0
    done: bool = False


def _kill_group(leader: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(leader, signal.SIGKILL)


def open_pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when the process exits, or None where the system has
    none (macOS, Linux before 5.3, a seccomp filter that forbids it)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _start(
    hook: HookSpec,
    data: bytes,
    env: Mapping[str, str],
    cwd: str | None,
    now: float,
    containment: Containment | None,
) -> _Live | HookRun:
    argv = argv_of(hook, env)
    if cwd and not os.path.isdir(cwd):  # else Popen blames the program, not the directory
        return HookRun(exit_code=None, error=f"could not start: no directory {cwd!r} to run in")
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd or None,
            env=containment.env(env) if containment else dict(env),
            start_new_session=True,
            close_fds=True,
        )
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in argv, env or cwd
        why = getattr(error, "strerror", None) or str(error)
        return HookRun(exit_code=None, error=f"could not start {argv[0]!r}: {why}")
    try:
        assert process.stdin and process.stdout and process.stderr
        for stream in (process.stdin, process.stdout, process.stderr):
            os.set_blocking(stream.fileno(), False)
        pidfd = open_pidfd(process.pid)
    except BaseException:  # a started hook never outlives a start that failed half-way
        _kill_group(process.pid)
        process.wait()
        raise
    return _Live(
        hook=hook,
        process=process,
        started=now,
        deadline=now + hook.timeout,
        pidfd=pidfd,
        stdin=data,
    )


class Terminated(Exception):
    """ccbridge was told to stop (SIGTERM) while its sub-hooks ran."""


@contextmanager
def _terminate_unwinds() -> Iterator[None]:
    """Turn SIGTERM into an exception while hooks run, so the cleanup that kills every hook's
    process group still happens (Python's default SIGTERM exits without any cleanup)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def stop(signum: int, _frame: object) -> None:
        raise Terminated(f"ccbridge was stopped by signal {signum} while sub-hooks ran")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_hooks(
    hooks: Sequence[HookSpec],
    data: bytes,
    env: Mapping[str, str],
    cwd: str | None,
    output_cap: int = OUTPUT_CAP,
) -> list[HookRun]:
    """Run every hook at once on the same stdin; one HookRun per hook, in the order given."""
    now = time.monotonic()
    runs: list[HookRun | None] = [None] * len(hooks)
    live: dict[int, _Live] = {}
    with selectors.DefaultSelector() as selector, _terminate_unwinds(), contained() as containment:
        started: list[_Live | HookRun | None] = [None] * len(hooks)
        try:
            _start_all(hooks, started, lambda hook: _start(hook, data, env, cwd, now, containment))
            for index, item in enumerate(started):
                if isinstance(item, HookRun):
                    runs[index] = item
                    continue
                assert item is not None
                live[index] = item
                process = item.process
                assert process.stdin and process.stdout and process.stderr
                selector.register(process.stdout, selectors.EVENT_READ, (index, "out"))
                selector.register(process.stderr, selectors.EVENT_READ, (index, "err"))
                if item.pidfd is not None:
                    selector.register(item.pidfd, selectors.EVENT_READ, (index, "exit"))
                if data:
                    selector.register(process.stdin, selectors.EVENT_WRITE, (index, "in"))
                else:
                    process.stdin.close()
            if containment:
                containment.started(item.process.pid for item in live.values())
            _drive(selector, live, output_cap)
        finally:
            for index, item in enumerate(started):
                if isinstance(item, _Live):
                    runs[index] = _finish(item)
    return [run if run is not None else HookRun(exit_code=None, error="never ran") for run in runs]


def _start_all(
    hooks: Sequence[HookSpec],
    started: list[_Live | HookRun | None],
    start: Callable[[HookSpec], _Live | HookRun],
) -> None:
    """Start every hook, filling `started` in place (so a failure half-way leaves the caller
    what did start, to finish). Several threads start them: the parent waits for each child's
    exec (vfork), so one thread spawns a process at a time and leaves the other cores idle."""
    failures: list[BaseException] = []

    def starter(first: int) -> None:
        for index in range(first, len(hooks), _STARTERS):
            if failures:
                return
            try:
                started[index] = start(hooks[index])
            except BaseException as error:  # re-raised in the calling thread below
                failures.append(error)
                return

    helpers = [
        threading.Thread(target=starter, args=(first,), daemon=True)
        for first in range(1, min(_STARTERS, len(hooks)))
    ]
    for helper in helpers:
        helper.start()
    try:
        starter(0)
        for helper in helpers:
            helper.join()
    except BaseException as error:  # SIGTERM: the helpers stop at their next hook
        failures.append(error)
        for helper in helpers:
            helper.join()
        raise
    if failures:
        raise failures[0]


def _drive(selector: selectors.BaseSelector, live: dict[int, _Live], output_cap: int) -> None:
    while any(not item.done for item in live.values()):
        now = time.monotonic()
        for item in live.values():
            if item.done:
                continue
            if item.exited_at is None and item.pidfd is None and item.process.poll() is not None:
                item.exited_at = now
            if now >= item.deadline:
                item.error = f"timed out after {item.hook.timeout:g}s"
                _close(selector, item)
            elif item.exited_at is not None and (
                item.open_streams == 0 or now >= item.exited_at + EXIT_GRACE
            ):
                _close(selector, item)
        pending = [item for item in live.values() if not item.done]
        if not pending:
            return
        wake = min(
            min(item.deadline, item.exited_at + EXIT_GRACE if item.exited_at else item.deadline)
            for item in pending
        )
        if any(item.pidfd is None and item.exited_at is None for item in pending):
            wake = min(wake, now + EXIT_POLL)
        for key, _mask in selector.select(timeout=max(0.0, wake - time.monotonic())):
            index, what = key.data
            if not live[index].done:  # an earlier event of this batch may have closed it
                _service(selector, live[index], what, key.fileobj, output_cap)  # type: ignore[arg-type]


def _service(
    selector: selectors.BaseSelector, item: _Live, what: str, stream: IO[bytes], output_cap: int
) -> None:
    process = item.process
    if what == "exit":
        selector.unregister(stream)
        item.exited_at = time.monotonic()
        return
    if what == "in":
        assert process.stdin
        try:
            item.written += os.write(process.stdin.fileno(), item.stdin[item.written :][:_CHUNK])
        except (BrokenPipeError, OSError):  # the hook does not read its stdin: that is its right
            item.written = len(item.stdin)
        if item.written >= len(item.stdin):
            selector.unregister(process.stdin)
            process.stdin.close()
        return
    fd = stream.fileno()
    try:
        chunk = os.read(fd, _CHUNK)
    except BlockingIOError:
        return
    if not chunk:
        selector.unregister(stream)
        item.open_streams -= 1
        return
    buffer = item.out if what == "out" else item.err
    buffer += chunk
    if len(buffer) > output_cap:
        item.error = f"std{what} exceeded the {output_cap}-byte output cap"
        _close(selector, item)


def _close(selector: selectors.BaseSelector, item: _Live) -> None:
    """Kill what is left of the hook's process group and stop watching its streams."""
    _kill_group(item.process.pid)
    for stream in (item.process.stdin, item.process.stdout, item.process.stderr):
        if stream is None or stream.closed:
            continue
        with suppress(KeyError, ValueError):
            selector.unregister(stream)
        stream.close()
    if item.exited_at is None and item.pidfd is not None:
        with suppress(KeyError, ValueError):
            selector.unregister(item.pidfd)
    item.ended = time.monotonic()
    item.done = True


def _finish(item: _Live) -> HookRun:
    _kill_group(item.process.pid)
    exit_code = item.process.wait()
    if item.pidfd is not None:
        os.close(item.pidfd)
    duration = ((item.ended or time.monotonic()) - item.started) * 1000
    if item.error is not None:
        return HookRun(
            exit_code=None,
            stdout=bytes(item.out),
            stderr=bytes(item.err),
            duration_ms=duration,
            error=item.error,
        )
    return HookRun(
        exit_code=exit_code, stdout=bytes(item.out), stderr=bytes(item.err), duration_ms=duration
    )
