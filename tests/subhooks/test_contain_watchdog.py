"""Containment (Linux): the watchdog shell's protocol, driven through its pipe by hand, and the
sweep it hands over to; what a normal end tells it, a watchdog that cannot start, and the /proc
readers when a process vanishes mid-read."""

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

from bridge.subhooks import contain, spawn

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


def test_the_sweep_kills_the_marked_and_nothing_else(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    token = os.urandom(8).hex()
    older = _sleeper({contain.MARK: token})  # carries it, but was there before the event
    _until_marked(token, 1)
    time.sleep(0.05)  # start times are in clock ticks (10 ms)
    since = contain.boot_ticks()
    carrying = _sleeper({contain.MARK: f"outer {token}"})  # left the group: by the token only
    other = _sleeper({contain.MARK: "someone-else"})
    cleanup += [older, carrying, other]
    _until_marked(token, 2)
    contain.sweep(token, since)
    assert carrying.wait(5) == -signal.SIGKILL
    assert other.poll() is None
    assert older.poll() is None


def test_marked_finds_the_token_among_others_and_only_it(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    token = os.urandom(8).hex()
    mine = _sleeper({contain.MARK: f"a {token} b"})
    prefix = _sleeper({contain.MARK: token + "x"})  # a longer token is another token
    cleanup += [mine, prefix]
    _until_marked(token, 1)
    assert contain.marked(token) == [mine.pid]


def descriptors(pid: int) -> dict[int, str]:
    """A process's open descriptors and what each names. One may close between the listing and
    its readlink (the loader's library, for a moment after exec): then the whole listing is
    taken again, so what is returned is one consistent look, never an error."""
    for _ in range(100):
        listing = os.listdir(f"/proc/{pid}/fd")  # the process itself gone: that error stands
        try:
            return {int(fd): os.readlink(f"/proc/{pid}/fd/{fd}") for fd in listing}
        except FileNotFoundError:
            continue
    raise AssertionError(f"the descriptors of {pid} kept changing under 100 listings")


def _watchdog_of(containment: contain.Containment) -> dict[str, Any]:
    pid = containment._watchdog
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return {"session": int(fields[3]), "fds": descriptors(pid)}


def test_a_descriptor_that_closes_mid_listing_is_listed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first readlink finds its entry gone (as fd 3 of a shell whose loader just closed
    it): the listing is taken again instead of the error escaping."""
    real, failed = os.readlink, list[str]()

    def readlink(path: str) -> str:
        if not failed:
            failed.append(path)
            raise FileNotFoundError(2, "No such file or directory", path)
        return real(path)

    # Another process: this one's own listing holds the descriptor that reads it.
    sleeper = subprocess.Popen(["sleep", "30"], stdin=subprocess.DEVNULL)
    try:
        monkeypatch.setattr(os, "readlink", readlink)
        seen = descriptors(sleeper.pid)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert failed and seen[0] == os.devnull


def test_the_watchdog_detaches_and_holds_nothing_but_its_pipe() -> None:
    """Its own session (a kill of ccbridge's group spares it), stdin the pipe, stdout and
    stderr /dev/null (never Claude Code's pipes), and nothing inherited besides."""
    inheritable = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(inheritable, True)
    try:
        containment = contain.Containment(spawn.inherited())
    finally:
        os.close(inheritable)
    try:
        for _ in range(500):
            # The shell has exec'd once its stdin is the pipe, but its dynamic loader may still
            # hold the library it maps (libc.so.6 as fd 3, for a moment): wait for that to go.
            # An inherited descriptor never goes, and fails the listing below.
            seen = _watchdog_of(containment)
            if seen["fds"].get(0, "").startswith("pipe:") and len(seen["fds"]) == 3:
                break
            time.sleep(0.01)
        assert seen["session"] == containment._watchdog
        assert sorted(seen["fds"]) == [0, 1, 2]
        assert seen["fds"][0] == os.readlink(f"/proc/self/fd/{containment._pipe}")
        assert seen["fds"][1] == seen["fds"][2] == os.devnull
    finally:
        containment.close()


def _told(said: str, groups: list[subprocess.Popen[bytes]]) -> int:
    """A watchdog told `said`, after which its ccbridge is gone (the pipe closes); its exit
    status. In `said`, `{0}` and `{1}` are the groups' pids, `{0a}` and `{0b}` the first's first
    two digits and the rest, and `|` ends a write (each is read on its own)."""
    first, second = str(groups[0].pid), str(groups[1].pid)
    text = said.format(first, second, **{"0a": first[:2], "0b": first[2:]})
    containment = contain.Containment()
    try:
        for chunk in text.split("|"):
            os.write(containment._pipe, chunk.encode())
            time.sleep(0.05)
        os.close(containment._pipe)
        _, status = os.waitpid(containment._watchdog, 0)
        return os.waitstatus_to_exitcode(status)
    finally:
        contain._prctl_subreaper(containment._previous)


@pytest.mark.parametrize(
    ("said", "killed"),
    [
        ("{0}\n|{1}\n", [0, 1]),
        ("{0}\n{1}", [0, 1]),  # the last line unterminated: still a group
        ("{0a}|{0b}\n", [0]),  # a pid split across writes
        ("{0}\nx\n\n-1\n 7\n{1}\n", [0, 1]),  # no group on the lines between: skipped
        ("{0}\ndon", [0]),  # ccbridge died while writing the all-clear
        ("", []),
    ],
)
def test_without_the_all_clear_the_watchdog_kills_the_groups_it_was_told(
    cleanup: list[subprocess.Popen[bytes]], said: str, killed: list[int]
) -> None:
    groups = [_sleeper({}), _sleeper({})]  # no token: only their groups tell the watchdog
    cleanup += groups
    assert _told(said, groups) == 0  # the sweep ran, and ended
    for index, group in enumerate(groups):
        if index in killed:
            assert group.wait(5) == -signal.SIGKILL
        else:
            assert group.poll() is None


def test_the_all_clear_ends_the_watchdog_and_kills_nothing(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    groups = [_sleeper({}), _sleeper({})]
    cleanup += groups
    started = time.monotonic()
    assert _told("{0}\ndone\n{1}\n", groups) == 0
    assert time.monotonic() - started < 2  # it did not wait for the sweep's quiet looks
    assert [group.poll() for group in groups] == [None, None]


def test_a_group_that_is_gone_does_not_stop_the_watchdog(
    cleanup: list[subprocess.Popen[bytes]],
) -> None:
    gone = subprocess.Popen(["true"], start_new_session=True)
    gone.wait()
    alive = _sleeper({})
    cleanup.append(alive)
    assert _told("{0}\n{1}\n", [gone, alive]) == 0
    assert alive.wait(5) == -signal.SIGKILL


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
def test_a_watchdog_that_cannot_start_leaves_nothing_open_and_the_flag_as_it_was(
    monkeypatch: pytest.MonkeyPatch, before: int
) -> None:
    def refused(*_args: Any) -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    libc, flag = ctypes.CDLL(None), ctypes.c_int(-1)
    libc.prctl(36, before)
    try:
        fds = sorted(os.listdir("/proc/self/fd"))
        monkeypatch.setattr(spawn, "start", refused)
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
    def prctl(option: int, *_args: Any) -> int:
        if option != 36:
            return 0
        ctypes.set_errno(errno.EPERM)
        return -1

    prctl.restype = ctypes.c_int  # type: ignore[attr-defined]
    monkeypatch.setattr(contain, "_prctl", lambda: prctl)
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
    and the watchdog kills the hook's group and, as Python, what carries the token."""
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


def test_the_sweep_kills_until_two_looks_in_a_row_find_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process that shows up after one quiet look is still killed; after two, the watchdog
    stops looking. It never counts itself, a process older than the event (14) or one that
    ended before its start time was read (15)."""
    looks = [[], [11, os.getpid(), 14, 15], [], [12], [], [], [13]]
    killed: list[int] = []
    table = {11: (1, 5), 12: (1, 6), 13: (1, 5), 14: (1, 4), os.getpid(): (1, 5)}
    monkeypatch.setattr(contain, "marked", lambda _token: looks.pop(0))
    monkeypatch.setattr(contain, "_kill", killed.append)
    monkeypatch.setattr(contain, "_SWEEP_SECONDS", 120.0)
    monkeypatch.setattr(contain, "processes", lambda: table)
    contain.sweep("tok", 5)
    assert killed == [11, 12]
    assert looks == [[13]]


@pytest.mark.parametrize("reaped_elsewhere", [False, True])
def test_close_after_the_watchdog_died_is_no_error(reaped_elsewhere: bool) -> None:
    containment = contain.Containment()
    os.kill(containment._watchdog, signal.SIGKILL)
    if reaped_elsewhere:
        os.waitpid(containment._watchdog, 0)
    containment.close()  # the all-clear finds no reader; the wait finds no child
    assert not Path(f"/proc/{containment._watchdog}").exists()


def test_close_waits_for_a_watchdog_slow_to_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The all-clear is read, and the watchdog takes its time to exit: close reaps it all the
    same, leaving not even a zombie."""
    monkeypatch.setattr(contain, "_WATCHDOG", "cat >/dev/null; sleep 0.3")
    containment = contain.Containment()
    containment.close()
    assert not Path(f"/proc/{containment._watchdog}").exists()


def test_the_prctl_binding_reports_the_system_s_errno() -> None:
    """A refusal's reason comes from errno, which the binding keeps for ctypes to read."""
    prctl = contain._prctl()
    assert prctl(-1, 0) == -1  # no such option
    assert ctypes.get_errno() == errno.EINVAL
