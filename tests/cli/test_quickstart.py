"""The README's Quickstart, as written, on a scratch machine: pipx (brought into a venv of the
test's own) installs ccbridge from a copy of the checkout, and the installed `ccbridge` sets up
a fresh project. The install hint a teammate without ccbridge is given is that same command."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bridge.config.registrations import INSTALL_HINT
from tests.support import REPO

README = (REPO / "README.md").read_text()
SETUP = (REPO / "docs" / "setup.md").read_text()
# What a checkout has that a clone would not: never copied.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", "*.egg-info", "__pycache__", ".hypothesis", ".*_cache", "build", "mutants", ".venv"
)


def quickstart() -> list[str]:
    """The Quickstart's commands, without their comments."""
    block = README.split("## Quickstart", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_install_hint_is_the_quickstarts_install_command() -> None:
    install = quickstart()[0]
    assert install == "pipx install ."
    hinted = re.findall(r"`([^`]+)`", INSTALL_HINT)
    assert hinted[:2] == [install, "uv tool install ."]
    assert "pipx install ccbridge" not in INSTALL_HINT + README + SETUP
    assert f"`{install}`" in SETUP


def _scratch_env(root: Path, tools: Path) -> dict[str, str]:
    kept = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PIPX_", "VIRTUAL_ENV", "PYTHON"))
    }
    return {
        **kept,
        "HOME": str(root / "home"),
        "PIPX_HOME": str(root / "pipx"),
        "PIPX_BIN_DIR": str(root / "bin"),
        "PIPX_MAN_DIR": str(root / "man"),
        "PATH": f"{root / 'bin'}:{tools / 'bin'}:/usr/bin:/bin",
    }


@pytest.mark.slow
def test_quickstart_as_written_installs_and_sets_up_a_project(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    subprocess.run([sys.executable, "-m", "venv", str(tools)], check=True)
    fetched = subprocess.run(
        [str(tools / "bin" / "python"), "-m", "pip", "install", "-q", "pipx"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if fetched.returncode != 0:
        pytest.skip(f"pipx cannot be installed here: {fetched.stderr[-300:]}")
    checkout = tmp_path / "ccbridge"
    shutil.copytree(REPO, checkout, ignore=NOT_SOURCE)
    (tmp_path / "home").mkdir()
    env = _scratch_env(tmp_path, tools)
    install, *rest = quickstart()
    done = subprocess.run(
        ["sh", "-c", install], cwd=checkout, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "bin" / "ccbridge").is_file()
    project = tmp_path / "your-project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    cd, register, doctor = rest
    assert cd == "cd your-project"
    outputs = {}
    for command in (register, doctor):
        ran = subprocess.run(
            ["sh", "-c", f"{cd} && {command}"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "Traceback" not in ran.stderr, ran.stderr
        outputs[command] = ran
    assert outputs[register].returncode == 0, outputs[register].stderr
    assert (project / ".claude" / "settings.json").is_file()
    report = outputs[doctor].stdout
    assert re.search(r"^\s*ok\s+registration\b", report, re.MULTILINE), report
    assert re.search(r"^\s*ok\s+starts\b", report, re.MULTILINE), report
    assert str(tmp_path / "bin" / "ccbridge") in report  # the pipx-installed one runs
