"""Self-protection beyond writes: the agent cannot touch ccbridge's state or forge hook events."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.pipeline import Execution
from bridge.policies.protect import self_protection_guard


@pytest.fixture
def state(tmp_path: Path) -> Path:
    directory = tmp_path / "state" / "ccbridge"
    directory.mkdir(parents=True)
    (directory / "goals.sqlite3").write_bytes(b"")
    return directory


def judge(state: Path, command: str, cwd: str = "/work") -> str | None:
    guard = self_protection_guard([], [], [state])
    return guard(Execution.create("Bash", {"command": command}, cwd=cwd))


@pytest.mark.parametrize(
    "command",
    [
        'printf \'{"hook_event_name":"UserPromptSubmit"}\' | ccbridge run',
        "/usr/local/bin/ccbridge run --config x.yaml < event.json",
        "ccbridge explain < event.json",
        "ccbridge install --user",
        "ccbridge",
        "python3 -m bridge run",
        "python -m bridge.goal.cli get",
        "python3 -c 'from bridge.goal.cc import on_user_prompt'",
        "echo 'ccbridge run < e.json' > /tmp/forge.sh && sh /tmp/forge.sh",
        "sudo -u me ccbridge run",
    ],
)
def test_running_ccbridge_is_denied(state: Path, command: str) -> None:
    reason = judge(state, command)
    assert reason is not None and "ccbridge self-protection" in reason


@pytest.mark.parametrize(
    "command",
    [
        "sqlite3 {state}/goals.sqlite3 'INSERT INTO session_events VALUES (1)'",
        "cat {state}/goals.sqlite3",
        "cd {state} && sqlite3 goals.sqlite3",
        "cd {state}/.. && sqlite3 ccbridge/goals.sqlite3",
        "sqlite3 {parent}/st*/ccbridge/goals.sqlite3",
        "python3 -c \"import sqlite3; sqlite3.connect('{state}/goals.sqlite3')\"",
        "echo $(ls {state})",
    ],
)
def test_naming_the_state_is_denied(state: Path, command: str) -> None:
    text = command.format(state=state, parent=state.parent.parent)
    reason = judge(state, text)
    assert reason is not None and "state" in reason


@pytest.mark.parametrize(
    "command",
    [
        "ccbridge goal get",
        "ccbridge goal update --id g1 --revision 3 --action complete",
        "ccbridge --version",
        "ccbridge check",
        "ccbridge test fixtures/",
        "git commit -m 'fix the ccbridge tests'",
        "python3 -m pytest tests",
        "ls -la && echo done",
        "cat README.md",
    ],
)
def test_ordinary_commands_pass(state: Path, command: str) -> None:
    assert judge(state, command) is None
