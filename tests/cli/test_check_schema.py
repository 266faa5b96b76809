from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.wire.event import CC_EVENTS, SUBHOOK_EVENTS
from bridge.wire.event import NOT_RUN as WHY_NOT_RUN
from tests.support.sandbox import Sandbox

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
    events = schema["properties"]["hooks"]["propertyNames"]["enum"]
    assert "PreToolUse" in events and "PreTooluse" not in events


def test_a_misspelt_event_gets_a_did_you_mean(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreTooluse:\n    - matcher: Bash\n      hooks:\n"
        "        - {type: command, command: exit 0}\n",
    )
    done = sandbox.run("check")
    assert done.returncode == 1
    assert (
        f"{sandbox.config}:2: hooks.PreTooluse: unknown event 'PreTooluse' "
        "(did you mean 'PreToolUse'?)"
    ) in done.stdout


# A few CC events ccbridge does not run (H7's list of run events decides which).
NOT_RUN = sorted(CC_EVENTS - SUBHOOK_EVENTS)[:4]


@pytest.mark.parametrize("event", NOT_RUN)
def test_an_event_ccbridge_does_not_run_says_where_its_hooks_belong(
    sandbox: Sandbox, event: str
) -> None:
    sandbox.write(
        sandbox.config,
        f"goals: {{enabled: true}}\nhooks:\n  {event}:\n    - hooks:\n"
        "        - {type: command, command: exit 0}\n",
    )
    done = sandbox.run("check")
    assert done.returncode == 1
    assert f"{sandbox.config}:3: hooks.{event}: ccbridge does not run {event} hooks" in done.stdout
    assert "register these in Claude Code's settings, .claude/settings.json" in done.stdout


def test_an_interrupt_hook_is_named_as_not_run_and_why(sandbox: Sandbox) -> None:
    """Claude Code 2.1.335's new event: known (no "unknown event"), not run, and why."""
    sandbox.write(
        sandbox.config,
        "hooks:\n  Interrupt:\n    - hooks:\n        - {type: command, command: exit 0}\n",
    )
    done = sandbox.run("check")
    assert done.returncode == 1
    assert (
        f"{sandbox.config}:2: hooks.Interrupt: ccbridge does not run Interrupt hooks: Claude "
        "Code ignores what an Interrupt hook answers"
    ) in " ".join(done.stdout.split())


def test_every_event_claude_code_knows_is_run_or_said_not_to_be() -> None:
    assert set(WHY_NOT_RUN) == CC_EVENTS - SUBHOOK_EVENTS
    assert all(WHY_NOT_RUN.values())
    assert len(CC_EVENTS) == 35  # Claude Code 2.1.335's (tests/e2e reads them from the binary)


def test_misspelt_hook_keys_get_a_did_you_mean_and_new_cc_keys_pass(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n"
        "        - type: command\n"
        "          command: exit 0\n"
        "          timout: 5\n"
        "          statusMessage: checking\n"
        "          someFutureCcField: 1\n"
        "        - {type: command, comand: x, command: exit 0}\n"
        "      matchr: Bash\n",
    )
    done = sandbox.run("check")
    assert done.returncode == 1
    out = done.stdout
    assert (
        f"{sandbox.config}:7: hooks.PreToolUse[0].hooks[0].timout: "
        "unknown key 'timout' (did you mean 'timeout'?)" in out
    )
    assert (
        f"{sandbox.config}:10: hooks.PreToolUse[0].hooks[1].comand: "
        "unknown key 'comand' (did you mean 'command'?)" in out
    )
    assert (
        f"{sandbox.config}:11: hooks.PreToolUse[0].matchr: "
        "unknown key 'matchr' (did you mean 'matcher'?)" in out
    )
    assert "statusMessage" not in out and "someFutureCcField" not in out
    assert "3 problem(s) in 1 file(s)" in done.stderr


def test_a_misspelt_section_key_gets_a_did_you_mean(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "defaults:\n  aproval: none\nself_protect: false\n")
    done = sandbox.run("check")
    assert (
        f"{sandbox.config}:2: defaults.aproval: unknown key 'aproval' (did you mean 'approval'?)"
        in done.stdout
    )
    assert "unknown key 'self_protect' (did you mean 'self_protection'?)" in done.stdout


# Each wrong value, the words its message must hold, and the fix `check` must give.
BAD_VALUES = [
    ("hooks: []\n", "valid dictionary, got a list", "write a mapping"),
    ("policies:\n  guards: dangerous\n", "valid list, got 'dangerous'", "write a list"),
    ("defaults:\n  timeout: [1]\n", "valid number, got a list", "write a number"),
    (
        "defaults:\n  timeout: soon\n",
        "valid number, unable to parse string as a number, got 'soon'",
        "write a number",
    ),
    (
        "defaults:\n  max_hooks: 2.5\n",
        "valid integer, got a number with a fractional part",
        "write a whole number",
    ),
    (
        "audit:\n  enabled: maybe\n",
        "valid boolean, unable to interpret input, got 'maybe'",
        "true or false",
    ),
    (
        "defaults:\n  approval: maybe\n",
        "Input should be 'prompt' or 'none', got 'maybe'",
        "use one of the values named",
    ),
    ("defaults:\n  timeout: 99\n", "less than or equal to 50, got 99", "use a smaller value"),
    ("defaults:\n  max_hooks: 0\n", "greater than or equal to 1, got 0", "use a larger value"),
    ("hooks:\n  PreToolUse:\n    - matcher: x\n", "hooks: Field required", "add the missing key"),
    (
        "hooks:\n  PreToolUse:\n    - hooks:\n        - {type: command, command: x, name: [1]}\n",
        "valid string, got a list",
        "write text here",
    ),
]


