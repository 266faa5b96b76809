"""When `ccbridge run` starts a warm server (bridge/warm/start.py): only for the Claude Code
process above it that the client named, not while one holds that process's lock, and not again
within RETRY_AFTER of a try that did not come up. The start itself is recorded, not made."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path

import pytest

from bridge.goal.activation import ProcessIdentity
from bridge.subhooks import spawn
from bridge.warm import start

ME = ProcessIdentity(os.getpid(), 1, "boot")


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[list[str]]:
    calls: list[list[str]] = []

    def recorded(path: str, argv: list[str], *_: object) -> int:
        calls.append(argv)
        return 4242

    monkeypatch.setattr(start, "find_cc_process", lambda: ME)
    monkeypatch.setattr(spawn, "start", recorded)
    return calls


def hook_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CLAUDECODE": "1",
        start.WARM_ENV: str(ME.pid),
        **extra,
    }


def test_a_server_is_started_for_the_named_claude_code_process(
    started: list[list[str]], tmp_path: Path
) -> None:
    env = hook_env(tmp_path)
    assert start.wanted(env)
    assert start.start_server(env) == 4242
    assert started[0][-3:] == ["warm-serve", str(ME.pid), "1"]
    assert (tmp_path / "state" / "warm").stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize(
    "env",
    [{start.WARM_ENV: "999999"}, {start.WARM_ENV: "x"}],
    ids=["another-process", "not-a-pid"],
)
def test_no_server_for_a_process_the_client_did_not_name(
    started: list[list[str]], tmp_path: Path, env: dict[str, str]
) -> None:
    assert start.start_server(hook_env(tmp_path, **env)) is None
    assert started == []


def test_outside_a_hook_nothing_is_wanted(tmp_path: Path) -> None:
    env = hook_env(tmp_path)
    del env["CLAUDECODE"]
    assert not start.wanted(env)


def test_elsewhere_than_on_linux_nothing_is_wanted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert start.wanted(hook_env(tmp_path))
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not start.wanted(hook_env(tmp_path))


def test_not_again_within_the_retry_time_of_a_try(started: list[list[str]], tmp_path: Path) -> None:
    env = hook_env(tmp_path)
    assert start.start_server(env) == 4242
    assert start.start_server(env) is None  # that one never came up (no socket yet)
    marker = tmp_path / "state" / "warm" / f"{ME.pid}.tried"
    earlier = time.time() - start.RETRY_AFTER - 1
    os.utime(marker, (earlier, earlier))
    assert start.start_server(env) == 4242
    assert len(started) == 2


def test_not_while_a_server_holds_the_lock(started: list[list[str]], tmp_path: Path) -> None:
    where = tmp_path / "state" / "warm"
    where.mkdir(parents=True, mode=0o700)
    with open(where / f"{ME.pid}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert start.start_server(hook_env(tmp_path)) is None
    assert started == []


def test_not_into_a_directory_others_can_write(started: list[list[str]], tmp_path: Path) -> None:
    where = tmp_path / "state" / "warm"
    where.mkdir(parents=True)
    where.chmod(0o777)
    assert start.start_server(hook_env(tmp_path)) is None
    assert started == []
