"""The code beside a sub-hook's script, through real Claude Code with the wall `ccbridge install`
puts up. Python runs `hooks/guard.py` with `hooks/` first on sys.path, so a `hooks/json.py` the
agent writes would be the hook's `import json`, run outside the sandbox on the next call. With
ccbridge's text guards off (the user layer says so), only the wall stands in the way: every
spelling of the write fails, and the hook's next run imports the standard library's json.
Installed with `--no-sandbox`, the same session plants the module and the hook runs it: the
attack is real, and the test can fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .goal_support import newest_claude
from .harness import run_claude
from .model_stub import ToolCall, Turn
from .test_wall_hook_cwd_e2e import installed as installed_with

pytestmark = pytest.mark.e2e

# The hook: reads the event with json and notes that it ran (it runs outside the sandbox).
GUARD_PY = (
    "import json, os, sys\njson.load(sys.stdin)\n"
    "open(os.path.expanduser('~/hook-ran'), 'a').write('ran\\n')\n"
)
# What the agent's module does when the hook imports it: a file in the home directory, which
# sandboxed commands cannot write.
EVIL = "import os\nopen(os.path.expanduser('~/escaped'), 'w').write('hook ran it')\n"
TRIES = [  # evil.py (in the project, where the agent may write) holds EVIL
    "cat evil.py > hooks/json.py",
    "cp evil.py hooks/json.py",
    "cd hooks && tee json.py < ../evil.py",
    "python3 -c \"open('hooks/json.py', 'w').write(open('evil.py').read())\"",
    "mkdir -p hooks/json && cp evil.py hooks/json/__init__.py",
    "ln -s ../evil.py hooks/json.py",
]


def installed(tmp_path: Path, *options: str) -> tuple[Path, Path, dict[str, str], dict[str, Any]]:
    """(home, project, ccbridge's variables, the settings) of a project `ccbridge install` set
    up with a Python PreToolUse hook, ccbridge's text guards switched off by the user."""
    command = 'python3 "$CLAUDE_PROJECT_DIR"/hooks/guard.py'
    home, _state, ours, settings = installed_with(tmp_path, command, *options)
    project = tmp_path / "project"
    (home / ".claude" / "ccbridge.yaml").write_text("self_protection: false\n")
    (project / "hooks" / "guard.py").write_text(GUARD_PY)
    (project / "evil.py").write_text(EVIL)
    settings["permissions"]["allow"] = ["Bash", "Write"]  # deny rules still win
    return home, project, ours, settings


def attack(tmp_path: Path, *options: str) -> tuple[Path, Path, str]:
    home, project, ours, settings = installed(tmp_path, *options)
    write = ToolCall("Write", {"file_path": str(project / "hooks" / "json.py"), "content": EVIL})
    turns = [Turn.bash(f"( {c} ) || true") for c in TRIES]
    result = run_claude(
        newest_claude(),
        project,
        settings,
        [*turns, Turn(tool_calls=(write,)), Turn.bash("true"), Turn.say("done")],
        env=ours,
        home=home,
        timeout=300,
    )
    return home, project, f"CC said: {result.requests.tool_results()}; {result.stderr[-800:]}"


def test_a_module_written_beside_a_hook_script_cannot_shadow_its_import(tmp_path: Path) -> None:
    home, project, told = attack(tmp_path)
    assert not (project / "hooks" / "json.py").exists(), told
    assert not (project / "hooks" / "json").exists(), told
    assert not (home / "escaped").exists(), told
    assert (project / "hooks" / "guard.py").read_text() == GUARD_PY
    # the hook ran on every Bash call, its own json imported: the attempts ran and failed
    assert (home / "hook-ran").read_text().count("ran") == len(TRIES) + 1, told


def test_without_the_wall_the_planted_module_runs_as_the_hook(tmp_path: Path) -> None:
    home, project, told = attack(tmp_path, "--no-sandbox")
    assert (project / "hooks" / "json.py").exists(), told
    assert (home / "escaped").read_text() == "hook ran it", told
