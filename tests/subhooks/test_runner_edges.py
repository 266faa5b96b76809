"""The sub-hook runner at its edges: what a hook wrote on each stream, the output cap to the
byte, how long each hook took, output written after the hook exited, and what `_close` lets go
of. Real processes, in this process (each test here kills mutants of runner.py)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from bridge.subhooks import contain, runner
from bridge.subhooks.runner import Terminated, run_hooks
from bridge.subhooks.verdict import HookRun
from tests.support.events import hook


def env() -> dict[str, str]:
    return dict(os.environ)


def test_stdout_and_stderr_are_kept_apart() -> None:
    (run,) = run_hooks([hook("printf out; printf err >&2; exit 3")], b"", env(), None)
    assert (run.exit_code, run.stdout, run.stderr, run.error) == (3, b"out", b"err", None)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_up_to_the_cap_is_kept_and_one_byte_more_fails(stream: str) -> None:
    redirect = "" if stream == "stdout" else " >&2"
    exact, over = run_hooks(
        [hook(f"printf 0123456789{redirect}"), hook(f"printf 0123456789X{redirect}")],
        b"",
        env(),
        None,
        output_cap=10,
    )
    assert (exact.exit_code, exact.error, getattr(exact, stream)) == (0, None, b"0123456789")
    assert over.exit_code is None
    assert over.error == f"{stream} exceeded the 10-byte output cap"


def test_a_hook_that_timed_out_keeps_what_it_wrote() -> None:
    (run,) = run_hooks(
        [hook("printf out; printf err >&2; exec sleep 30", timeout=0.5)], b"", env(), None
    )
    assert (run.exit_code, run.stdout, run.stderr) == (None, b"out", b"err")
    assert run.error == "timed out after 0.5s"
    assert 500 <= run.duration_ms < 25_000  # killed at its deadline, not when sleep ended


def test_each_hook_is_timed_from_the_start_to_its_own_end() -> None:
    """The quick hook's duration ends when it ended, not when the slow one let the run end."""
    slow, quick = run_hooks([hook("sleep 1"), hook("true")], b"", env(), None)
    assert (slow.exit_code, quick.exit_code) == (0, 0)
    assert 1000 <= slow.duration_ms < 60_000
    assert 0 < quick.duration_ms < slow.duration_ms


def test_output_of_a_child_after_the_hook_exited_is_read_until_its_pipe_closes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hook closes its stdout and exits; a child still holding stderr writes later. The
    run waits for that pipe to close (within the grace), and no longer."""
    monkeypatch.setattr(runner, "EXIT_GRACE", 20.0)
    script = "exec 1>&-; (sleep 0.3; printf late >&2) & exit 0"
    (run,) = run_hooks([hook(script, timeout=60)], b"", env(), None)
    assert (run.exit_code, run.stdout, run.stderr, run.error) == (0, b"", b"late", None)
    assert run.duration_ms < 15_000  # it ended when stderr closed, not at the end of the grace


@pytest.mark.parametrize("data", [b"", b"event"])
@pytest.mark.parametrize("with_pidfd", [True, False])
def test_closing_a_hook_kills_it_and_stops_watching_all_it_had(
    monkeypatch: pytest.MonkeyPatch, with_pidfd: bool, data: bytes
) -> None:
    if not with_pidfd:
        monkeypatch.setattr(runner, "open_pidfd", lambda _pid: None)
    item = runner._start(hook("exec sleep 30"), data, runner._Spawner(env(), None, []), 0.0)
    assert isinstance(item, runner._Live)
    assert (item.pidfd is not None) is with_pidfd
    try:
        watch = runner._watch_all([item])  # no data: stdin is closed before the others
        assert (item.stdin is None) is not bool(data)
        before = time.monotonic()
        runner._close(watch, item)
        assert watch._owners == {}
        assert (item.stdin, item.stdout, item.stderr) == (None, None, None)
        assert item.done is True and item.ended >= before
        _, status = os.waitpid(item.pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    finally:
        runner._kill_group(item.pid)
        if item.pidfd is not None:
            os.close(item.pidfd)


def test_a_failed_start_is_told_by_the_systems_reason() -> None:
    missing, nul = run_hooks(
        [hook("/no/such/prog", args=("a",)), hook("/bin/echo", args=("a\0b",))], b"", env(), None
    )
    assert missing == HookRun(
        exit_code=None,
        error="could not start '/no/such/prog': No such file or directory",
    )
    assert nul == HookRun(exit_code=None, error="could not start '/bin/echo': embedded null byte")


def test_hooks_after_one_that_could_not_start_still_run() -> None:
    failed, ran = run_hooks([hook("/no/such/prog", args=()), hook("printf ran")], b"", env(), None)
    assert failed.exit_code is None and failed.error is not None
    assert (ran.exit_code, ran.stdout, ran.error) == (0, b"ran", None)


def test_a_hook_without_a_command_runs_an_empty_shell_line() -> None:
    assert runner.argv_of(hook(None), {}) == ["sh", "-c", ""]


def test_containment_is_told_every_hooks_process_group_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the start loop, in one call: the pids the hooks themselves report (`$$` of the
    `sh -c` each runs as), a hook that could not start left out."""
    calls: list[list[int]] = []
    told = contain.Containment.started

    def started(self: contain.Containment, pids: Iterable[int]) -> None:
        calls.append(list(pids))
        told(self, calls[-1])

    monkeypatch.setattr(contain.Containment, "started", started)
    runs = run_hooks(
        [hook("printf $$"), hook("/no/such/prog", args=()), hook("printf $$")], b"", env(), None
    )
    assert calls == [[int(runs[0].stdout), int(runs[2].stdout)]]


