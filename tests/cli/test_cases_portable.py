"""A case recorded with `ccbridge test --update` passes on a teammate's machine: another HOME,
another checkout path. The recorded answer names neither machine's home nor project."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bridge.commands import cases
from tests.support.sandbox import Sandbox

CONFIG = """hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - {type: command, command: "${CLAUDE_PROJECT_DIR}/hooks/no-publish.sh", name: no-publish}
"""
# A team hook that says where it ran, as real hooks do in their reasons.
HOOK = (
    "#!/bin/sh\n"
    'echo "no publish: see $CLAUDE_PROJECT_DIR/RELEASING.md or $HOME/.npmrc" >&2\n'
    "exit 2\n"
)


def team_project(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, CONFIG)
    sandbox.write(sandbox.project / "hooks" / "no-publish.sh", HOOK, mode=0o755)
    (sandbox.project / ".git").mkdir()
    assert sandbox.run("test", "--init", "PreToolUse", "tests/hooks/publish").returncode == 0
    event_file = sandbox.project / "tests" / "hooks" / "publish" / "event.json"
    event = json.loads(event_file.read_text())
    event["tool_input"]["command"] = "npm publish"
    sandbox.write_json(event_file, event)


def test_a_recorded_case_passes_with_another_home_and_checkout(tmp_path: Path) -> None:
    recorder = Sandbox(tmp_path / "alice")
    team_project(recorder)
    recorded = recorder.run("test", "--update")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    text = (recorder.project / "tests" / "hooks" / "publish" / "expected.json").read_text()
    assert str(tmp_path) not in text  # neither the home nor the checkout of the recorder
    reason = json.loads(text)["stdout"]["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason == (
        f"[no-publish] no publish: see {cases.PROJECT_DIR}/RELEASING.md or {cases.HOME_DIR}/.npmrc"
    )
    assert recorder.run("test").returncode == 0
    # a teammate: another home, the project checked out somewhere else
    teammate = Sandbox(tmp_path / "bob" / "src")
    shutil.copytree(recorder.project, teammate.project, dirs_exist_ok=True)
    ran = teammate.run("test")
    assert ran.returncode == 0, ran.stdout
    assert "1 passed, 0 failed" in ran.stdout


def test_a_home_that_prefixes_another_path_is_not_taken_for_it() -> None:
    machine = [("/home/al", cases.HOME_DIR)]
    text = '"/home/al/x /home/alice/y /home/al"'
    assert cases._placeholders(text, Path("/c"), Path("/r"), machine) == (
        '"${HOME}/x /home/alice/y ${HOME}"'
    )
