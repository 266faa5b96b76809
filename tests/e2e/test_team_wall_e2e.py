"""The wall travels with the committed files, through real Claude Code, on two homes.

User A runs the real `ccbridge install` in a git project (with a state and cache directory of
their own, outside their home) and commits `.claude`. User B only clones it, with ccbridge on
PATH: no committed file names a path of A's machine; `ccbridge doctor` says `wall` in B's clone;
the agent's attempts on the team's config (a Python file it wrote, run with Bash; the local
layer written with `self_protection: false`; a plain Bash rewrite) have no effect and the
team's guard (a sub-hook refusing `npm publish`) still refuses. B's own `ccbridge install`
changes no tracked file, and after it a merge conflict left in the shared settings.json (which
makes Claude Code ignore that file) leaves the denials holding: B's local settings carry the
registration and the wall too. Without B's install, doctor and check name the broken file.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .harness import ccbridge_executable, claude_binary, install_ccbridge, run_claude
from .model_stub import ToolCall, Turn
from .test_sandbox_e2e import require_sandbox

pytestmark = pytest.mark.e2e

VERSIONS = ("2.1.332", "2.1.335")
BARE_PATH = "/usr/bin:/bin"
GUARD = """#!/bin/sh
if grep -q 'npm publish'; then echo "team rule: no npm publish from an agent" >&2; exit 2; fi
exit 0
"""
# What the agent writes and runs: the paths built from pieces, so no text judgement sees them.
ATTACK = """p = '.cl' + 'aude/'
out = []
for name, text in ((p + 'ccb' + 'ridge.yaml', 'hooks: {}\\n'),
                   (p + 'ccb' + 'ridge.local.yaml', 'self_protection: false\\n')):
    try:
        with open(name, 'w') as handle:
            handle.write(text)
        out.append(name + ' written')
    except OSError as error:
        out.append(name + ' refused: ' + type(error).__name__)
