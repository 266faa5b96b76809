"""The ready-made guards do not misread ordinary work: a subscript or a list of data in inline
interpreter code is no command, and an env file's template is no secret. What an attacker
would hide behind either is still refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bridge.guards.dangerous.dangerous_shell import dangerous_shell
from bridge.guards.protect.protect_paths import (
    DEFAULT_SECRET_PATTERNS,
    protected_paths_guard,
    self_protection_guard,
)
from bridge.paths import CC_SETTINGS_PATTERNS
from bridge.pipeline import Ask, Execution

PROJECT = "/work/project"
SECRETS = protected_paths_guard((*DEFAULT_SECRET_PATTERNS, *CC_SETTINGS_PATTERNS))
SELF = self_protection_guard(
    [f"{PROJECT}/.claude/settings.json"], [f"{PROJECT}/.claude/ccbridge.yaml"], "/var/ccb-state"
)


def bash(command: str, cwd: str = PROJECT) -> Execution:
    return Execution.create("Bash", {"command": command}, cwd=cwd)


SUBSCRIPTS = [
    "python3 -c 'import sys; print(sys.argv[1:])' a b",
    """python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' package.json""",
    "python3 -c 'print([1, 2][0])'",
    "python3 -c 'x = [n * 2 for n in range(3)]; print(x[-1], d[\"k\"])'",
    "python3 - <<'EOF'\nimport sys\nargs = sys.argv[1:]\nprint(args[0] if args else None)\nEOF",
    "node -e 'console.log(process.argv[2])' x",
    "perl -e '$h{k} = 1; print $h{k}'",
]


@pytest.mark.parametrize("command", SUBSCRIPTS)
def test_a_subscript_or_a_list_of_data_in_inline_code_is_no_command(command: str) -> None:
    assert SELF(bash(command)) is None
    assert dangerous_shell(bash(command)) is None


EVASIONS = [  # the list a call runs stays a command
    'python3 -c \'import subprocess, sys; subprocess.run([sys.argv[1], "-rf", ".claude"])\' rm',
    "python3 -c 'import subprocess; subprocess.run([cmd, \".claude/settings.json\"])'",
    'python3 -c \'import subprocess; subprocess.run(["rm", "-rf", ".claude"])\'',
    "python3 -c 'import os; os.system(\"rm -rf .claude\")'",
    "perl -e 'system(\"rm -rf .claude\")'",
]


@pytest.mark.parametrize("command", EVASIONS)
def test_what_inline_code_runs_is_still_judged(command: str) -> None:
    reason = SELF(bash(command))
    assert isinstance(reason, str) and not isinstance(reason, Ask), reason


def test_a_computed_program_name_is_told_in_words_a_user_reads() -> None:
    reason = SELF(bash("python3 -c 'import subprocess; subprocess.run([cmd, \"-x\"])'"))
    assert reason == (
        "ccbridge self-protection: cannot tell what the inline code runs: it starts a program "
        "whose name it computes, only known when the code runs"
    )
    assert "$X" not in str(reason)


TEMPLATES = [".env.example", ".env.sample", ".env.template", ".env.dist", ".env.local.example"]


@pytest.mark.parametrize("name", TEMPLATES)
def test_an_env_template_is_no_secret(name: str) -> None:
    for tool in ("Write", "Edit"):
        assert SECRETS(Execution.create(tool, {"file_path": f"{PROJECT}/{name}"})) is None
    for command in (f"echo A= >> {name}", f"cat {name}", f"cp {name} /tmp/copy", f"rm {name}"):
        assert SECRETS(bash(command)) is None, command


@pytest.mark.parametrize("name", [".env", ".env.local", ".env.production", ".env.examples"])
def test_env_files_that_are_no_template_stay_secrets(name: str) -> None:
    reason = SECRETS(Execution.create("Write", {"file_path": f"{PROJECT}/{name}"}))
    assert isinstance(reason, str) and "denied" in reason, name


def test_a_template_that_links_to_a_secret_is_judged_by_what_it_points_to(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("A=1\n")
    os.symlink(".env", tmp_path / ".env.example")
    reason = SECRETS(Execution.create("Write", {"file_path": str(tmp_path / ".env.example")}))
    assert isinstance(reason, str) and "'.env'" in reason, reason


def test_a_pattern_naming_a_template_exactly_still_protects_it() -> None:
    guard = protected_paths_guard([".env.example"])
    assert guard(Execution.create("Write", {"file_path": f"{PROJECT}/.env.example"})) is not None


@pytest.mark.parametrize(
    "command", ["cp .env.example .env", "cp -n .env.sample .env.local", "install .env.dist .env"]
)
def test_copying_a_template_onto_a_secret_is_a_question(command: str) -> None:
    reason = SECRETS(bash(command))
    assert isinstance(reason, Ask) and "from a template" in reason.reason, reason


@pytest.mark.parametrize(
    "command",
    [
        "cp secrets.txt .env",
        "cp .env.example other.txt .env",  # not every source a template
        "cp .env.example .claude/settings.json",  # onto a settings file, not a secret
        "cp .env.example .env && echo B=2 >> .env",
        "cat .env.example > .env",
    ],
)
def test_other_writes_of_a_secret_stay_denied(command: str) -> None:
    reason = SECRETS(bash(command))
    assert isinstance(reason, str) and not isinstance(reason, Ask), (command, reason)