@pytest.mark.parametrize(("text", "words", "fix"), BAD_VALUES)
def test_every_schema_error_says_what_was_wrong_and_a_fix_that_fits(
    sandbox: Sandbox, text: str, words: str, fix: str
) -> None:
    sandbox.write(sandbox.config, text)
    done = sandbox.run("check")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    (at,) = [i for i, line in enumerate(lines) if words in line]
    assert lines[at + 1].strip().startswith("fix: ") and fix in lines[at + 1], lines


def test_fixes_never_point_at_values_a_message_does_not_name() -> None:
    from bridge.commands.check import fix_for

    for message in ("Input should be a valid list", "Input should be a valid dictionary"):
        assert fix_for(message) != "use one of the values named"


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_check_reports_sub_hook_commands_that_cannot_start(sandbox: Sandbox) -> None:
    executable(sandbox.project / "hooks" / "ok.sh")
    (sandbox.project / "hooks" / "plain.sh").write_text("exit 0\n")
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - hooks:\n"
        '        - {type: command, command: "${CLAUDE_PROJECT_DIR}/hooks/ok.sh --flag"}\n'
        '        - {type: command, command: "${CLAUDE_PROJECT_DIR}/hooks/gone.sh"}\n'
        '        - {type: command, command: "X=1 hooks/gone-too.sh"}\n'
        '        - {type: command, command: "/no/such/prog", args: ["a"]}\n'
        '        - {type: command, command: "hooks/plain.sh"}\n'
        '        - {type: command, command: "no-such-command-anywhere -q"}\n'
        '        - {type: command, command: "exit 0"}\n'
        '        - {type: command, command: "$HOME/x.sh"}\n',
    )
    done = sandbox.run("check")
    assert done.returncode == 1
    out, config = done.stdout, sandbox.config
    assert (
        f"{config}:5: hooks.PreToolUse[0].hooks[1]: "
        f"command file {sandbox.project}/hooks/gone.sh does not exist" in out
    )
    assert (
        f"{config}:6: hooks.PreToolUse[0].hooks[2]: command file hooks/gone-too.sh does not exist"
        in out
    )
    assert (
        f"{config}:7: hooks.PreToolUse[0].hooks[3]: command file /no/such/prog does not exist"
        in out
    )
    assert (
        f"{config}:8: hooks.PreToolUse[0].hooks[4]: command file hooks/plain.sh is not executable"
        in out
    )
    assert "warn" in out and "command 'no-such-command-anywhere' is not on PATH here" in out
    assert "ok.sh" not in out and "x.sh" not in out
    assert "4 problem(s) in 1 file(s)" in done.stderr  # the PATH one is a warning


def test_a_command_not_on_path_alone_is_a_warning(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - hooks:\n"
        "        - {type: command, command: no-such-command-anywhere}\n",
    )
    done = sandbox.run("check")
    assert done.returncode == 0
    assert "is not on PATH here" in done.stdout


def test_doctor_reports_a_missing_command_file(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - hooks:\n"
        '        - {type: command, command: "${CLAUDE_PROJECT_DIR}/hooks/gone.sh"}\n',
    )
    done = sandbox.run("doctor", "--json")
    findings = json.loads(done.stdout)
    assert any(
        f["topic"] == "config" and f["level"] == "fail" and "gone.sh does not exist" in f["message"]
        for f in findings
    ), findings


README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def readme_setup_config() -> str:
    """The ccbridge.yaml the README's Set-up section tells a new user to write."""
    setup = README.split("## Set-up", 1)[1]
    return setup.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_the_readme_setup_config_passes_check_and_guards(sandbox: Sandbox) -> None:
    text = readme_setup_config()
    assert "builtin:dangerous_shell" in text  # usable from an installed ccbridge
    sandbox.write(sandbox.config, text)
    executable(sandbox.project / "hooks" / "check.sh")  # the user's own hook it names
    done = sandbox.run("check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout
    mkfs = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "session_id": "s",
            "cwd": str(sandbox.project),
            "tool_name": "Bash",
            "tool_input": {"command": "mkfs.ext4 /dev/sda1"},
            "tool_use_id": "t",
        }
    )
    ran = sandbox.run("run", stdin=mkfs)
    assert ran.returncode == 2
    assert json.loads(ran.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "mkfs.ext4" in ran.stdout  # the guard's reason, not a config error


def test_builtin_guards_load_by_name_and_a_misspelt_one_gets_a_did_you_mean(
    sandbox: Sandbox,
) -> None:
    sandbox.write(
        sandbox.config,
        "policies:\n  guards:\n    - builtin:dangerous_shell\n    - builtin:protect_paths\n"
        "    - builtin:dangerous_shel\n",
    )
    done = sandbox.run("check")
    assert done.returncode == 1
    assert f"{sandbox.config}:5: policies: cannot load policy builtin:dangerous_shel" in done.stdout
    assert "did you mean builtin:dangerous_shell?" in done.stdout
    assert "1 problem(s) in 1 file(s)" in done.stderr
