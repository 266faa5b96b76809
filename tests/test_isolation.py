"""The suite's own harness (tests/conftest.py): every test has a home of its own in pytest's
temp dirs, and no CCBRIDGE_*, XDG_* or CLAUDE_* variable of the environment the suite was
started in reaches it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, outer

# Set in the outer environment of a nested run: each would point ccbridge at the real places.
LEAKS = {
    "CCBRIDGE_CONFIG": "/outer/ccbridge.yaml",
    "CCBRIDGE_STATE_DIR": "/outer/state",
    "XDG_CONFIG_HOME": "/outer/config",
    "CLAUDE_CONFIG_DIR": "/outer/claude",
    "CLAUDECODE": "1",
}


def test_a_write_to_home_lands_in_the_tests_temp_dir(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    assert Path.home() == Path(os.environ["HOME"]) != outer.HOME  # checked before writing
    written = Path("~/.claude/settings.json").expanduser()
    written.parent.mkdir()
    written.write_text("{}", encoding="utf-8")
    assert written.resolve().is_relative_to(tmp_path_factory.getbasetemp().resolve())
    assert not written.resolve().is_relative_to(outer.HOME.resolve())


def test_no_variable_of_the_outer_environment_is_seen() -> None:
    """Run as it is, and nested below with LEAKS set outside."""
    own = {"CCBRIDGE_MANAGED_DIR"}  # the harness's own: managed settings in the temp dir
    seen = [key for key in os.environ if key.startswith(("CCBRIDGE_", "XDG_", "CLAUDE_"))]
    assert sorted(seen) == sorted(own) and "CLAUDECODE" not in os.environ
    assert Path(os.environ["CCBRIDGE_MANAGED_DIR"]).is_relative_to(Path.home().parent)


def test_what_the_outer_environment_sets_does_not_leak_into_a_test(tmp_path: Path) -> None:
    """The test above in a nested run whose outer environment has LEAKS set: it still passes,
    and its home is not the outer one."""
    outer_home = tmp_path / "outer-home"
    outer_home.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--basetemp={tmp_path / 'nested'}",
            "tests/test_isolation.py::test_no_variable_of_the_outer_environment_is_seen",
            "tests/test_isolation.py::test_a_write_to_home_lands_in_the_tests_temp_dir",
        ],
        cwd=REPO,
        env={**os.environ, **LEAKS, "HOME": str(outer_home)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
