"""doctor's calls of external programs (`claude --version`, the registered command), with
pytest-subprocess standing in for the programs: the answers a real binary rarely gives on cue
(a hang, a start failure, no version) cost no waiting and no scripts on disk."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from pytest_subprocess import FakeProcess

from bridge.commands.claude_on_path import PROBE_TIMEOUT
from bridge.commands.doctor import check_claude, probe


@pytest.fixture
def claude(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH finds a `claude` (its contents are never run)."""
    program = tmp_path / "claude"
    program.write_text("#!/bin/sh\nexit 99\n")
    program.chmod(0o755)
    return {"PATH": str(tmp_path)}


def hang(process: object) -> None:
    """What subprocess.run raises when the program outlives the probe's timeout."""
    raise subprocess.TimeoutExpired("claude", PROBE_TIMEOUT)


def levels(env: dict[str, str]) -> list[tuple[str, str, str]]:
    return [(found.level, found.topic, found.message) for found in check_claude(env)]


def test_a_current_claude_supports_on_failure(fp: FakeProcess, claude: dict[str, str]) -> None:
    fp.register([fp.any()], stdout="2.1.332 (Claude Code)\n")
    found = levels(claude)
    assert [(level, topic) for level, topic, _ in found] == [
        ("ok", "claude"),
        ("ok", "onFailure"),
    ]
    assert list(fp.calls[0])[1:] == ["--version"]


def test_an_old_claude_is_told_to_upgrade(fp: FakeProcess, claude: dict[str, str]) -> None:
    fp.register([fp.any()], stdout="2.1.197 (Claude Code)\n")
    (_, (level, topic, message)) = levels(claude)
    assert (level, topic) == ("warn", "onFailure") and "2.1.295" in message


def test_a_claude_that_hangs_is_a_warning_not_a_hang(
    fp: FakeProcess, claude: dict[str, str]
) -> None:
    fp.register([fp.any()], callback=hang)
    [(level, topic, message)] = levels(claude)
    assert (level, topic) == ("warn", "claude") and "did not answer" in message


def test_a_claude_that_cannot_start_is_a_warning(fp: FakeProcess, claude: dict[str, str]) -> None:
    def refuse(_process: object) -> None:
        raise PermissionError(13, "Permission denied")

    fp.register([fp.any()], callback=refuse)
    [(level, _, message)] = levels(claude)
    assert level == "warn" and "Permission denied" in message


def test_a_claude_without_a_version_is_a_warning(fp: FakeProcess, claude: dict[str, str]) -> None:
    fp.register([fp.any()], stdout="command not found\n", returncode=127)
    [(level, _, message)] = levels(claude)
    assert level == "warn" and "printed no version" in message


def test_the_start_probe_reports_exit_code_and_stderr(fp: FakeProcess, tmp_path: Path) -> None:
    fp.register(["sh", "-c", "ccbridge run"], stderr="no module named bridge\n", returncode=1)
    assert probe("ccbridge run", {}, tmp_path) == "exited with code 1: no module named bridge"
    fp.register(["sh", "-c", "ccbridge run"], callback=hang)
    assert probe("ccbridge run", {}, tmp_path) == f"did not finish within {PROBE_TIMEOUT:g}s"
    fp.register(["sh", "-c", "ccbridge run"])
    assert probe("ccbridge run", {}, tmp_path) is None


def test_no_real_process_is_started(fp: FakeProcess, claude: dict[str, str]) -> None:
    """The fake is strict: a call nobody registered fails instead of reaching the system."""
    with pytest.raises(fp.exceptions.ProcessNotRegisteredError):
        subprocess.run(["claude", "--version"], check=False)
