"""`ccbridge run`/`explain` typed at a terminal say what they wait for, and still never show a
traceback; conflicting scope flags are an error."""

from __future__ import annotations

import os
import pty
import subprocess

import pytest

from bridge.commands.cases import ccbridge_command
from tests.support.sandbox import Sandbox


@pytest.mark.parametrize("command", ["run", "explain"])
def test_a_terminal_on_stdin_gets_a_hint(sandbox: Sandbox, command: str) -> None:
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [*ccbridge_command(), command],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=sandbox.env,
            cwd=sandbox.project,
        )
        os.write(leader, b"\x04")  # Ctrl-D: the end of the (empty) input
        _out, err = process.communicate(timeout=60)
    finally:
        os.close(leader)
        os.close(follower)
    stderr = err.decode()
    assert f"ccbridge {command}: reading a hook event" in stderr and "Ctrl-D" in stderr
    assert "Traceback" not in stderr
    assert process.returncode in (1, 2) if command == "explain" else process.returncode == 2


def test_a_pipe_gets_no_hint(sandbox: Sandbox) -> None:
    done = sandbox.run("run", stdin=b"")
    assert done.returncode == 2 and "reading a hook event" not in done.stderr


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_two_scopes_are_an_error(sandbox: Sandbox, command: str) -> None:
    done = sandbox.run(command, "--user", "--project")
    assert done.returncode == 2
    assert "choose one of --user, --project, --local (got --user, --project)" in done.stderr
    assert not sandbox.settings.exists()
