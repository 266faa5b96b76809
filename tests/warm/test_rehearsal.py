"""A spare's rehearsal (bridge/warm/rehearsal.py): it judges the made-up call as ordinary work,
with the default install's guards, and nothing outside its process sees it: the project's own
hooks and policies do not run, no audit record is written; a rehearsal that fails is ignored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.commands.install import STARTER_GUARDS
from bridge.warm import rehearsal
from tests.support.sandbox import CCBRIDGE, Sandbox, encode, pre_tool_use


def test_the_rehearsed_guards_are_the_default_installs() -> None:
    assert tuple(name for name, _why in STARTER_GUARDS) == rehearsal.GUARDS


@pytest.fixture
def project(tmp_path: Path) -> Sandbox:
    """A project whose own hook and policy each leave a mark when they run, its audit on."""
    sandbox = Sandbox(tmp_path)
    hook = sandbox.script("mark.sh", f"cat >/dev/null; echo hook >> {tmp_path / 'marks'}")
    policy = sandbox.project / ".claude" / "mark.py"
    policy.write_text(
        f"def guard(execution):\n    open({str(tmp_path / 'marks')!r}, 'a').write('policy\\n')\n"
    )
    config = {
        "policies": {"guards": ["mark.py:guard"]},
        "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": str(hook)}]}]},
    }
    sandbox.write(sandbox.config, json.dumps(config))
    return sandbox


def marks(sandbox: Sandbox) -> list[str]:
    path = sandbox.root / "marks"
    return path.read_text().split() if path.exists() else []


REHEARSE = (
    "import os; from bridge.warm import rehearsal; print(rehearsal.judge(os.getcwd(), os.environ))"
)


def test_a_rehearsal_judges_ordinary_work_and_leaves_no_mark(project: Sandbox) -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c", REHEARSE],
        capture_output=True,
        text=True,
        cwd=project.project,
        env={**project.env, "CLAUDE_PROJECT_DIR": str(project.project)},
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "none", done.stderr
    assert marks(project) == []
    assert not project.audit_path.exists()


def test_the_same_call_for_real_leaves_every_mark(project: Sandbox) -> None:
    """The control: the project's hook and policy and the audit do see a real call."""
    event = pre_tool_use(rehearsal.REHEARSED, cwd=str(project.project))
    done = subprocess.run(
        [str(CCBRIDGE), "run"],
        input=encode(event),
        capture_output=True,
        cwd=project.project,
        env={**project.env, "CLAUDE_PROJECT_DIR": str(project.project)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(marks(project)) == ["hook", "policy"]
    assert len(project.audit()) == 1


def test_a_spare_rehearses_in_the_project_not_in_the_servers_directory(project: Sandbox) -> None:
    """The server runs in its socket's directory, inside ccbridge's state: judged there, the
    made-up call would be refused by self-protection, a path ordinary work never takes."""
    warm = project.state / "warm"
    warm.mkdir()
    probe = "from bridge.warm import rehearsal; print(rehearsal.rehearse())"
    env = {**project.env, "CLAUDE_PROJECT_DIR": str(project.project)}
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe], capture_output=True, text=True, cwd=warm, env=env
    )
    assert done.stdout.split() == ["none"], done.stderr
    there = subprocess.run(
        [sys.executable, "-I", "-c", REHEARSE.replace("os.getcwd()", repr(str(warm)))],
        capture_output=True,
        text=True,
        cwd=warm,
        env=env,
    )
    assert there.stdout.split() == ["deny"], there.stderr  # the control: what it would walk


def test_a_rehearsal_that_fails_is_ignored(project: Sandbox) -> None:
    """No project named and its working directory gone: the rehearsal's work fails, and the
    spare goes on to wait."""
    gone = project.root / "gone"
    gone.mkdir()
    script = (
        f"import os; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r})\n"
        "from bridge.warm import rehearsal\n"
        "try:\n    rehearsal.judge(os.getcwd(), os.environ)\n"
        "except OSError:\n    print('failed')\n"
        "print(rehearsal.rehearse())\nprint('went on')\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", script],
        capture_output=True,
        text=True,
        env=project.env,  # no project named: the rehearsal looks where it runs
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout.split()) == (0, ["failed", "None", "went", "on"]), (
        done.stderr
    )
    assert marks(project) == []
