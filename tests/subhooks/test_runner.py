"""The sub-hook runner with real processes: parallel, bounded, and leaving nothing behind."""

from __future__ import annotations

import errno
import os
import time
import uuid
from pathlib import Path

import pytest

from bridge.subhooks import contain, runner
from bridge.subhooks.runner import argv_of, run_hooks, substitute
from tests.support.events import hook


@pytest.fixture(autouse=True, params=["linux", "no-pidfd", "no-pidfd-no-containment"])
def platform(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every runner test on Linux as it is, without pidfd (exits polled), and as on macOS:
    neither pidfd nor subreaper and /proc, only process groups."""
    if request.param != "linux":
        monkeypatch.setattr(runner, "open_pidfd", lambda _pid: None)
    if request.param == "no-pidfd-no-containment":
        monkeypatch.setattr(runner, "contained", lambda _closes: None)
    return str(request.param)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def alive(pid: int) -> bool:
    """Whether the process still runs once SIGKILL had time to land (delivery is asynchronous)."""
    for _ in range(100):
        if not _running(pid):
            return False
        time.sleep(0.02)
    return True


def test_hooks_run_at_the_same_time(tmp_path: Path) -> None:
    # Each hook records when it started and waits until every other one has started too:
    # run one after another, the first would time out.
    script = (
        f"touch {tmp_path}/started.$$; "
        f"while [ $(ls {tmp_path} | grep -c started) -lt 4 ]; do sleep 0.02; done; echo ok"
    )
    runs = run_hooks([hook(script, timeout=5) for _ in range(4)], b"", dict(os.environ), None)
    assert [run.stdout for run in runs] == [b"ok\n"] * 4
    assert all(run.error is None for run in runs)


def test_stdin_env_and_cwd(tmp_path: Path) -> None:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": "/project/dir"}
    (run,) = run_hooks(
        [hook('cat; echo "|$CLAUDE_PROJECT_DIR|$(pwd)"')], b"event-json", env, str(tmp_path)
    )
    assert run.stdout == f"event-json|/project/dir|{tmp_path}\n".encode()


def test_large_stdin_to_a_hook_that_reads_late(tmp_path: Path) -> None:
    data = b"x" * (4 * 1024 * 1024)
    (run,) = run_hooks([hook("sleep 0.1; wc -c")], data, dict(os.environ), None)
    assert run.stdout.strip() == str(len(data)).encode()


def test_hook_that_ignores_stdin_is_fine() -> None:
    (run,) = run_hooks([hook("exit 0")], b"y" * (2 * 1024 * 1024), dict(os.environ), None)
    assert (run.exit_code, run.error) == (0, None)


def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"trap '' TERM; (sleep 60 & echo $! >> {pids}; wait) & echo $$ >> {pids}; sleep 60"
    (run,) = run_hooks([hook(script, timeout=0.5)], b"", dict(os.environ), None)
    assert run.error == "timed out after 0.5s"
    assert pids.read_text().split()
    assert not any(alive(int(pid)) for pid in pids.read_text().split())


def test_a_hook_killed_at_its_timeout_is_reaped(platform: str) -> None:
    """Killed, and waited for: no zombie is left, also where no containment sweeps up after."""
    (run,) = run_hooks([hook("echo $$; exec sleep 30", timeout=0.5)], b"", dict(os.environ), None)
    assert run.error == "timed out after 0.5s"
    with pytest.raises(ChildProcessError):
        os.waitpid(int(run.stdout), os.WNOHANG)  # not a child any more: reaped, not a zombie


def test_children_holding_stdout_hold_us_to_the_timeout_and_no_longer(tmp_path: Path) -> None:
    """The hook exits; its child keeps stdout open, so its answer may still come: the run
    waits to its timeout, then lets go, kills the child and says the output was held open
    (a failure, never an answer), keeping the exit code and what was read."""
    pid_file = tmp_path / "child"
    script = f"sleep 30 & echo $! > {pid_file}; echo done"
    started = time.monotonic()
    (run,) = run_hooks([hook(script, timeout=1)], b"", dict(os.environ), None)
    assert 1 <= time.monotonic() - started < 15
    assert (run.exit_code, run.stdout) == (0, b"done\n")
    assert run.error is not None and "held its stdout open at its 1s timeout" in run.error
    assert not alive(int(pid_file.read_text()))


def test_an_answer_written_by_a_child_after_the_hook_exited_is_read() -> None:
    """What Claude Code reads, half a second after the hook exited, is read too; and later."""
    script = "(sleep 0.5; echo soon; sleep 1; echo later) & exit 0"
    (run,) = run_hooks([hook(script, timeout=20)], b"", dict(os.environ), None)
    assert (run.exit_code, run.stdout, run.error) == (0, b"soon\nlater\n", None)


def test_output_cap() -> None:
    (run,) = run_hooks([hook("yes")], b"", dict(os.environ), None, output_cap=10_000)
    assert run.error == "stdout exceeded the 10000-byte output cap"
    (err,) = run_hooks([hook("yes >&2")], b"", dict(os.environ), None, output_cap=10_000)
    assert err.error == "stderr exceeded the 10000-byte output cap"


def test_cannot_start_and_missing_command() -> None:
    exec_form, shell_form = run_hooks(
        [hook("/no/such/prog", args=("a",)), hook("/no/such/prog")], b"", dict(os.environ), None
    )
    assert exec_form.exit_code is None and "could not start" in (exec_form.error or "")
    assert shell_form.exit_code == 127


def test_bad_cwd_is_a_start_failure() -> None:
    (run,) = run_hooks([hook("true")], b"", dict(os.environ), "/no/such/dir")
    assert run.error == "could not start: no directory '/no/such/dir' to run in"


def test_placeholders_and_argv() -> None:
    env = {"CLAUDE_PROJECT_DIR": "/p", "CLAUDE_PLUGIN_ROOT": "/plug"}
    text = "${CLAUDE_PROJECT_DIR}/a ${CLAUDE_PLUGIN_ROOT}/b $HOME"
    assert substitute(text, env) == "/p/a /plug/b $HOME"
    assert argv_of(hook("${CLAUDE_PROJECT_DIR}/x.sh --y"), env) == ["sh", "-c", "/p/x.sh --y"]
    assert argv_of(hook("/bin/prog", args=("${CLAUDE_PROJECT_DIR}", "a b")), env) == [
        "/bin/prog",
        "/p",
        "a b",
    ]
    assert argv_of(hook("echo", shell="bash"), env) == ["bash", "-c", "echo"]


def _marked(marker: str) -> list[int]:
    """Live processes whose environment carries CCBRIDGE_TEST_MARKER=marker."""
    return [pid for pid in contain.marked(marker) if _running(pid)]


def test_an_unusable_pidfd_falls_back_to_polling(monkeypatch: pytest.MonkeyPatch) -> None:
    """pidfd_open failing after the hook started (ENOSYS, seccomp) neither fails the run nor
    leaves the hook running."""

    def refuse(_pid: int) -> int:
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(os, "pidfd_open", refuse)
    started = time.monotonic()
    slow, quick = run_hooks(
        [hook("sleep 0.3; echo slow; exit 3"), hook("echo quick")], b"", dict(os.environ), None
    )
    assert (slow.exit_code, slow.stdout, slow.error) == (3, b"slow\n", None)
    assert (quick.exit_code, quick.stdout, quick.error) == (0, b"quick\n", None)
    assert time.monotonic() - started < 5  # polled, not waited out to a timeout


def test_a_start_that_fails_half_way_kills_the_started_hook(
    monkeypatch: pytest.MonkeyPatch, platform: str
) -> None:
    def broken(_pid: int) -> int:
        raise RuntimeError("broken after the start")

    monkeypatch.setattr(runner, "open_pidfd", broken)
    marker = uuid.uuid4().hex
    env = {**os.environ, contain.MARK: marker}  # the hooks carry it on every platform
    with pytest.raises(RuntimeError, match="broken after the start"):
        run_hooks([hook("sleep 30")], b"", env, None)
    for _ in range(100):  # SIGKILL delivery is asynchronous; a survivor stays for good
        if not _marked(marker):
            break
        time.sleep(0.02)
    assert _marked(marker) == [], f"left running ({platform})"


def test_a_start_failing_half_way_kills_every_hook_already_started(
    monkeypatch: pytest.MonkeyPatch, platform: str
) -> None:
    """The sixth hook's start fails after its process started: the failure is raised in the
    caller, and that hook and the five before it are killed, also where no subreaper sweeps
    them up."""
    calls: list[int] = []
    real = runner.open_pidfd

    def broken_once(pid: int) -> int | None:
        calls.append(pid)
        if len(calls) == 6:
            raise RuntimeError("broken after the start")
        return real(pid) if platform == "linux" else None

    monkeypatch.setattr(runner, "open_pidfd", broken_once)
    marker = uuid.uuid4().hex
    env = {**os.environ, contain.MARK: marker}
    with pytest.raises(RuntimeError, match="broken after the start"):
        run_hooks([hook(f"sleep 30 # {n}") for n in range(12)], b"", env, None)
    for _ in range(100):
        if not _marked(marker):
            break
        time.sleep(0.02)
    assert _marked(marker) == [], f"left running ({platform})"
    assert len(calls) == 6  # the hooks after it never started


def test_descendants_that_leave_the_group_are_killed(tmp_path: Path, platform: str) -> None:
    if platform == "no-pidfd-no-containment":
        pytest.skip("process groups only: a setsid child escapes (the documented macOS limit)")
    pids = tmp_path / "pids"
    script = (
        f"setsid sleep 30 & echo $! >> {pids}; "
        f"env -i /bin/sh -c 'setsid /bin/sleep 30 & echo $! >> {pids}'; echo done"
    )
    (run,) = run_hooks([hook(script)], b"", dict(os.environ), None)
    assert (run.exit_code, run.stdout) == (0, b"done\n")
    assert len(pids.read_text().split()) == 2
    assert not any(alive(int(pid)) for pid in pids.read_text().split())
