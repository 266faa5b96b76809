"""The containment of what sub-hooks start (Linux): the pure parts, the subreaper flag, and the
watchdog of a ccbridge that was killed, all in this process or forks of it."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
import uuid

import pytest

from bridge.subhooks import contain
from bridge.subhooks.runner import run_hooks
from bridge.subhooks.spec import HookSpec

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="Linux only")


def test_descendants_follow_the_tree_from_branches_started_since() -> None:
    table = {
        10: (1, 50),  # an older child of 1: not ours, nor its subtree
        11: (10, 60),
        20: (1, 100),  # started since: ours, with everything below it
        21: (20, 90),  # (start times below the root do not matter)
        22: (21, 200),
        30: (2, 300),  # someone else's
    }
    assert contain.descendants(1, table, since=100) == {20, 21, 22}
    assert contain.descendants(1, table, since=0) == {10, 11, 20, 21, 22}
    assert contain.descendants(30, table, since=0) == set()


def test_every_process_has_a_parent_and_a_start_time() -> None:
    table = contain.processes()
    parent, started = table[os.getpid()]
    assert parent == os.getppid()
    assert 0 <= started <= contain.boot_ticks()


def test_the_token_joins_those_of_enclosing_events() -> None:
    environ = b"A=1\0" + contain.MARK.encode() + b"=outer inner\0B=2\0"
    assert contain._tokens(environ) == {"outer", "inner"}
    assert contain._tokens(b"A=1\0") == set()
    odd = contain.MARK.encode() + b"=a=b \xff c"  # a hook may set anything there
    assert contain._tokens(odd) == {"a=b", "\ufffd", "c"}


def test_killing_a_process_that_is_gone_is_no_error() -> None:
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        os._exit(0)
    os.waitpid(pid, 0)
    contain._kill(pid)


def _subreaper(set_to: int | None = None) -> int:
    libc, flag = ctypes.CDLL(None), ctypes.c_int(-1)
    if set_to is not None:
        libc.prctl(36, set_to)  # PR_SET_CHILD_SUBREAPER
    libc.prctl(37, ctypes.byref(flag))  # PR_GET_CHILD_SUBREAPER
    return flag.value


@pytest.mark.parametrize("before", [0, 1])
def test_a_run_leaves_the_subreaper_flag_as_it_found_it(before: int) -> None:
    assert _subreaper(set_to=before) == before
    hook = HookSpec(event="PreToolUse", name="t", where="t", order=0, command="echo $0")
    try:
        (run,) = run_hooks([hook], b"", dict(os.environ), None)
        assert run.exit_code == 0
        assert _subreaper() == before
    finally:
        _subreaper(set_to=0)


def test_a_run_leaves_no_child_behind_not_even_a_zombie() -> None:
    since = contain.last_pid()
    hook = HookSpec(
        event="PreToolUse", name="t", where="t", order=0, command="setsid sleep 30 & exit 0"
    )
    run_hooks([hook], b"", dict(os.environ), None)
    mine = [pid for pid, (parent, _) in contain.processes(since).items() if parent == os.getpid()]
    assert mine == []


@pytest.mark.parametrize(
    ("pid", "after", "until", "new"),
    [
        (5, 5, 9, False),
        (6, 5, 9, True),
        (9, 5, 9, True),
        (10, 5, 9, False),
        (5, 5, 5, False),  # nothing handed out since
        (30001, 30000, 100, True),  # pids wrapped around
        (30000, 30000, 100, False),
        (50, 30000, 100, True),
        (100, 30000, 100, True),
        (101, 30000, 100, False),
    ],
)
def test_pids_handed_out_since_wrap_around(pid: int, after: int, until: int, new: bool) -> None:
    assert contain.handed_out(pid, after, until) is new


def test_without_prctl_hooks_still_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(_on: int) -> int:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(contain, "_prctl_subreaper", refused)
    hook = HookSpec(event="PreToolUse", name="t", where="t", order=0, command="echo ran")
    (run,) = run_hooks([hook], b"", dict(os.environ), None)
    assert (run.exit_code, run.stdout) == (0, b"ran\n")


def test_hooks_see_this_events_token_after_the_enclosing_ones() -> None:
    hook = HookSpec(
        event="PreToolUse", name="t", where="t", order=0, command=f'echo "${contain.MARK}"'
    )
    (run,) = run_hooks([hook], b"", {**os.environ, contain.MARK: "outer"}, None)
    outer, token = run.stdout.decode().split()
    assert outer == "outer" and len(token) == 16
    (alone,) = run_hooks([hook], b"", dict(os.environ), None)
    assert len(alone.stdout.decode().strip()) == 16  # no enclosing event: the token alone


def test_the_watchdog_cleans_up_after_a_killed_ccbridge() -> None:
    """A forked stand-in for ccbridge starts a hook (plus one that left its group) and is
    SIGKILLed before it can clean up: its watchdog kills both."""
    marker = uuid.uuid4().hex
    bridge = os.fork()
    if bridge == 0:  # pragma: no cover (the child never returns)
        try:
            containment = contain.Containment()
            env = containment.env({**os.environ, contain.MARK: marker})
            hook = subprocess.Popen(
                ["sh", "-c", "setsid sleep 30 & sleep 30"], env=env, start_new_session=True
            )
            containment.started([hook.pid])
            while len(contain.marked(marker)) < 3:  # sh and both sleeps run
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGKILL)
        finally:
            os._exit(1)
    _, status = os.waitpid(bridge, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    for _ in range(200):  # the watchdog needs a moment; a survivor stays for good
        if not contain.marked(marker):
            break
        time.sleep(0.05)
    left = contain.marked(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
