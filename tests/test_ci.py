"""CI cannot pass by skipping: scripts/fetch-claude lets the README's `&&` chain reach pytest
whatever it could fetch, and under CI=true an end-to-end test that would skip fails instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NO_CLAUDE = (
    "tests/e2e/test_plain_cc.py::test_deny_blocks_the_command_and_the_reason_reaches_the_model"
)
NO_SQLITE3 = "tests/e2e/test_goal_e2e.py::test_model_cannot_forge_a_human_turn[sqlite3]"


def bin_dir(tmp_path: Path, *programs: str) -> str:
    """A PATH holding only these programs."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for program in programs:
        found = shutil.which(program)
        assert found, program
        (folder / program).symlink_to(found)
    return str(folder)


def test_fetch_claude_without_npm_still_reaches_pytest(tmp_path: Path) -> None:
    tools = ("bash", "dirname", "grep", "mkdir", "tar", "mktemp", "chmod", "mv", "rm")
    env = {"HOME": str(tmp_path), "PATH": bin_dir(tmp_path, *tools), "CI": "true"}
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "fetch-claude")],
        env={**env, "CCBRIDGE_CLAUDE_CACHE": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "npm is not installed" in done.stderr and "fail under CI=true" in done.stderr


def pytest_outcome(test: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", test],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("test", [NO_CLAUDE, NO_SQLITE3])
def test_an_e2e_test_that_would_skip_fails_under_ci(tmp_path: Path, test: str) -> None:
    env = {
        **os.environ,
        "CCBRIDGE_CLAUDE_CACHE": str(tmp_path / "no-claude-here"),
        "PATH": bin_dir(tmp_path, "python3"),  # no sqlite3
    }
    env.pop("CI", None)
    local = pytest_outcome(test, env)
    assert local.returncode == 0 and " skipped in " in local.stdout, local.stdout
    ci = pytest_outcome(test, {**env, "CI": "true"})
    assert ci.returncode == 1, ci.stdout  # failed, or an error in the fixture's set-up
    assert "skipped" not in ci.stdout.splitlines()[-1]
    assert "skipped under CI=true" in ci.stdout


def test_ci_checks_style_and_types_before_the_tests() -> None:
    """`.ci/run` stops at the first failing command (`set -e`, each check a line of its own):
    ruff and mypy come before pytest, and its last line is the README's test command."""
    script = (REPO / ".ci" / "run").read_text()
    lines = [line for line in script.splitlines() if line and not line.startswith("#")]
    assert "set -euo pipefail" in lines
    checks = [
        lines.index(check)
        for check in (
            "python3 -m ruff check .",
            "python3 -m ruff format --check .",
            "python3 -m mypy bridge",
        )
    ]
    readme = (REPO / "README.md").read_text().split("```sh\n", 1)[1].splitlines()[1]
    assert lines[-1] == readme
    assert all("pytest" not in line for line in lines[: max(checks)])
