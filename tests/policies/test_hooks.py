"""hooks/dangerous_shell.py and hooks/protect_paths.py run as real Claude Code command hooks."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sysconfig
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bridge.pipeline import Execution
from bridge.policies.loader import load_policy
from tests.support import REPO
from tests.support.events import tool_call

HOOKS = REPO / "hooks"
DANGEROUS = HOOKS / "dangerous_shell.py"
PROTECT = HOOKS / "protect_paths.py"


# The fields these tests give every event (the plain hooks read the cwd as the project).
event = partial(
    tool_call, transcript_path="/tmp/t.jsonl", cwd="/work/project", tool_use_id="toolu_01"
)


def run(hook: Path, stdin: bytes, *args: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [str(hook), *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, "HOME": "/home/dev"},
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def denial(stdout: str) -> str:
    payload = json.loads(stdout)
    specific = payload["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    assert set(payload) == {"hookSpecificOutput"}
    return str(specific["permissionDecisionReason"])


@pytest.mark.parametrize("hook", [DANGEROUS, PROTECT])
def test_hooks_are_executable_scripts(hook: Path) -> None:
    assert os.access(hook, os.X_OK)
    assert hook.read_text().startswith("#!/usr/bin/env python3\n")


def test_dangerous_shell_denies_with_the_reason() -> None:
    code, stdout, stderr = run(DANGEROUS, event("Bash", {"command": "sudo rm -rf /"}))
    assert (code, stderr) == (0, "")
    assert denial(stdout) == (
        "dangerous command `sudo rm -rf /`: recursively deletes /, the root of the filesystem"
    )


@pytest.mark.parametrize(
    ("tool_name", "tool_input"),
    [("Bash", {"command": "rm -rf ./build"}), ("Write", {"file_path": "/x", "content": ""})],
)
def test_dangerous_shell_says_nothing_otherwise(tool_name: str, tool_input: dict[str, Any]) -> None:
    assert run(DANGEROUS, event(tool_name, tool_input)) == (0, "", "")


@pytest.mark.parametrize("hook", [DANGEROUS, PROTECT])
@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        (b"", "stdin was empty"),
        (b"not json", "stdin is not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"hook_event_name": "PreToolUse", "tool_name": "Bash"}', "no tool_input object"),
    ],
)
def test_malformed_stdin_is_a_denial(hook: Path, stdin: bytes, why: str) -> None:
    code, stdout, stderr = run(hook, stdin)
    assert (code, stderr) == (0, "")
    reason = denial(stdout)
    assert reason.startswith(f"{hook.stem} hook cannot judge this call: ")
    assert why in reason


@pytest.mark.parametrize("hook", [DANGEROUS, PROTECT])
def test_other_events_get_no_answer(hook: Path) -> None:
    stdin = event("Bash", {"command": "rm -rf /"}, name="PostToolUse")
    assert run(hook, stdin) == (0, "", "")


def test_dangerous_shell_git_rules_are_switched_by_options() -> None:
    stash = event("Bash", {"command": "git stash drop"})
    assert "git stash drop deletes stashed changes" in denial(run(DANGEROUS, stash)[1])
    assert run(DANGEROUS, stash, "--allow", "git-stash-drop") == (0, "", "")
    lease = event("Bash", {"command": "git push --force-with-lease"})
    assert run(DANGEROUS, lease) == (0, "", "")
    code, stdout, _ = run(DANGEROUS, lease, "--deny", "git-push-force-with-lease")
    assert code == 0
    assert "--force-with-lease still overwrites the remote branch" in denial(stdout)


def test_a_project_switches_git_rules_with_a_policy_file_next_to_its_config(
    tmp_path: Path,
) -> None:
    """The policy file docs/guards.md shows, as written."""
    (example,) = re.findall(r"```py\n(.*?)```", (REPO / "docs" / "guards.md").read_text(), re.S)
    assert "guard = configure(" in example
    (tmp_path / "guards.py").write_text(example)
    (tmp_path / "ccbridge.yaml").write_text("policies:\n  guards: [guards.py:guard]\n")

    def answer(command: str) -> tuple[int, str]:
        done = subprocess.run(
            [
                str(Path(sysconfig.get_path("scripts")) / "ccbridge"),
                "run",
                "--config",
                str(tmp_path / "ccbridge.yaml"),
            ],
            # ccbridge denies a call whose working directory does not exist
            input=event("Bash", {"command": command}, cwd=str(tmp_path)),
            capture_output=True,
            env={
                **os.environ,
                "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
                "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
                "CLAUDE_PROJECT_DIR": str(tmp_path),
            },
            check=False,
        )
        return done.returncode, done.stdout.decode()

    assert answer("git stash drop") == (0, "")
    code, stdout = answer("git push --force-with-lease")
    assert code == 2
    assert "--force-with-lease still overwrites" in denial(stdout)
    code, stdout = answer("git reset --hard")
    assert code == 2
    assert "git reset --hard throws away every uncommitted change" in denial(stdout)


def test_dangerous_shell_refuses_an_unknown_rule_with_a_blocking_exit() -> None:
    code, stdout, stderr = run(DANGEROUS, event("Bash", {"command": "ls"}), "--allow", "nope")
    assert (code, stdout) == (2, "")  # exit 2 blocks the call in Claude Code: fail closed
    assert "invalid choice: 'nope'" in stderr


def test_dangerous_shell_denies_what_it_cannot_parse() -> None:
    code, stdout, _ = run(DANGEROUS, event("Bash", {"command": "echo 'oops"}))
    assert code == 0
    assert denial(stdout) == "cannot parse command safely: unterminated single quote"


@pytest.mark.parametrize(
    ("tool_name", "tool_input", "entry"),
    [
        ("Write", {"file_path": "/work/project/.env", "content": "A=1"}, ".env"),
        ("Edit", {"file_path": "/home/dev/.claude/settings.json"}, "~/.claude/settings*.json"),
        ("Bash", {"command": "echo x >> ~/.ssh/authorized_keys"}, ".ssh/**"),
    ],
)
def test_protect_paths_denies_secrets_and_settings_by_default(
    tool_name: str, tool_input: dict[str, Any], entry: str
) -> None:
    code, stdout, _ = run(PROTECT, event(tool_name, tool_input))
    assert code == 0
    assert repr(entry) in denial(stdout)


def test_protect_paths_takes_extra_patterns() -> None:
    stdin = event("Write", {"file_path": "/work/project/db/prod.sqlite", "content": ""})
    assert run(PROTECT, stdin) == (0, "", "")
    code, stdout, _ = run(PROTECT, stdin, "--protect", "*.sqlite", "--protect", "/srv/**")
    assert code == 0
    assert denial(stdout) == (
        "protected path: Write to /work/project/db/prod.sqlite is denied (matches '*.sqlite')"
    )


def test_protect_paths_lets_other_writes_through() -> None:
    stdin = event("Write", {"file_path": "/work/project/src/app.py", "content": "x"})
    assert run(PROTECT, stdin) == (0, "", "")


@pytest.mark.parametrize(
    ("ref", "tool_input"),
    [
        (f"{DANGEROUS}:guard", {"command": "git push --force"}),
        (f"{PROTECT}:guard", {"command": "echo x > .env"}),
    ],
)
def test_hooks_load_as_native_guards(ref: str, tool_input: dict[str, Any]) -> None:
    guard = load_policy(ref)
    assert guard(Execution.create("Bash", tool_input, cwd="/work/project")) is not None
    assert guard(Execution.create("Bash", {"command": "ls"}, cwd="/work/project")) is None
