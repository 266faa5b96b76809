from __future__ import annotations

import json

import pytest

from .conftest import Sandbox

COMMANDS = ["install", "uninstall", "explain", "test", "check", "schema", "audit", "doctor"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(sandbox: Sandbox, command: str) -> None:
    done = sandbox.run(command, "--help")
    assert done.returncode == 0 and "Example" in done.stdout


def test_check_passes_valid_layers(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.home / ".claude" / "ccbridge.yaml", "audit:\n  keep: 2\n")
    sandbox.write(sandbox.config, "hooks: {}\n")
    done = sandbox.run("check")
    assert done.returncode == 0
    assert str(sandbox.config) in done.stdout and "ccbridge.yaml" in done.stdout


def test_check_reports_file_line_and_fix_for_every_layer(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "defaults:\n  timeout: 90\n  colour: red\n")
    local = sandbox.write(
        sandbox.project / ".claude" / "ccbridge.local.yaml",
        "hooks:\n  PreToolUse:\n    - matcher: '('\n      hooks: []\n",
    )
    done = sandbox.run("check")
    assert done.returncode == 1
    assert f"{sandbox.config}:2: defaults.timeout" in done.stdout
    assert "fix: use a smaller value" in done.stdout
    assert f"{sandbox.config}:3: defaults.colour: unknown key" in done.stdout
    assert f"{local}:3: hooks.PreToolUse[0].matcher" in done.stdout
    assert "3 problem(s) in 2 file(s)" in done.stderr and "Traceback" not in done.stderr


def test_check_reports_a_policy_that_cannot_load(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "policies:\n  guards:\n    - no_such_module_here:guard\n")
    done = sandbox.run("check")
    assert done.returncode == 1
    assert f"{sandbox.config}:3" in done.stdout and "no_such_module_here" in done.stdout


def test_check_without_config(sandbox: Sandbox) -> None:
    done = sandbox.run("check")
    assert done.returncode == 0 and "no config files" in done.stdout


def test_schema_is_the_config_json_schema(sandbox: Sandbox) -> None:
    done = sandbox.run("schema")
    schema = json.loads(done.stdout)
    assert {"hooks", "defaults", "policies", "audit", "goals"} <= set(schema["properties"])
    assert schema["additionalProperties"] is False
