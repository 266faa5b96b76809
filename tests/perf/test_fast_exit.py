"""`ccbridge run` ends without finalising the interpreter (bridge.main.exit_at_once): the exit
code and the answer must be exactly what a normal exit gives, whatever the caller closed."""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path

import pytest

SCRIPT = Path(sysconfig.get_path("scripts")) / "ccbridge"
EVENT = json.dumps(
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
).encode()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
        "CLAUDE_PROJECT_DIR": str(tmp_path),
    }


def config(tmp_path: Path, command: str | None) -> str:
    handlers = [{"type": "command", "command": command}] if command else []
    hooks = {"PreToolUse": [{"matcher": "*", "hooks": handlers}]} if handlers else {}
    path = tmp_path / "ccbridge.yaml"
    path.write_text(json.dumps({"hooks": hooks}))
    return str(path)


def run(argv: list[str], env: dict[str, str], close: tuple[int, ...] = ()) -> tuple[int, bytes]:
    def closing() -> None:
        for fd in close:
            os.close(fd)

    done = subprocess.run(
        argv, input=EVENT, capture_output=True, env=env, preexec_fn=closing, check=False
    )
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "close", [(), (1,), (2,), (1, 2)], ids=["open", "stdout", "stderr", "both"]
)
@pytest.mark.parametrize(
    ("command", "code"), [(None, 0), ("echo no >&2; exit 2", 2)], ids=["no-decision", "deny"]
)
def test_the_exit_code_survives_closed_outputs(
    tmp_path: Path, env: dict[str, str], close: tuple[int, ...], command: str | None, code: int
) -> None:
    argv = [str(SCRIPT), "run", "--config", config(tmp_path, command)]
    returncode, stderr = run(argv, env, close)
    assert returncode == code
    assert b"Traceback" not in stderr


def test_the_answer_is_complete_when_nothing_is_closed(tmp_path: Path, env: dict[str, str]) -> None:
    argv = [str(SCRIPT), "run", "--config", config(tmp_path, "echo no >&2; exit 2")]
    done = subprocess.run(argv, input=EVENT, capture_output=True, env=env, check=False)
    answer = json.loads(done.stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert done.stderr.decode().strip().endswith("no")