class Escaped(Exception):
    """SIGTERM reached a handler other than the runner's."""


def test_sigterm_while_hooks_run_unwinds_and_kills_them(tmp_path: Path) -> None:
    """ccbridge told to stop raises, its hooks are killed, and the handler it found is back."""

    def elsewhere(_signum: int, _frame: object) -> None:
        raise Escaped

    pid_file = tmp_path / "pid"
    script = f"echo $$ > {pid_file}; kill -TERM {os.getpid()}; exec sleep 30"
    previous = signal.signal(signal.SIGTERM, elsewhere)
    try:
        with pytest.raises(Terminated, match=f"stopped by signal {int(signal.SIGTERM)} while"):
            run_hooks([hook(script, timeout=20)], b"", env(), None)
        assert signal.getsignal(signal.SIGTERM) is elsewhere
    finally:
        signal.signal(signal.SIGTERM, previous)
    pid = int(pid_file.read_text())
    for _ in range(100):  # SIGKILL delivery is asynchronous; a survivor stays for good
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.02)
    assert not Path(f"/proc/{pid}").exists()


def test_hooks_run_from_a_thread_other_than_the_main_one(tmp_path: Path) -> None:
    """Signal handlers can only be set in the main thread: elsewhere the run goes on without,
    with the same stdin and directory."""
    results: list[Any] = []
    worker = threading.Thread(
        target=lambda: results.append(
            run_hooks([hook("cat; printf ' '; pwd")], b"event", env(), str(tmp_path))
        )
    )
    worker.start()
    worker.join(30)
    assert [[(run.exit_code, run.stdout) for run in runs] for runs in results] == [
        [(0, f"event {tmp_path}\n".encode())]
    ]


@pytest.mark.parametrize("error", [None, "timed out after 1s"])
def test_a_finished_hook_reports_its_exit_output_and_time_in_milliseconds(
    error: str | None,
) -> None:
    pid = os.posix_spawn("/bin/sh", ["sh", "-c", "exit 4"], env(), setsid=True)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # exited, left for _finish to reap
    item = runner._Live(
        hook=hook("exit 4"),
        pid=pid,
        stdin=None,
        stdout=None,
        stderr=None,
        pidfd=None,
        started=10.0,
        deadline=11.0,
        data=b"",
    )
    item.out += b"o"
    item.err += b"e"
    item.ended, item.error = 12.25, error
    assert runner._finish(item) == HookRun(
        exit_code=4 if error is None else None,
        stdout=b"o",
        stderr=b"e",
        duration_ms=2250.0,
        error=error,
    )


def test_ccbridge_is_back_in_its_own_directory_after_starting_hooks_elsewhere(
    tmp_path: Path,
) -> None:
    here = os.getcwd()
    (run,) = run_hooks([hook("pwd")], b"", env(), str(tmp_path))
    assert run.stdout == f"{tmp_path}\n".encode()
    assert os.getcwd() == here


def test_hooks_start_elsewhere_even_when_ccbridge_s_own_directory_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone, there = tmp_path / "gone", tmp_path / "there"
    gone.mkdir()
    there.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    (run,) = run_hooks([hook("pwd")], b"", env(), str(there))
    assert run.stdout == f"{there}\n".encode()
    with pytest.raises(FileNotFoundError):
        os.getcwd()  # back in the removed directory, not moved somewhere else


def test_a_directory_that_cannot_be_entered_is_every_hook_s_start_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(_path: str) -> None:
        raise PermissionError(13, "Permission denied")

    here = os.getcwd()
    monkeypatch.setattr(os, "chdir", refused)
    runs = run_hooks([hook("true"), hook("false")], b"", env(), str(tmp_path))
    assert [run.error for run in runs] == [
        f"could not start: cannot enter {str(tmp_path)!r}: Permission denied"
    ] * 2
    assert os.getcwd() == here


