"""ccbridge once per event through real Claude Code, whatever registrations a team ends up with.

Claude Code runs one hook named in several settings files once only when the entries are the
same: the first test measures which entries count as the same (the table below, the basis of
bridge.config.registrations). The second installs ccbridge as a teammate would, for the project
(the PATH launcher of the shared file) and for the user (this machine's absolute path), two
different commands that Claude Code starts side by side for every event, and checks that the
team's sub-hook still runs once per tool call (bridge.coordination)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bridge.commands.install import registered_commands

from .harness import ccbridge_executable, claude_binary, install_ccbridge, run_claude
from .model_stub import Turn
from .test_mods_e2e import private_system

pytestmark = pytest.mark.e2e

VERSION = "2.1.335"
# How many times one PreToolUse call ran a hook registered in two settings files, per pair of
# entries (measured with VERSION): the same shell command once whatever its timeout, onFailure
# or matcher, and in managed settings too; exec form only with identical exec form.
RUNS = {
    "identical": 1,
    "timeout differs": 1,
    "onFailure differs": 1,
    "matcher differs": 1,
    "shell and exec form": 2,
    "exec form, identical": 1,
    "whitespace differs": 2,
    "project and local": 1,
    "managed and project, exec form": 1,
    "managed exec form and project shell": 2,
    "managed and project, shell": 1,
}
COUNT = """#!/usr/bin/env python3
import json, sys
call = json.load(sys.stdin)
with open({log!r}, "a") as log:
    log.write(sys.argv[1:2][0] if sys.argv[1:] else call.get("tool_use_id", "?"))
    log.write("\\n")
"""


def _shell(hook: str, label: str, **options: Any) -> dict[str, Any]:
    return {"type": "command", "command": f"{hook} {label.replace(' ', '_')}", **options}


def _exec(hook: str, label: str) -> dict[str, Any]:
    return {"type": "command", "command": hook, "args": [label.replace(" ", "_")]}


def _pairs(hook: str) -> dict[str, tuple[str, dict[str, Any], str, dict[str, Any]]]:
    """Per case: (file, entry, other file, other entry)."""
    return {
        "identical": ("project", _shell(hook, "identical"), "user", _shell(hook, "identical")),
        "timeout differs": (
            "project",
            _shell(hook, "timeout differs", timeout=60),
            "user",
            _shell(hook, "timeout differs", timeout=30),
        ),
        "onFailure differs": (
            "project",
            _shell(hook, "onFailure differs", onFailure="block"),
            "user",
            _shell(hook, "onFailure differs"),
        ),
        "matcher differs": (
            "project",
            _shell(hook, "matcher differs"),
            "user+Bash",
            _shell(hook, "matcher differs"),
        ),
        "shell and exec form": (
            "project",
            _shell(hook, "shell and exec form"),
            "user",
            _exec(hook, "shell and exec form"),
        ),
        "exec form, identical": (
            "project",
            _exec(hook, "exec form, identical"),
            "user",
            _exec(hook, "exec form, identical"),
        ),
        "whitespace differs": (
            "project",
            _shell(hook, "whitespace differs"),
            "user",
            {"type": "command", "command": f"{hook}  whitespace_differs"},
        ),
        "project and local": (
            "project",
            _shell(hook, "project and local"),
            "local",
            _shell(hook, "project and local"),
        ),
        "managed and project, exec form": (
            "managed",
            _exec(hook, "managed and project, exec form"),
            "project",
            _exec(hook, "managed and project, exec form"),
        ),
        "managed exec form and project shell": (
            "managed",
            _exec(hook, "managed exec form and project shell"),
            "project",
            _shell(hook, "managed exec form and project shell"),
        ),
        "managed and project, shell": (
            "managed",
            _shell(hook, "managed and project, shell"),
            "project",
            _shell(hook, "managed and project, shell"),
        ),
    }


def _binary() -> Path:
    binary = claude_binary(VERSION)
    if binary is None:
        pytest.skip(f"Claude Code {VERSION} is not fetched: run scripts/fetch-clients")
    return binary


def test_which_registrations_claude_code_runs_once(tmp_path: Path) -> None:
    binary = _binary()
    project, home = tmp_path / "project", tmp_path / "home"
    for folder in (project / ".claude", home / ".claude"):
        folder.mkdir(parents=True)
    log = tmp_path / "runs.log"
    hook = tmp_path / "count.py"
    hook.write_text(COUNT.format(log=str(log)))
    hook.chmod(0o755)
    files: dict[str, dict[str, list[Any]]] = {}
    for name, (one, first, other, second) in _pairs(str(hook)).items():
        del name
        for where, entry in ((one, first), (other, second)):
            file, _, matcher = where.partition("+")
            group = {"hooks": [entry], **({"matcher": matcher} if matcher else {})}
            files.setdefault(file, {}).setdefault("PreToolUse", []).append(group)
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": files["user"]}))
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"hooks": files["local"]}))
    wrap = private_system(tmp_path / "etc", "once.json", {"hooks": files["managed"]})
    settings = {"permissions": {"allow": ["Bash"]}, "hooks": files["project"]}
    script = [Turn.bash("true"), Turn.say("done")]
    result = run_claude(binary, project, settings, script, home=home, wrap=wrap, timeout=300)
    assert len(result.requests.tool_results()) == 1, result.stderr[-2000:]
    ran = log.read_text().split()
    measured = {name: ran.count(name.replace(" ", "_")) for name in RUNS}
    print(json.dumps({"version": VERSION, "runs": measured}, indent=1))
    assert measured == RUNS


def test_user_and_project_registrations_run_a_sub_hook_once_per_event(tmp_path: Path) -> None:
    binary = _binary()
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    log = tmp_path / "runs.log"
    hook = tmp_path / "count.py"
    hook.write_text(COUNT.format(log=str(log)))
    hook.chmod(0o755)
    # the team's hook, which `install --project` moves behind ccbridge into .claude/ccbridge.yaml
    team = {"matcher": "Bash", "hooks": [{"type": "command", "command": str(hook)}]}
    settings = {"permissions": {"allow": ["Bash"]}, "hooks": {"PreToolUse": [team]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    env = {
        "PATH": f"{Path(ccbridge_executable()).parent}:/usr/bin:/bin",
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    for scope in ("--project", "--user"):
        done = install_ccbridge(project, home, env, scope, "--no-sandbox")
        assert done.returncode == 0, done.stdout + done.stderr
    shared = registered_commands((project / ".claude" / "settings.json").read_bytes())
    mine = registered_commands((home / ".claude" / "settings.json").read_bytes())
    assert shared["PreToolUse"] != mine["PreToolUse"]  # two commands: CC starts both
    script = [Turn.bash("true"), Turn.bash("true"), Turn.say("done")]
    result = run_claude(binary, project, None, script, env=env, home=home, timeout=300)
    results = result.requests.tool_results()
    assert len(results) == 2 and not any(r.is_error for r in results), (
        results,
        result.stderr[-2000:],
    )
    ran = log.read_text().split()
    assert len(set(ran)) == 2, ran
    assert {tool_use_id: ran.count(tool_use_id) for tool_use_id in ran} == dict.fromkeys(ran, 1)
