"""Starting a program with posix_spawn: what the started program gets (a session of its own,
its stdio, default SIGPIPE, none of ccbridge's inherited descriptors) and the pipes it is given,
even when ccbridge's own stdio is closed."""

from __future__ import annotations

import os

import pytest

from bridge.subhooks import spawn


def _started(argv: list[str], closes: list[spawn.Action] | None = None) -> tuple[int, bytes]:
    """Run `argv` through spawn.start; its exit code and what it wrote on stdout."""
    read, write = spawn.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    try:
        pid = spawn.start(argv[0], argv, dict(os.environ), (null, write, null), closes or [])
    finally:
        os.close(write)
        os.close(null)
    out = b""
    while chunk := os.read(read, 65536):
        out += chunk
    os.close(read)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), out


def test_the_program_runs_in_a_session_of_its_own() -> None:
    code, out = _started(["/bin/sh", "-c", "echo $$; cut -d' ' -f6 /proc/$$/stat"])
    pid, session = out.split()
    assert code == 0 and pid == session != str(os.getsid(0)).encode()


def test_sigpipe_and_sigxfsz_are_back_at_their_defaults() -> None:
    """Python ignores SIGPIPE, and an ignored signal stays ignored across exec: a program of
    a pipeline would then see EPIPE errors where it should have ended quietly."""
    code, out = _started(["/bin/sh", "-c", "grep SigIgn /proc/self/status"])
    ignored = int(out.split()[1], 16)
    assert code == 0
    assert not ignored & (1 << (13 - 1)), "SIGPIPE ignored"
    assert not ignored & (1 << (25 - 1)), "SIGXFSZ ignored"


def test_inherited_descriptors_are_closed_in_the_program() -> None:
    """A descriptor ccbridge inherited (not close-on-exec) is not passed on; ccbridge's own
    (close-on-exec, as Python makes them) never were."""
    inheritable = os.open(os.devnull, os.O_RDONLY)
    own = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(inheritable, True)
    try:
        closes = spawn.inherited()
        assert (os.POSIX_SPAWN_CLOSE, inheritable) in closes
        assert (os.POSIX_SPAWN_CLOSE, own) not in closes
        script = f"[ -e /proc/self/fd/{inheritable} ] && echo held || echo closed"
        assert _started(["/bin/sh", "-c", script], closes) == (0, b"closed\n")
        assert _started(["/bin/sh", "-c", script], []) == (0, b"held\n")  # the control
    finally:
        os.close(inheritable)
        os.close(own)


def test_inherited_is_empty_without_a_descriptor_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    def unlisted(_path: str) -> list[str]:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "listdir", unlisted)
    assert spawn.inherited() == []


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@pytest.mark.parametrize("closed", [(0, 1, 2), (2,), (0,)])
def test_a_pipe_is_made_above_the_standard_descriptors_when_they_are_closed(
    closed: tuple[int, ...],
) -> None:
    """With stdin, stdout or stderr closed (a caller may start ccbridge so), a pipe would land
    on 0 to 2 and be overwritten while the program's stdio is set up. They are closed here for
    a moment, and put back."""
    saved = {fd: os.dup(fd) for fd in closed}
    ends: tuple[int, int] = (-1, -1)
    try:
        for fd in closed:
            os.close(fd)
        ends = spawn.pipe()
        reopened = [fd for fd in closed if _is_open(fd)]
    finally:
        for fd in ends:
            if fd >= 0:
                os.close(fd)
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
    assert min(ends) > 2
    assert reopened == []  # the low pipes made on the way are closed again


def test_an_inherited_descriptor_past_the_listing_s_own_is_found() -> None:
    """The listing's own descriptor (closed once it is read) may come before an inherited one
    in the listing: the scan goes on past it."""
    gap = os.open(os.devnull, os.O_RDONLY)
    inheritable = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(inheritable, True)
    os.close(gap)  # the listing's descriptor takes this lower number
    try:
        assert (os.POSIX_SPAWN_CLOSE, inheritable) in spawn.inherited()
    finally:
        os.close(inheritable)


def test_descriptor_3_is_the_first_that_is_closed() -> None:
    held = os.dup(3) if _is_open(3) else None
    mine = os.open(os.devnull, os.O_RDONLY)
    os.dup2(mine, 3)  # inheritable, as dup2 makes it
    try:
        closes = spawn.inherited()
        assert (os.POSIX_SPAWN_CLOSE, 3) in closes
        assert not {action[1] for action in closes} & {0, 1, 2}
    finally:
        os.close(mine)
        if held is None:
            os.close(3)
        else:
            os.dup2(held, 3, inheritable=False)
            os.close(held)


def test_without_proc_the_descriptors_are_listed_from_dev_fd(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = os.listdir
    inheritable = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(inheritable, True)

    def no_proc(path: str) -> list[str]:
        if path.startswith("/proc"):
            raise FileNotFoundError(2, "No such file or directory")
        return real(path)

    monkeypatch.setattr(os, "listdir", no_proc)
    try:
        assert (os.POSIX_SPAWN_CLOSE, inheritable) in spawn.inherited()
    finally:
        os.close(inheritable)