def test_programs_are_found_on_the_hooks_path_not_in_the_directory(tmp_path: Path) -> None:
    """As `subprocess` (and a shell) find them: the first executable file of that name on the
    PATH the hooks get; a directory or a file that may not be run is passed over; a program
    not on the PATH is not taken from the working directory."""
    first, second, work = tmp_path / "first", tmp_path / "second", tmp_path / "work"
    for directory in (first, second, work):
        directory.mkdir()
    (first / "tool").mkdir()  # a directory of that name
    (first / "other").write_text("#!/bin/sh\necho not executable\n")  # no x bit
    for directory, said in ((second, "second"), (work, "work")):
        for name in ("tool", "other"):
            script = directory / name
            script.write_text(f"#!/bin/sh\necho {said} $0\n")
            script.chmod(0o755)
    path_env = {**env(), "PATH": f"{first}:{second}"}
    tool, other, missing = run_hooks(
        [hook("tool", args=()), hook("other", args=()), hook("sh", args=("-c", "true"))],
        b"",
        path_env,
        str(work),
    )
    assert tool.stdout == f"second {second}/tool\n".encode()
    assert other.stdout == f"second {second}/other\n".encode()
    assert missing.error == "could not start 'sh': No such file or directory"


@pytest.mark.parametrize("with_pidfd", [True, False])
def test_a_hook_whose_exit_status_was_lost_is_a_failure_not_a_pass(
    monkeypatch: pytest.MonkeyPatch, with_pidfd: bool
) -> None:
    """With SIGCHLD ignored the system reaps exited children itself and their exit status is
    gone: the hook did not answer, which never counts as a clean exit 0. Without a pidfd the
    exit is still seen (not waited out to the timeout)."""
    if not with_pidfd:
        monkeypatch.setattr(runner, "open_pidfd", lambda _pid: None)
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        (run,) = run_hooks([hook("exit 2", timeout=3)], b"", env(), None)
    finally:
        signal.signal(signal.SIGCHLD, previous)
    assert run.exit_code is None
    assert run.error == "its exit status was lost (SIGCHLD ignored?)"


def test_hooks_start_elsewhere_from_a_directory_ccbridge_may_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ccbridge was is held by a path-only descriptor (O_PATH), which needs no read
    permission on that directory. The tests run as root, who may read anything, so the
    kernel's refusal of any other opening is stood in for."""
    real_open = os.open

    def unreadable_here(path: str, flags: int, *args: Any) -> int:
        if path == "." and not flags & os.O_PATH:
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", unreadable_here)
    (run,) = run_hooks([hook("pwd")], b"", env(), str(tmp_path))
    assert (run.stdout, run.error) == (f"{tmp_path}\n".encode(), None)


def test_a_hook_that_closed_stdout_and_left_a_child_on_stderr_ends_at_the_grace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its stdout is done and it exited; stderr stays open in a child: the run lets go at the
    end of the grace, kills the child, and reports the exit as it was."""
    monkeypatch.setattr(runner, "EXIT_GRACE", 0.2)
    (run,) = run_hooks([hook("printf out; exec 1>&-; sleep 30 & exit 3")], b"", env(), None)
    assert (run.exit_code, run.stdout, run.stderr, run.error) == (3, b"out", b"", None)
    assert run.duration_ms < 15_000  # at the grace, not when the child ended


def test_without_a_path_programs_are_found_on_the_system_s_default_one() -> None:
    """As a shell (and `subprocess`) would: `os.defpath` when the environment has no PATH."""
    bare = {key: value for key, value in env().items() if key != "PATH"}
    (run,) = run_hooks([hook("sh", args=("-c", "echo ran"))], b"", bare, None)
    assert (run.exit_code, run.stdout, run.error) == (0, b"ran\n", None)


def test_a_relative_program_runs_from_the_hooks_directory(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho tool ran\n")
    tool.chmod(0o755)
    (run,) = run_hooks([hook("./tool", args=())], b"", env(), str(tmp_path))
    assert (run.exit_code, run.stdout, run.error) == (0, b"tool ran\n", None)


def test_a_hook_that_writes_before_it_reads_never_deadlocks_the_run() -> None:
    """It fills its stdout pipe before reading a large stdin: ccbridge's writes to the hook
    never block, so it keeps draining the output and both finish."""
    size = 300_000  # each far past a pipe's buffer
    (run,) = run_hooks(
        [hook(f"head -c {size} /dev/zero; wc -c >&2", timeout=20)], b"x" * size, env(), None
    )
    assert (run.exit_code, run.error) == (0, None)
    assert (len(run.stdout), run.stderr.strip()) == (size, str(size).encode())


def test_a_hook_that_writes_more_than_it_reads_never_deadlocks_the_run() -> None:
    """The hook writes four bytes for each it reads: were ccbridge's write of the next piece of
    stdin to block, it would wait on a hook that waits for ccbridge to drain its output."""
    data = (b"x" * 1023 + b"\n") * 1024  # 1 MiB of lines
    (run,) = run_hooks(
        [hook("sed 's/x/xxxx/g'", timeout=20)], data, env(), None, output_cap=8 * len(data)
    )
    assert (run.exit_code, run.error) == (0, None)
    assert run.stdout == data.replace(b"x", b"xxxx")
