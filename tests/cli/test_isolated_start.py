"""The user's PYTHON* variables cannot stop or change ccbridge as Claude Code starts it.

Every test runs the command `ccbridge install` registered, through `sh -c` with the event on
stdin as Claude Code runs it, with one variable set that stops or changes a plain `python`:
the answer is the one the same call gets without it (a deny stays a deny, a harmless command
gets no opinion), never Python's fatal error and exit 1. The user's hooks behind ccbridge still
see the variables. A ccbridge whose code cannot load exits 2 with the reason."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bridge.config import registrations
from tests.support.sandbox import CCBRIDGE, Sandbox, encode, pre_tool_use

SCRIPT = Path(__file__).resolve().parents[2] / "bin" / "ccbridge"


def shadowing(root: Path) -> str:
    """A directory of modules that, found before the standard library, end the process."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("json", "_json", "fcntl", "shlex", "posixpath"):
        (root / f"{name}.py").write_text("raise SystemExit(1)\n", encoding="utf-8")
    return str(root)


def variables(tmp: Path) -> dict[str, dict[str, str]]:
    startup = tmp / "startup.py"
    startup.write_text("raise SystemExit(1)\n", encoding="utf-8")
    return {
        "PYTHONHOME": {"PYTHONHOME": "/nonexistent"},
        "PYTHONHASHSEED": {"PYTHONHASHSEED": "bogus"},
        "PYTHONPATH": {"PYTHONPATH": shadowing(tmp / "shadow")},
        "PYTHONSTARTUP": {"PYTHONSTARTUP": str(startup), "PYTHONINSPECT": "1"},
        "PYTHONWARNINGS": {"PYTHONWARNINGS": "error"},
        "PYTHONSAFEPATH": {"PYTHONSAFEPATH": "1", "PYTHONPATH": shadowing(tmp / "shadow")},
        "PYTHONMALLOC": {"PYTHONMALLOC": "bogus"},
        "PYTHONIOENCODING": {"PYTHONIOENCODING": "bogus"},
        "PYTHONVERBOSE": {"PYTHONVERBOSE": "1"},
    }


NAMES = [
    "PYTHONHOME",
    "PYTHONHASHSEED",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONWARNINGS",
    "PYTHONSAFEPATH",
    "PYTHONMALLOC",
    "PYTHONIOENCODING",
    "PYTHONVERBOSE",
]


def registered_command(settings: Path, event: str = "PreToolUse") -> str:
    data = json.loads(settings.read_text())
    (command,) = [
        handler["command"]
        for group in data["hooks"][event]
        for handler in group["hooks"]
        if registrations.is_registration(handler)
    ]
    return str(command)


def launch(
    sandbox: Sandbox, command: str, event: dict[str, Any], env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["sh", "-c", command],
        input=encode(event),
        capture_output=True,
        env={**sandbox.env, "CLAUDE_PROJECT_DIR": str(sandbox.project), **env},
        cwd=sandbox.project,
        timeout=60,
        check=False,
    )


def decision(done: subprocess.CompletedProcess[bytes]) -> str:
    if not done.stdout.strip():
        return "none"
    answer = json.loads(done.stdout).get("hookSpecificOutput", {})
    return str(answer.get("permissionDecision", "none"))


@pytest.fixture(params=["project", "local"])
def installed(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Sandbox, str]:
    """A sandbox after `ccbridge install --SCOPE`: the shared file's PATH launcher, or the
    local file's absolute command."""
    sandbox = Sandbox(tmp_path / "world")
    (sandbox.root / "bin").mkdir(exist_ok=True)
    (sandbox.root / "bin" / "ccbridge").symlink_to(CCBRIDGE)
    done = sandbox.run("install", f"--{request.param}", "--no-sandbox")
    assert done.returncode == 0, done.stderr
    settings = (
        sandbox.settings
        if request.param == "project"
        else sandbox.project / ".claude" / "settings.local.json"
    )
    return sandbox, registered_command(settings)


@pytest.mark.parametrize("name", NAMES)
def test_a_python_variable_changes_no_answer(
    installed: tuple[Sandbox, str], tmp_path: Path, name: str
) -> None:
    sandbox, command = installed
    env = variables(tmp_path)[name]
    for bash, expected in (("ls", "none"), ("rm -rf .claude", "deny")):
        event = pre_tool_use(bash, cwd=str(sandbox.project))
        plain = launch(sandbox, command, event, {})
        assert decision(plain) == expected, plain
        done = launch(sandbox, command, event, env)
        said = done.stderr.decode("utf-8", "replace")
        assert (done.returncode, decision(done)) == (plain.returncode, expected), said
        assert "Fatal Python error" not in said and "Traceback" not in said


def test_the_users_hooks_still_see_the_variables(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "world")
    (sandbox.root / "bin").mkdir(exist_ok=True)
    (sandbox.root / "bin" / "ccbridge").symlink_to(CCBRIDGE)
    seen = tmp_path / "seen"
    hook = sandbox.script("user.sh", f'cat >/dev/null; printf %s "$PYTHONWARNINGS" > {seen}')
    sandbox.write_json(
        sandbox.settings,
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": str(hook)}]}]}},
    )
    assert sandbox.run("install", "--no-sandbox").returncode == 0
    command = registered_command(sandbox.settings)
    done = launch(sandbox, command, pre_tool_use("ls"), {"PYTHONWARNINGS": "error"})
    assert done.returncode == 0, done.stderr
    assert seen.read_text() == "error"


def test_the_registration_starts_python_isolated(installed: tuple[Sandbox, str]) -> None:
    _sandbox, command = installed
    assert " -I " in command
    assert registrations.is_registration({"command": command})


def test_a_ccbridge_that_cannot_load_exits_2_with_the_reason(tmp_path: Path) -> None:
    """The script in an environment without ccbridge's code: exit 2 and why, not a traceback."""
    venv = tmp_path / "empty"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    script = venv / "bin" / "ccbridge"
    shutil.copy(SCRIPT, script)
    python = str(venv / "bin" / "python")
    done = subprocess.run(
        [python, *registrations.ISOLATED, str(script), "run"],
        input=encode(pre_tool_use("ls")),
        capture_output=True,
        timeout=60,
        check=False,
    )
    said = done.stderr.decode()
    assert done.returncode == 2, said
    assert said.startswith("ccbridge: cannot load ccbridge") and "reinstall" in said
    assert "Traceback" not in said
