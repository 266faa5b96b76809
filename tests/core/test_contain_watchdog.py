"""Containment (Linux) in this process: the watchdog's protocol and its sweep, what a normal end
tells it, a fork that fails, and the /proc readers when a process vanishes mid-read (issue 16:
the watchdog itself runs in a forked child, where mutation testing cannot see a test reach it,
so its steps are also driven here with the process-wide calls it makes stood in for)."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.subhooks import contain

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="Linux only")


def _sleeper(env: dict[str, str], *, own_session: bool = True) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sleep", "30"], env=env, start_new_session=own_session)


@pytest.fixture
def cleanup() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def _until_marked(token: str, count: int) -> None:
    for _ in range(500):  # an exec'd process shows its environment once it runs
        if len(contain.marked(token)) >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"fewer than {count} processes carry {token}")


def test_the_sweep_kills_the_groups_and_the_marked_and_nothing_else(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    token = os.urandom(8).hex()
    group = _sleeper({})  # dropped the environment: found by its process group only
    carrying = _sleeper({contain.MARK: f"outer {token}"})  # left the group: by the token only
    other = _sleeper({contain.MARK: "someone-else"})
    cleanup += [group, carrying, other]
    _until_marked(token, 1)
    contain._sweep([group.pid], token)
    assert group.wait(5) == -signal.SIGKILL
    assert carrying.wait(5) == -signal.SIGKILL
    assert other.poll() is None


def test_marked_finds_the_token_among_others_and_only_it(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    token = os.urandom(8).hex()
    mine = _sleeper({contain.MARK: f"a {token} b"})
    prefix = _sleeper({contain.MARK: token + "x"})  # a longer token is another token
    cleanup += [mine, prefix]
    _until_marked(token, 1)
    assert contain.marked(token) == [mine.pid]


class _Os:
    """The process-wide calls of the watchdog, stood in for: the pipe is read for real."""

    O_RDWR, devnull = os.O_RDWR, os.devnull

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)  # the parameters are shared between runs
        self.calls: list[tuple[Any, ...]] = []

    def close(self, fd: int) -> None:
        self.calls.append(("close", fd))

    def setsid(self) -> None:
        self.calls.append(("setsid",))

    def open(self, path: str, flags: int) -> int:
        self.calls.append(("open", path, flags))
        return 99

    def dup2(self, fd: int, fd2: int) -> None:
        self.calls.append(("dup2", fd, fd2))

    def closerange(self, low: int, high: int) -> None:
        self.calls.append(("closerange", low, high))

    def sysconf(self, name: str) -> int:
        return os.sysconf(name)

    def read(self, fd: int, size: int) -> bytes:
        self.calls.append(("read", fd, size))
        return self.chunks.pop(0) if self.chunks else b""

    def _exit(self, code: int) -> None:
        self.calls.append(("_exit", code))
        raise SystemExit(code)


def _watch(monkeypatch: pytest.MonkeyPatch, chunks: list[bytes]) -> tuple[_Os, list[Any]]:
    fake, sweeps = _Os(chunks), []
    monkeypatch.setattr(contain, "os", fake)
    monkeypatch.setattr(contain, "_sweep", lambda groups, token: sweeps.append((groups, token)))
    with pytest.raises(SystemExit):
        contain._watch(7, 8, "tok")
    return fake, sweeps


def test_the_watchdog_detaches_and_holds_nothing_but_its_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake, sweeps = _watch(monkeypatch, [b"12\n", b"34\ndone\n"])
    most = os.sysconf("SC_OPEN_MAX")
    assert fake.calls[:8] == [
        ("close", 8),  # the parent's write end: else the pipe never reads as closed
        ("setsid",),
        ("open", os.devnull, os.O_RDWR),
        ("dup2", 99, 0),
        ("dup2", 99, 1),
        ("dup2", 99, 2),
        ("closerange", 3, 7),  # every descriptor but 0-2 and the pipe (7)
        ("closerange", 8, most),
    ]
    assert [call for call in fake.calls if call[0] == "read"] == [("read", 7, 4096)] * 3
    assert fake.calls[-1] == ("_exit", 0)
    assert sweeps == []  # the all-clear came


@pytest.mark.parametrize(
    ("chunks", "groups"),
    [
        ([b"12\n3", b"4\n"], [12, 34]),  # a pid split across reads
        ([b"12\ndone\n56\n"], [12, 56]),  # all-clear only counts at the end
        ([b"12\ndon"], [12]),  # died while writing it
        ([], []),
    ],
)
def test_without_the_all_clear_the_watchdog_sweeps_the_groups_it_was_told(
    monkeypatch: pytest.MonkeyPatch, chunks: list[bytes], groups: list[int]
) -> None:
    fake, sweeps = _watch(monkeypatch, chunks)
    assert sweeps == [(groups, "tok")]
    assert fake.calls[-1] == ("_exit", 0)


def test_the_watchdog_exits_even_when_a_step_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _Os([])

    def refused() -> None:
        raise PermissionError(1, "Operation not permitted")

    fake.setsid = refused  # type: ignore[method-assign]
    monkeypatch.setattr(contain, "os", fake)
    with pytest.raises(SystemExit):
        contain._watch(7, 8, "tok")
    assert fake.calls[-1] == ("_exit", 0)


def test_started_tells_the_watchdog_one_process_group_a_line() -> None:
    read, write = os.pipe()
    try:
        containment = object.__new__(contain.Containment)
        containment._pipe = write
        containment.started(iter([12, 345]))
        containment.started([])
        os.close(write)
        assert os.read(read, 100) == b"12\n345\n"
    finally:
        os.close(read)


def test_a_watchdog_that_died_cannot_be_told_and_that_is_no_error() -> None:
    read, write = os.pipe()
    os.close(read)
    containment = object.__new__(contain.Containment)
    containment._pipe = write
    try:
        containment.started([12])  # EPIPE: Python ignores SIGPIPE
    finally:
        os.close(write)


def test_a_normal_end_tells_the_watchdog_to_sweep_nothing(
    monkeypatch: pytest.MonkeyPatch, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    """A process carrying the event's token that is no descendant of this one (it was there
    before) outlives the event: the all-clear keeps the watchdog from sweeping."""
    monkeypatch.setattr(os, "urandom", lambda n: b"\x5a" * n)
    token = "5a" * 8
    bystander = _sleeper({contain.MARK: token})
    cleanup.append(bystander)
    _until_marked(token, 1)
    containment = contain.Containment()
    assert containment.token == token
    containment.close()  # waits for the watchdog to exit
    assert bystander.poll() is None


def test_close_kills_and_reaps_every_descendant_started_since(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    before = _sleeper({}, own_session=False)  # an older child: not the event's to kill
    cleanup.append(before)
    containment = contain.Containment()
    child = _sleeper({}, own_session=False)
    grandchild_parent = subprocess.Popen(["sh", "-c", "sleep 30 & wait"])
    for _ in range(500):
        below = [
            p for p, (parent, _) in contain.processes().items() if parent == grandchild_parent.pid
        ]
        if below:
            break
        time.sleep(0.01)
    (grandchild,) = below
    containment.close()
    assert before.poll() is None
    for pid in (child.pid, grandchild_parent.pid, grandchild):
        assert not Path(f"/proc/{pid}").exists()  # killed and reaped: not even a zombie
    child.returncode = grandchild_parent.returncode = -9  # reaped by close, not by Popen


@pytest.mark.parametrize("before", [0, 1])
def test_a_fork_that_fails_leaves_nothing_open_and_the_flag_as_it_was(
    monkeypatch: pytest.MonkeyPatch, before: int
) -> None:
    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    libc, flag = ctypes.CDLL(None), ctypes.c_int(-1)
    libc.prctl(36, before)
    try:
        fds = sorted(os.listdir("/proc/self/fd"))
        monkeypatch.setattr(os, "fork", refused)
        with pytest.raises(BlockingIOError):
            contain.Containment()
        assert sorted(os.listdir("/proc/self/fd")) == fds
        libc.prctl(37, ctypes.byref(flag))
        assert flag.value == before
    finally:
        libc.prctl(36, 0)


def test_a_refused_subreaper_flag_is_an_error_with_its_errno(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Libc:
        @staticmethod
        def prctl(option: int, *_args: Any) -> int:
            if option != 36:
                return 0
            ctypes.set_errno(errno.EPERM)
            return -1

    monkeypatch.setattr(contain, "_libc", lambda: Libc)
    with pytest.raises(OSError) as raised:
        contain._prctl_subreaper(1)
    assert (raised.value.errno, raised.value.strerror) == (
        errno.EPERM,
        "prctl(PR_SET_CHILD_SUBREAPER) failed",
    )


def test_the_watchdog_sweeps_when_the_pipe_closes_without_the_all_clear(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    """ccbridge dying closes its end of the pipe: here it is closed by hand, in this process,
    and the watchdog (a real fork) kills the hook's group and what carries the token."""
    containment = contain.Containment()
    try:
        hook = _sleeper({})  # no token: only its process group tells the watchdog
        escaped = _sleeper(containment.env({}))  # out of the group: only its token does
        cleanup += [hook, escaped]
        containment.started([hook.pid])
        _until_marked(containment.token, 1)
        os.close(containment._pipe)
        assert hook.wait(10) == -signal.SIGKILL
        assert escaped.wait(10) == -signal.SIGKILL
        _, status = os.waitpid(containment._watchdog, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        contain._prctl_subreaper(containment._previous)


def test_the_subreaper_flag_is_set_and_its_previous_value_returned() -> None:
    libc, flag = ctypes.CDLL(None), ctypes.c_int(-1)
    libc.prctl(36, 1)
    try:
        assert contain._prctl_subreaper(0) == 1
        libc.prctl(37, ctypes.byref(flag))
        assert flag.value == 0
        assert contain._prctl_subreaper(1) == 0
        libc.prctl(37, ctypes.byref(flag))
        assert flag.value == 1
    finally:
        libc.prctl(36, 0)


@pytest.mark.parametrize(
    "vanished", [FileNotFoundError(2, "gone"), b"garbage", b"1 (x) S notanumber"]
)
def test_a_process_that_vanishes_mid_read_is_skipped(
    monkeypatch: pytest.MonkeyPatch, vanished: Exception | bytes
) -> None:
    """The first process listed ends while it is read (or leaves a cut-off stat): the table
    holds the others, this one included."""
    first = next(name for name in os.listdir("/proc") if name.isdigit())
    assert first != str(os.getpid())
    real = contain._read

    def read(path: str) -> bytes:
        if path in (f"/proc/{first}/stat", f"/proc/{first}/environ"):
            if isinstance(vanished, Exception):
                raise vanished
            return vanished
        return real(path)

    monkeypatch.setattr(contain, "_read", read)
    table = contain.processes()
    assert int(first) not in table
    assert table[os.getpid()][0] == os.getppid()


def test_marked_skips_a_process_whose_environment_cannot_be_read(
    monkeypatch: pytest.MonkeyPatch, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    token = os.urandom(8).hex()
    cleanup.append(_sleeper({contain.MARK: token}))
    _until_marked(token, 1)
    first = next(name for name in os.listdir("/proc") if name.isdigit())
    real = contain._read

    def read(path: str) -> bytes:
        if path == f"/proc/{first}/environ":
            raise PermissionError(13, "not ours to read")
        return real(path)

    monkeypatch.setattr(contain, "_read", read)
    assert contain.marked(token) == [cleanup[0].pid]


def test_a_command_name_with_parentheses_and_spaces(
    tmp_path: Path, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    """Fields follow the last `)` of /proc/PID/stat: the name may hold `) (` and spaces."""
    odd = tmp_path / "a) (b c"
    shutil.copy("/bin/sleep", odd)
    process = subprocess.Popen([str(odd), "30"])
    cleanup.append(process)
    table = contain.processes()
    assert table[process.pid][0] == os.getpid()
    assert table[process.pid][1] >= table[os.getpid()][1]


def test_killing_a_process_that_may_not_be_signalled_is_no_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(_pid: int, _signal: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "kill", refused)
    contain._kill(1)


def test_the_sweep_of_a_group_that_may_not_be_signalled_goes_on(
    monkeypatch: pytest.MonkeyPatch, cleanup: list[subprocess.Popen[bytes]]
) -> None:
    token = os.urandom(8).hex()
    carrying = _sleeper({contain.MARK: token})
    cleanup.append(carrying)
    _until_marked(token, 1)

    def refused(_group: int, _signal: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "killpg", refused)
    contain._sweep([1, 2], token)
    assert carrying.wait(5) == -signal.SIGKILL


def test_the_sweep_kills_until_two_looks_in_a_row_find_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process that shows up after one quiet look is still killed; after two, the watchdog
    stops looking (and never counts itself)."""
    looks = [[], [11, os.getpid()], [], [12], [], [], [13]]
    killed: list[int] = []
    monkeypatch.setattr(contain, "marked", lambda _token: looks.pop(0))
    monkeypatch.setattr(contain, "_kill", killed.append)
    monkeypatch.setattr(contain, "_SWEEP_SECONDS", 120.0)
    contain._sweep([], "tok")
    assert killed == [11, 12]
    assert looks == [[13]]


def test_the_sweep_of_groups_that_are_gone_is_no_error() -> None:
    process = subprocess.Popen(["true"], start_new_session=True)
    process.wait()
    contain._sweep([process.pid], os.urandom(8).hex())


@pytest.mark.parametrize("reaped_elsewhere", [False, True])
def test_close_after_the_watchdog_died_is_no_error(reaped_elsewhere: bool) -> None:
    containment = contain.Containment()
    os.kill(containment._watchdog, signal.SIGKILL)
    if reaped_elsewhere:
        os.waitpid(containment._watchdog, 0)
    containment.close()  # the all-clear finds no reader; the wait finds no child
    assert not Path(f"/proc/{containment._watchdog}").exists()
