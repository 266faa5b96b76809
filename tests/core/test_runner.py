"""The sub-hook runner with real processes: parallel, bounded, and leaving nothing behind."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from bridge.subhooks.runner import argv_of, run_hooks, substitute
from bridge.subhooks.spec import HookSpec


def hook(command: str, timeout: float = 10.0, **extra: Any) -> HookSpec:
    return HookSpec(
        event="PreToolUse",
        name=command,
        where="test",
        order=0,
        command=command,
        timeout=timeout,
        **extra,
    )


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


def test_children_holding_the_pipe_do_not_hold_us(tmp_path: Path) -> None:
    pid_file = tmp_path / "child"
    script = f"sleep 30 & echo $! > {pid_file}; echo done"
    (run,) = run_hooks([hook(script, timeout=20)], b"", dict(os.environ), None)
    assert (run.exit_code, run.stdout, run.error) == (0, b"done\n", None)
    assert not alive(int(pid_file.read_text()))


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
