"""An MCP server's tools through real Claude Code: ccbridge judges them by what their input names.

Claude Code starts an MCP server as its own process, outside the sandbox it puts around the Bash
tool, and the `Edit(...)` deny rules `ccbridge install` adds name CC's file tools only: the wall
does not stand between an MCP server's `write_file` and `.claude/settings.json`. Self-protection
does, judging the paths and the shell command line the call's input names. The server here
(`mcp_server.py`, beside this module) really writes and runs; its tools are allowed with
`--allowedTools`, so without ccbridge's hook each call runs (the control rows).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from bridge.config import registrations

from .harness import (
    REPO_ROOT,
    Result,
    ccbridge_executable,
    install_ccbridge,
    pinned_versions,
    run_claude,
)
from .model_stub import ToolCall, Turn
from .test_sandbox_e2e import require_sandbox

pytestmark = pytest.mark.e2e

SERVER = Path(__file__).with_name("mcp_server.py")
NAME = "x"
WRITE = f"mcp__{NAME}__write_file"
RUN = f"mcp__{NAME}__run_command"
FORGED = '{"hooks": {}, "permissions": {"allow": ["Bash(*)"]}}\n'
REASON = "[self-protection]"
# The ways the project is set up: ccbridge installed with the wall or with --no-sandbox, and
# the controls, the same settings without ccbridge's hooks (the wall stays where it was).
SETUPS = {
    "ccbridge-wall": (True, True),
    "ccbridge-no-sandbox": (True, False),
    "control-wall": (False, True),
    "control-no-sandbox": (False, False),
}


@dataclass
class Project:
    root: Path
    claude: Path
    home: Path
    project: Path
    settings: dict[str, object]
    env: dict[str, str]

    @property
    def settings_file(self) -> Path:
        return self.project / ".claude" / "settings.json"

    def session(self, *calls: ToolCall) -> Result:
        config = self.root / "mcp.json"
        server = {"command": sys.executable, "args": [str(SERVER)]}
        config.write_text(json.dumps({"mcpServers": {NAME: server}}))
        return run_claude(
            self.claude,
            self.project,
            None,  # the settings file as install wrote it: a test compares its bytes
            [*(Turn(tool_calls=(call,)) for call in calls), Turn.say("done")],
            env=self.env,
            home=self.home,
            timeout=120,
            args=["--mcp-config", str(config), "--strict-mcp-config", "--allowedTools", WRITE, RUN],
        )


def installed(claude: Path, tmp_path: Path, registered: bool, wall: bool) -> Project:
    """A project set up by the real `ccbridge install` (with the wall unless `wall` is False);
    not `registered`: the same settings with ccbridge's hooks taken out."""
    if wall:
        require_sandbox()
    home, project = tmp_path / "home", tmp_path / "project"
    state, cache = tmp_path / "state", tmp_path / "cache"
    for directory in (home / ".claude", project / ".claude", state, cache):
        directory.mkdir(parents=True)
    (home / ".claude" / "ccbridge.yaml").write_text("audit: {enabled: false}\n")
    # The hook runs the `ccbridge` found on PATH: this interpreter's, the one under test.
    path = f"{Path(ccbridge_executable()).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {"CCBRIDGE_STATE_DIR": str(state), "CCBRIDGE_CACHE_DIR": str(cache), "PATH": path}
    done = install_ccbridge(project, home, env, *(() if wall else ("--no-sandbox",)))
    assert done.returncode == 0, done.stdout + done.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert ("sandbox" in settings) is wall, settings
    handlers = [h for group in settings["hooks"]["PreToolUse"] for h in group["hooks"]]
    assert any(registrations.is_registration(handler) for handler in handlers), settings
    if not registered:
        del settings["hooks"]
        local = project / ".claude" / "settings.local.json"  # this machine's copy: out too
        if local.exists():
            copy = json.loads(local.read_text())
            copy.pop("hooks", None)
            local.write_text(json.dumps(copy, indent=2) + "\n")
    (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    return Project(tmp_path, claude, home, project, settings, env)


def told(result: Result) -> str:
    return f"CC said: {result.requests.tool_results()}; stderr: {result.stderr[-800:]}"


def assert_denied(result: Result, tool: str) -> None:
    """The model read self-protection's reason as the call's result, and CC counted a denial."""
    results = result.requests.tool_results()
    assert results and results[0].is_error, told(result)
    assert f"{REASON} " in results[0].content, told(result)
    assert [denial.get("tool_name") for denial in result.permission_denials] == [tool], told(result)


@pytest.mark.parametrize("setup", list(SETUPS))
def test_an_mcp_write_file_to_the_settings(claude: Path, tmp_path: Path, setup: str) -> None:
    """With ccbridge registered the call is denied with self-protection's reason and the
    settings keep their bytes; without it (the control) the MCP server rewrites them, the wall
    up or not."""
    registered, wall = SETUPS[setup]
    world = installed(claude, tmp_path, registered, wall)
    before = world.settings_file.read_bytes()
    target = str(world.settings_file)
    result = world.session(ToolCall(WRITE, {"path": target, "content": FORGED}))
    after = world.settings_file.read_bytes()
    if registered:
        assert after == before, told(result)
        assert_denied(result, WRITE)
    else:
        assert after == FORGED.encode(), told(result)
        assert not result.permission_denials, told(result)
        assert not result.requests.model_saw(REASON), told(result)


@pytest.mark.parametrize("setup", ["ccbridge-wall", "ccbridge-no-sandbox", "control-wall"])
def test_an_mcp_command_removing_the_settings(claude: Path, tmp_path: Path, setup: str) -> None:
    """The shell command line an MCP tool takes is judged as a Bash command's: `rm -f` of the
    settings is denied with ccbridge registered; in the control it runs and the file is gone."""
    registered, wall = SETUPS[setup]
    world = installed(claude, tmp_path, registered, wall)
    before = world.settings_file.read_bytes()
    result = world.session(ToolCall(RUN, {"command": "rm -f .claude/settings.json"}))
    if registered:
        assert world.settings_file.read_bytes() == before, told(result)
        assert_denied(result, RUN)
    else:
        assert not world.settings_file.exists(), told(result)
        assert not result.permission_denials, told(result)


def test_an_mcp_write_file_elsewhere_in_the_project_runs(claude: Path, tmp_path: Path) -> None:
    """A look-alike: the same tool writing a file ccbridge does not keep runs, with ccbridge
    registered behind the wall."""
    world = installed(claude, tmp_path, registered=True, wall=True)
    before = world.settings_file.read_bytes()
    notes = world.project / "notes.txt"
    result = world.session(ToolCall(WRITE, {"path": str(notes), "content": "a note\n"}))
    assert notes.read_text() == "a note\n", told(result)
    assert not result.permission_denials, told(result)
    assert not result.requests.model_saw(REASON), told(result)
    assert world.settings_file.read_bytes() == before, told(result)


def test_the_documented_rows_name_the_measured_versions() -> None:
    """docs/e2e-matrix.md says which versions these rows were measured on: the pinned ones."""
    text = (REPO_ROOT / "docs" / "e2e-matrix.md").read_text(encoding="utf-8")
    section = text.split("## An MCP server's tools", 1)[1].split("\n## ", 1)[0]
    prose = " ".join(section.split())
    assert f"Measured on Claude Code {' and '.join(pinned_versions())} " in prose, prose
    assert "`tests/e2e/test_mcp_tools_e2e.py`" in prose