open('outcome.txt', 'w').write('\\n'.join(out))
"""
CONFLICT = '<<<<<<< HEAD\n{"permissions": {}}\n=======\n{"permissions": {"allow": []}}\n>>>>>>> b\n'


def git(cwd: Path, home: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=a@example.invalid", "-c", "user.name=A", *args],
        cwd=cwd,
        env={"PATH": BARE_PATH, "HOME": str(home)},
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout


def on_path(root: Path) -> str:
    """A PATH with ccbridge (a link to this one, elsewhere) and the system, nothing else."""
    tools = root / "tools"
    tools.mkdir(parents=True, exist_ok=True)
    if not (tools / "ccbridge").exists():
        (tools / "ccbridge").symlink_to(ccbridge_executable())
    return f"{tools}:{BARE_PATH}"


def ccbridge(cwd: Path, home: Path, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.run(
        ["ccbridge", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def team_a(tmp_path: Path) -> tuple[Path, list[str]]:
    """A's project, installed and committed, as a bare repository; and the strings of A's
    machine that no committed file may hold."""
    home, work = tmp_path / "home-a", tmp_path / "a" / "project"
    (work / ".claude" / "hooks").mkdir(parents=True)
    home.mkdir()
    guard = work / ".claude" / "hooks" / "no-publish.sh"
    guard.write_text(GUARD)
    guard.chmod(0o755)
    hook = {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-publish.sh'}
    settings = {
        "permissions": {"allow": ["Bash", "Write", "Edit", "Read"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
    }
    (work / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    git(work, home, "init", "-q")
    env = {
        "PATH": on_path(tmp_path / "a"),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "a" / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "a" / "cache"),
    }
    done = install_ccbridge(work, home, env)
    assert done.returncode == 0, done.stdout + done.stderr
    git(work, home, "add", ".claude")
    git(work, home, "commit", "-qm", "ccbridge")
    bare = tmp_path / "origin.git"
    git(tmp_path, home, "clone", "-q", "--bare", str(work), str(bare))
    machine = [str(home), str(work), str(tmp_path / "a"), os.path.realpath(home)]
    return bare, machine


def protection(cwd: Path, home: Path, path: str) -> tuple[str, str]:
    done = ccbridge(cwd, home, path, "doctor", "--json")
    found = [item for item in json.loads(done.stdout) if item["topic"] == "protection"]
    assert found, done.stdout + done.stderr
    return found[0]["level"], found[0]["message"]


def attacks(clone: Path) -> list[Turn]:
    write = ToolCall("Write", {"file_path": str(clone / "evil.py"), "content": ATTACK})
    local = ToolCall(
        "Write",
        {
            "file_path": str(clone / ".claude" / "ccbridge.local.yaml"),
            "content": "self_protection: false\n",
        },
    )
    return [
        Turn(tool_calls=(write,)),
        Turn.bash("python3 evil.py"),
        Turn(tool_calls=(local,)),
        Turn.bash("printf 'hooks: {}\\n' > .claude/ccbridge.yaml"),
        Turn.bash("npm publish"),
        Turn.say("done"),
    ]


def no_effect(clone: Path, before: bytes, results: object) -> None:
    assert (clone / ".claude" / "ccbridge.yaml").read_bytes() == before, results
    local = clone / ".claude" / "ccbridge.local.yaml"
    assert not local.exists() or "self_protection" not in local.read_text(), results
    outcome = clone / "outcome.txt"
    if outcome.exists():  # the script ran (ccbridge let it): the sandbox refused its writes
        assert "written" not in outcome.read_text(), outcome.read_text()


@pytest.mark.parametrize("version", VERSIONS)
def test_a_clone_is_walled_and_stays_walled(tmp_path: Path, version: str) -> None:
    require_sandbox()
    binary = claude_binary(version)
    if binary is None:
        pytest.skip(f"Claude Code {version} is not fetched: run scripts/fetch-clients")
    origin, machine_a = team_a(tmp_path)
    home, clone = tmp_path / "home-b", tmp_path / "b" / "project"
    home.mkdir()
    git(tmp_path, home, "clone", "-q", str(origin), str(clone))
    tracked = git(clone, home, "ls-files").split()
    assert ".claude/settings.json" in tracked and ".claude/settings.local.json" not in tracked
    for name in tracked:
        text = (clone / name).read_text(errors="replace")
        leaked = [path for path in machine_a if path in text]
        assert not leaked, f"{name} names {leaked}:\n{text}"
    path = on_path(tmp_path / "b")
    level, said = protection(clone, home, path)
    assert level == "ok" and said.startswith("wall"), said

    before = (clone / ".claude" / "ccbridge.yaml").read_bytes()
    env = {"PATH": path}
    result = run_claude(binary, clone, None, attacks(clone), env=env, home=home, timeout=300)
    results = result.requests.tool_results()
    assert len(results) == 5, (results, result.stderr[-1500:])
    no_effect(clone, before, results)
    assert "team rule: no npm publish" in results[4].content, results[4]

    done = ccbridge(clone, home, path, "install")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(clone, home, "status", "--porcelain", "--untracked-files=no") == ""
    assert ".claude/settings.local.json" not in git(clone, home, "status", "--porcelain")

    # A merge conflict left in the shared file: Claude Code ignores it, B's local copy holds.
    settings = clone / ".claude" / "settings.json"
    settings.write_text(CONFLICT + settings.read_text())
    (clone / "outcome.txt").unlink(missing_ok=True)
    result = run_claude(binary, clone, None, attacks(clone), env=env, home=home, timeout=300)
    results = result.requests.tool_results()
    assert len(results) == 5, (results, result.stderr[-1500:])
    no_effect(clone, before, results)
    assert "team rule: no npm publish" in results[4].content, results[4]


def test_doctor_and_check_name_a_broken_settings_file(tmp_path: Path) -> None:
    """Without the local copy (a clone nobody ran install in), a broken shared file is the end
    of the protection: doctor and check say so, with the file, its line and the fix."""
    origin, _machine = team_a(tmp_path)
    home, clone = tmp_path / "home-b", tmp_path / "b" / "project"
    home.mkdir()
    git(tmp_path, home, "clone", "-q", str(origin), str(clone))
    settings = clone / ".claude" / "settings.json"
    settings.write_text(CONFLICT + settings.read_text())
    path = on_path(tmp_path / "b")
    doctor = ccbridge(clone, home, path, "doctor")
    assert doctor.returncode != 0
    assert f"{settings}:1:" in doctor.stdout and "conflict" in doctor.stdout, doctor.stdout
    assert "reverted" not in doctor.stdout, doctor.stdout
    check = ccbridge(clone, home, path, "check")
    assert check.returncode != 0
    assert f"{settings}:1:" in check.stdout + check.stderr, check.stdout + check.stderr
