"""The README's Set-up, as written (settings.json and ccbridge.yaml), in a real Claude Code
session: an ordinary command runs, a dangerous one is denied by the ready-made guard, named."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .harness import ccbridge_executable, run_claude
from .hook_scripts import MARKER, TOUCH_MARKER, write_hook
from .model_stub import Turn

pytestmark = pytest.mark.e2e

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def readme_setup() -> tuple[dict[str, Any], str]:
    """The Set-up section's settings.json and ccbridge.yaml."""
    section = README.split("## Set-up", 1)[1]
    settings = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    config = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert settings is not None and config is not None
    return json.loads(settings.group(1)), config.group(1)


def project_as_in_readme(tmp_path: Path) -> tuple[Path, dict[str, Any], dict[str, str]]:
    settings, config = readme_setup()
    text = json.dumps(settings).replace(
        '"ccbridge run"', json.dumps(f"{ccbridge_executable()} run")
    )
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "ccbridge.yaml").write_text(config, encoding="utf-8")
    write_hook(project / "hooks", "check.sh", "exit 0")  # the user's own hook the YAML names
    env = {
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    return project, {**json.loads(text), "permissions": {"allow": ["Bash(touch *)"]}}, env


def test_the_readme_config_lets_an_ordinary_command_run(claude: Path, tmp_path: Path) -> None:
    project, settings, env = project_as_in_readme(tmp_path)
    result = run_claude(claude, project, settings, [Turn.bash(TOUCH_MARKER)], env=env)
    assert (project / MARKER).exists(), result.stderr
    [tool_result] = result.requests.tool_results()
    assert not tool_result.is_error, tool_result.content


def test_the_readme_config_denies_a_dangerous_command_naming_the_guard(
    claude: Path, tmp_path: Path
) -> None:
    project, settings, env = project_as_in_readme(tmp_path)
    command = f"{TOUCH_MARKER} && git push --force origin main"
    result = run_claude(claude, project, settings, [Turn.bash(command)], env=env)
    assert not (project / MARKER).exists()
    [tool_result] = result.requests.tool_results()
    assert tool_result.is_error and "[guard builtin:dangerous_shell]" in tool_result.content
