from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bridge.commands.cases import ccbridge_command
from tests.support.events import event_json
from tests.support.sandbox import Sandbox

DENY_SCRIPT = '#!/bin/sh\necho "no rm here" >&2\nexit 2\n'
CONFIG = """hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: ${CASE_DIR}/deny.sh
          name: deny
"""


def make_case(sandbox: Sandbox, name: str, expected: dict[str, object] | None) -> Path:
    case = sandbox.root / "cases" / name
    sandbox.write(case / "config.yaml", CONFIG)
    sandbox.write(case / "deny.sh", DENY_SCRIPT, mode=0o755)
    sandbox.write(case / "event.json", event_json(command="rm -rf x", cwd="${WORK_DIR}"))
    if expected is not None:
        sandbox.write_json(case / "expected.json", expected)
    return case


DENIED = {
    "stdout": {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "[deny] no rm here",
        }
    },
    "exit_code": 2,
    "stderr_contains": ["no rm here"],
}


def test_a_passing_case(sandbox: Sandbox) -> None:
    make_case(sandbox, "deny", DENIED)
    done = sandbox.run("test", str(sandbox.root / "cases"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 0 failed" in done.stdout


def test_a_failing_case_prints_a_readable_diff(sandbox: Sandbox) -> None:
    wrong = {**DENIED, "exit_code": 0, "stderr_contains": ["not there"]}
    make_case(sandbox, "wrong", wrong)
    make_case(sandbox, "right", DENIED)
    done = sandbox.run("test", str(sandbox.root / "cases"))
    assert done.returncode == 1
    assert "exit code: expected 0, got 2" in done.stdout
    assert "stderr does not contain 'not there'" in done.stdout
    assert "1 passed, 1 failed" in done.stdout


def test_stdout_mismatch_is_a_unified_diff(sandbox: Sandbox) -> None:
    expected = json.loads(json.dumps(DENIED).replace("] no rm here", "] no rm"))
    make_case(sandbox, "diff", expected)
    done = sandbox.run("test", str(sandbox.root / "cases" / "diff"))
    assert done.returncode == 1
    assert '-    "permissionDecisionReason": "[deny] no rm"' in done.stdout
    assert '+    "permissionDecisionReason": "[deny] no rm here"' in done.stdout


def test_update_records_the_answer_portably(sandbox: Sandbox) -> None:
    case = make_case(sandbox, "new", None)
    first = sandbox.run("test", str(case))
    assert first.returncode == 1 and "no expected.json yet" in first.stdout
    assert sandbox.run("test", "--update", str(case)).returncode == 0
    recorded = json.loads((case / "expected.json").read_text())
    assert recorded == {**DENIED, "stderr_contains": []}
    assert sandbox.run("test", str(case)).returncode == 0


def test_init_writes_a_skeleton_that_runs_against_the_users_config(sandbox: Sandbox) -> None:
    target = sandbox.project / ".claude" / "ccbridge-tests" / "ls"
    done = sandbox.run("test", "--init", "PreToolUse", str(target))
    assert done.returncode == 0
    assert json.loads((target / "event.json").read_text())["hook_event_name"] == "PreToolUse"
    assert sandbox.run("test").returncode == 0  # default directory, no config: no objection
    sandbox.write(sandbox.config, CONFIG.replace("${CASE_DIR}/deny.sh", "exit 2"))
    assert sandbox.run("test").returncode == 1  # the user's own config now denies


def test_the_default_finds_every_case_init_wrote_in_the_project(sandbox: Sandbox) -> None:
    for where in ("tests/hooks/deny-rm", ".claude/ccbridge-tests/ls"):
        assert sandbox.run("test", "--init", "PreToolUse", where).returncode == 0
    sandbox.write(sandbox.project / "node_modules" / "x" / "event.json", "{}")
    sandbox.write(sandbox.project / "node_modules" / "x" / "expected.json", "{}")
    done = sandbox.run("test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "deny-rm" in done.stdout and "2 passed, 0 failed" in done.stdout


def test_init_refuses_unknown_events_and_non_empty_directories(sandbox: Sandbox) -> None:
    assert "no skeleton for 'Nope'" in sandbox.run("test", "--init", "Nope").stderr
    case = make_case(sandbox, "full", DENIED)
    done = sandbox.run("test", "--init", "Stop", str(case))
    assert done.returncode == 1 and "not empty" in done.stderr


def test_no_cases_is_an_error(sandbox: Sandbox) -> None:
    done = sandbox.run("test", str(sandbox.root))
    assert done.returncode == 1 and "no cases" in done.stderr


def test_setup_runs_first_in_the_work_directory(sandbox: Sandbox) -> None:
    case = make_case(sandbox, "setup", {"stdout": None, "exit_code": 0})
    sandbox.write(
        case / "deny.sh",
        '#!/bin/sh\ntest -f marker || { echo "no marker in $PWD" >&2; exit 2; }\n',
        mode=0o755,
    )
    assert sandbox.run("test", str(case)).returncode == 1
    sandbox.write(case / "setup", "#!/bin/sh\ntouch marker\n", mode=0o755)
    assert sandbox.run("test", str(case)).returncode == 0
    sandbox.write(case / "setup", "#!/bin/sh\necho broken >&2; exit 3\n", mode=0o755)
    done = sandbox.run("test", str(case))
    assert done.returncode == 1 and "setup exited with code 3: broken" in done.stdout


def test_without_paths_only_the_project_is_searched(sandbox: Sandbox) -> None:
    """Run from a folder deep in the project, without $CLAUDE_PROJECT_DIR: the project's cases
    (found from its .claude), none of a tree beside it; outside any project, an error."""
    assert sandbox.run("test", "--init", "PreToolUse", "tests/hooks/ls").returncode == 0
    beside = sandbox.root / "other-tree" / "stray"
    sandbox.write(beside / "event.json", "{}")
    sandbox.write(beside / "expected.json", "{}")
    deep = sandbox.project / "src" / "pkg"
    deep.mkdir(parents=True)
    env = {k: v for k, v in sandbox.env.items() if k != "CLAUDE_PROJECT_DIR"}
    done = subprocess.run(
        [*ccbridge_command(), "test"],
        cwd=deep,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 0 failed" in done.stdout and "stray" not in done.stdout
    outside = subprocess.run(
        [*ccbridge_command(), "test"],
        cwd=sandbox.root / "other-tree",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert outside.returncode == 1 and "is in no project" in outside.stderr
    assert "stray" not in outside.stdout
