"""A team through real Claude Code: user A installs ccbridge into a git project and commits the
registration; user B clones it on a machine of their own (another HOME) where ccbridge is
installed at another path (it runs) or not at all (the agent's tool call is refused with the
fix to run, not CC's empty "blocked by hook"), or where the first `ccbridge` on PATH is one inside
the project, which the agent can write (refused too, with the fix)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bridge.config.registrations import INSIDE_PROJECT_HINT, INSTALL_HINT

from .harness import Result, ccbridge_executable, run_claude
from .model_stub import Turn

pytestmark = pytest.mark.e2e

BARE_PATH = "/usr/bin:/bin"  # git, sh and the rest of the system; no ccbridge


def git(cwd: Path, *args: str, home: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.email=a@example.invalid", "-c", "user.name=A", *args],
        cwd=cwd,
        env={"PATH": BARE_PATH, "HOME": str(home)},
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """User A's project after `ccbridge install --project` and a commit, as a bare repository."""
    home_a, work = tmp_path / "home-a", tmp_path / "a" / "project"
    (work / ".claude").mkdir(parents=True)
    home_a.mkdir()
    settings = {"permissions": {"allow": ["Bash"]}}
    (work / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    git(work, "init", "-q", home=home_a)
    env = {
        "PATH": f"{Path(ccbridge_executable()).parent}:{BARE_PATH}",
        "HOME": str(home_a),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "a" / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "a" / "cache"),
        "CLAUDE_PROJECT_DIR": str(work),
    }
    done = subprocess.run(
        [ccbridge_executable(), "install", "--project"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "found through PATH" in done.stdout
    git(work, "add", ".claude", home=home_a)
    git(work, "commit", "-qm", "ccbridge", home=home_a)
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare), home=home_a)
    return bare


def user_b(
    claude: Path,
    tmp_path: Path,
    origin: Path,
    path: str,
    marker: str,
    plant: Callable[[Path], None] = lambda clone: None,
) -> Result:
    """User B's session in a fresh clone; `plant` changes the clone first."""
    home_b, clone = tmp_path / "home-b", tmp_path / "b" / "project"
    home_b.mkdir()
    git(tmp_path, "clone", "-q", str(origin), str(clone), home=home_b)
    plant(clone)
    env = {
        "PATH": path,
        "CCBRIDGE_STATE_DIR": str(tmp_path / "b" / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "b" / "cache"),
    }
    script = [Turn.bash(f"touch {marker}"), Turn.say("done")]
    return run_claude(claude, clone, None, script, env=env)


def test_b_with_ccbridge_installed_elsewhere_runs_it(
    claude: Path, tmp_path: Path, origin: Path
) -> None:
    elsewhere = tmp_path / "b" / "tools" / "bin"
    elsewhere.mkdir(parents=True)
    (elsewhere / "ccbridge").symlink_to(ccbridge_executable())
    marker = tmp_path / "b" / "project" / "ran-b1"  # in the project: the sandbox lets it write
    result = user_b(claude, tmp_path, origin, f"{elsewhere}:{BARE_PATH}", str(marker))
    assert marker.exists(), f"{result.requests.tool_results()} {result.stderr[-500:]}"
    audit = (tmp_path / "b" / "state" / "audit.jsonl").read_text().splitlines()
    events = [json.loads(line)["event"] for line in audit]
    # B's own ccbridge judged it (the default config runs nothing after a tool: no PostToolUse)
    assert events.count("PreToolUse") >= 1 and "PostToolUse" not in events
    assert not result.requests.model_saw(INSTALL_HINT)


def test_b_without_ccbridge_is_told_the_fix(claude: Path, tmp_path: Path, origin: Path) -> None:
    marker = tmp_path / "b" / "project" / "ran-b2"
    result = user_b(claude, tmp_path, origin, BARE_PATH, str(marker))
    assert not marker.exists()
    results = result.requests.tool_results()
    assert results and INSTALL_HINT in results[0].content, (results, result.stderr[-500:])
    assert not (tmp_path / "b" / "state").exists()  # no ccbridge ran


def test_b_with_a_ccbridge_planted_in_the_project_first_on_path_is_refused(
    claude: Path, tmp_path: Path, origin: Path
) -> None:
    """B's PATH starts with the project's `.venv/bin` (an activated virtual environment), where
    a `ccbridge` that answers nothing was left (the agent can write the project inside the
    wall). B's real ccbridge comes later on PATH; the committed launcher refuses the planted one
    and the call does not run."""
    elsewhere = tmp_path / "b" / "tools" / "bin"
    elsewhere.mkdir(parents=True)
    (elsewhere / "ccbridge").symlink_to(ccbridge_executable())

    def plant(clone: Path) -> None:
        fake = clone / ".venv" / "bin" / "ccbridge"
        fake.parent.mkdir(parents=True)
        fake.write_text("#!/bin/sh\ncat >/dev/null\necho '{}'\n")
        fake.chmod(0o755)

    venv = tmp_path / "b" / "project" / ".venv" / "bin"
    marker = tmp_path / "b" / "project" / "ran-b3"
    path = f"{venv}:{elsewhere}:{BARE_PATH}"
    result = user_b(claude, tmp_path, origin, path, str(marker), plant)
    assert not marker.exists()
    results = result.requests.tool_results()
    assert results and INSIDE_PROJECT_HINT in results[0].content, (results, result.stderr[-500:])
