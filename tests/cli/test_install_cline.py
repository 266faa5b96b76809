"""`ccbridge install|uninstall|doctor --host cline`: ccbridge's own hook files in Cline's hooks
directories, run as Cline 3.0.65 runs a hook file (by the interpreter its first line names,
the event on stdin, the answer read from stdout whatever the exit code)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

from bridge.commands import agents
from tests.support.sandbox import CCBRIDGE, Sandbox

DANGEROUS_ONLY = "policies: {guards: [builtin:dangerous_shell]}\n"


def cline_event(sandbox: Sandbox, command: str) -> dict[str, Any]:
    """A `tool_call` payload as Cline 3.0.65 sends it to a PreToolUse hook file (measured)."""
    return {
        "clineVersion": "",
        "hookName": "tool_call",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "taskId": "conv_1",
        "workspaceRoots": [str(sandbox.project)],
        "userId": "someone",
        "agent_id": "agent_1",
        "parent_agent_id": None,
        "iteration": 1,
        "tool_call": {"id": "call_1", "name": "run_commands", "input": {"commands": [command]}},
        "preToolUse": {"toolName": "run_commands", "parameters": {"commands": f'["{command}"]'}},
    }


def run_hook_file(
    sandbox: Sandbox, path: Path, command: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The file run as Cline runs it: `sh <file>` (its first line), in the workspace."""
    first = path.read_text().splitlines()[0]
    assert first == "#!/bin/sh"
    return subprocess.run(
        ["sh", str(path)],
        input=json.dumps(cline_event(sandbox, command)).encode(),
        capture_output=True,
        cwd=sandbox.project,
        env={**sandbox.env, **(env or {})},
        timeout=60,
        check=False,
    )


def user_hooks(sandbox: Sandbox) -> Path:
    return sandbox.home / ".cline" / "hooks"


def test_cline_install_writes_its_own_hook_files_beside_the_user_s_and_uninstall_removes_them(
    sandbox: Sandbox,
) -> None:
    own = sandbox.write(user_hooks(sandbox) / "PreToolUse", "#!/bin/sh\necho '{}'\n", 0o755)
    done = sandbox.run("install", "--host", "cline", "--user")
    assert done.returncode == 0, done.stderr
    for event in ("PreToolUse", "PostToolUse"):
        path = user_hooks(sandbox) / f"{event}.sh"
        assert agents.HOOK_MARK in path.read_text()
        assert path.stat().st_mode & stat.S_IXUSR  # runnable by hand too
        run = agents.command(str(CCBRIDGE.resolve()), "cline")
        assert f"answer=$({run})" in path.read_text()  # this machine's ccbridge, by its path
    assert own.read_text() == "#!/bin/sh\necho '{}'\n"
    assert f"{own}: runs beside ccbridge, outside its fold" in done.stdout
    again = sandbox.run("install", "--host", "cline", "--user")
    assert again.stdout.count("nothing to change") == 2
    undone = sandbox.run("uninstall", "--host", "cline", "--user")
    assert undone.returncode == 0, undone.stderr
    assert sorted(p.name for p in user_hooks(sandbox).iterdir()) == ["PreToolUse"]


def test_cline_install_refuses_to_write_over_a_hook_file_that_is_not_ccbridge_s(
    sandbox: Sandbox,
) -> None:
    """Nothing is written when one file cannot be: the PostToolUse file is not left alone."""
    own = sandbox.write(user_hooks(sandbox) / "PreToolUse.sh", "#!/bin/sh\necho mine\n")
    done = sandbox.run("install", "--host", "cline", "--user")
    assert done.returncode == 1
    assert "is not ccbridge's hook: move it away first" in done.stderr
    assert own.read_text() == "#!/bin/sh\necho mine\n"
    assert not (user_hooks(sandbox) / "PostToolUse.sh").exists()
    assert sandbox.run("uninstall", "--host", "cline", "--user").returncode == 0
    assert own.read_text() == "#!/bin/sh\necho mine\n"  # not ccbridge's: uninstall keeps it


def test_the_installed_hook_file_denies_in_cline_s_dialect(sandbox: Sandbox) -> None:
    assert sandbox.run("install", "--host", "cline", "--user").returncode == 0
    sandbox.write(sandbox.home / ".claude" / "ccbridge.yaml", DANGEROUS_ONLY)
    path = user_hooks(sandbox) / "PreToolUse.sh"
    denied = run_hook_file(sandbox, path, "rm -rf /")
    assert denied.returncode == 2
    answer = json.loads(denied.stdout)
    assert answer["cancel"] is True and answer["errorMessage"]
    allowed = run_hook_file(sandbox, path, "ls")
    assert (allowed.returncode, json.loads(allowed.stdout)) == (0, {})


def test_the_hook_file_refuses_when_ccbridge_gives_no_answer(sandbox: Sandbox) -> None:
    """Cline runs the call when a hook prints nothing (a crash, a command that is not there):
    the file turns each into a refusal. Failed before: no file refused anything."""
    for run in ("'/nonexistent/ccbridge' run --host cline", "sh -c 'echo boom >&2; exit 1'"):
        hook = agents.cline_hook(run).decode()
        path = sandbox.write(sandbox.root / "hook" / "PreToolUse.sh", hook)
        done = run_hook_file(sandbox, path, "ls")
        assert done.returncode == 2, run
        answer = json.loads(done.stdout)
        assert answer["cancel"] is True and "no answer" in answer["errorMessage"], run


def test_the_project_hook_file_names_no_path_of_this_machine(sandbox: Sandbox) -> None:
    """A teammate's clone runs the committed file: ccbridge found through PATH there, and
    where it is not installed the call is refused with the fix."""
    done = sandbox.run("install", "--host", "cline", "--project")
    assert done.returncode == 0, done.stderr
    path = sandbox.project / ".clinerules" / "hooks" / "PreToolUse.sh"
    text = path.read_text()
    assert str(sandbox.root) not in text and str(CCBRIDGE.parent) not in text
    sandbox.write(sandbox.config, DANGEROUS_ONLY)
    on_path = {"PATH": f"{CCBRIDGE.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    assert run_hook_file(sandbox, path, "rm -rf /", on_path).returncode == 2
    assert run_hook_file(sandbox, path, "ls", on_path).returncode == 0
    bare = sandbox.root / "bare-bin"
    bare.mkdir()
    for tool in ("sh", "cat", "printf"):
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    missing = run_hook_file(sandbox, path, "ls", {"PATH": str(bare)})
    assert missing.returncode == 2
    assert "pipx install" in json.loads(missing.stdout)["errorMessage"]


def test_uninstall_without_an_install_record_takes_out_only_ccbridge_s_files(
    sandbox: Sandbox,
) -> None:
    """A teammate's clone of a committed project install: no backup on this machine."""
    assert sandbox.run("install", "--host", "cline", "--project").returncode == 0
    hooks = sandbox.project / ".clinerules" / "hooks"
    own = sandbox.write(hooks / "PostToolUse.py", "#!/usr/bin/env python3\nprint('{}')\n")
    shutil.rmtree(sandbox.state)
    sandbox.state.mkdir()
    done = sandbox.run("uninstall", "--host", "cline", "--project")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in hooks.iterdir()) == [own.name]


def test_doctor_names_the_hook_files_that_run_beside_ccbridge(sandbox: Sandbox) -> None:
    assert sandbox.run("install", "--host", "cline", "--user").returncode == 0
    sandbox.write(user_hooks(sandbox) / "pretooluse.py", "print('{}')\n")
    done = sandbox.run("doctor", "--host", "cline", "--json")
    findings = json.loads(done.stdout)
    assert done.returncode == 0, findings
    registration = [f for f in findings if f["topic"] == "registration"]
    assert registration and "PostToolUse, PreToolUse" in registration[0]["message"]
    assert any(f["topic"] == "cline" and "pretooluse.py" in f["message"] for f in findings)
    assert any(f["topic"] == "starts" and f["level"] == "ok" for f in findings)
