"""Tools ccbridge does not know (an MCP server's, Cursor's `Delete` and `TabWrite`, a tool a newer
client adds) are judged by the paths their input names: a writing tool naming a protected path
is denied, another one asked about under self-protection; readers and other paths pass."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.guards.protect.protect_paths import protected_paths_guard, self_protection_guard
from bridge.pipeline import Ask, Execution
from bridge.wire import READ_ONLY_TOOLS
from tests.support.sandbox import Outcome, Sandbox, encode, pre_tool_use

SETTINGS = "/p/.claude/settings.json"
GUARD = self_protection_guard([SETTINGS], ["/p/.claude/ccbridge.yaml"], "/st", env={})
SECRETS = protected_paths_guard([".env"])


def judged(tool: str, tool_input: dict[str, Any], cwd: str = "/p") -> object:
    return GUARD(Execution.create(tool, tool_input, cwd=cwd))


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__filesystem__write_file", {"path": SETTINGS, "content": "{}"}),
        ("mcp__filesystem__edit_file", {"path": ".claude/settings.json", "edits": []}),
        ("mcp__filesystem__move_file", {"source": "/p/.claude", "destination": "/tmp/x"}),
        ("mcp__fs__create_directory", {"path": "/p/.claude/settings.json"}),
        ("mcp__fs__write_file", {"edits": [{"path": "/p/.claude/ccbridge.yaml"}]}),  # nested
        ("mcp__fs__write_file", {"paths": ["/tmp/a", "/p/.claude/ccbridge.yaml"]}),  # a list
        ("mcp__fs__write_file", {"path": "/p/src/../.claude/settings.json"}),
        ("mcp__fs__write_file", {"path": "./.claude/settings.json"}),
        ("mcp__fs__writeFile", {"path": SETTINGS}),  # camelCase
        ("MCP_FS_WRITE", {"path": SETTINGS}),  # upper case
        ("Delete", {"file_path": "/p/.claude"}),  # Cursor: a directory above the settings
        ("Delete", {"target_file": SETTINGS}),
        ("TabWrite", {"path": ".claude/settings.json"}),  # Cursor's tab completion
        ("ApplyAgentDiff", {"file": SETTINGS}),
        ("mcp__fs__rm", {"path": "/p"}),  # removing the project removes the settings
        ("mcp__state__write", {"path": "/st/audit.jsonl"}),  # ccbridge's state
    ],
)
def test_a_writing_tool_naming_a_protected_path_is_denied(
    tool: str, tool_input: dict[str, Any]
) -> None:
    reason = judged(tool, tool_input)
    assert isinstance(reason, str), reason
    assert reason.startswith(f"ccbridge self-protection: {tool} names ")


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__filesystem__read_file", {"path": SETTINGS}),
        ("mcp__filesystem__get_file_info", {"path": "/p/.claude/ccbridge.yaml"}),
        ("SomeNewTool", {"target": SETTINGS}),
    ],
)
def test_a_tool_that_may_only_read_but_names_a_protected_path_is_asked_about(
    tool: str, tool_input: dict[str, Any]
) -> None:
    reason = judged(tool, tool_input)
    assert isinstance(reason, Ask), reason
    assert "does not know whether this tool only reads" in reason.reason


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__filesystem__write_file", {"path": "/p/src/app.py", "content": "x"}),
        ("mcp__filesystem__write_file", {"path": "/p/src/app.py", "content": SETTINGS}),
        ("mcp__filesystem__edit_file", {"path": "/p/notes.md", "new_string": SETTINGS}),
        ("mcp__fs__move_file", {"source": "/p/a", "destination": "/p/b"}),
        ("mcp__fs__write_file", {"path": "/p/.claude/settings.json.bak"}),
        ("mcp__fs__write_file", {"path": "/p/.claude/other.json"}),
        ("Delete", {"file_path": "/p/src"}),
        ("mcp__github__create_issue", {"title": "fix", "body": "see .claude/settings.json"}),
        ("mcp__memory__delete_entities", {"entityNames": ["settings"]}),
        ("SomeNewTool", {"target": "/p/src/app.py"}),
    ],
)
def test_other_paths_and_content_pass(tool: str, tool_input: dict[str, Any]) -> None:
    assert judged(tool, tool_input) is None


@pytest.mark.parametrize("tool", sorted(READ_ONLY_TOOLS))
def test_a_reader_naming_a_protected_path_passes(tool: str) -> None:
    assert judged(tool, {"file_path": SETTINGS, "path": SETTINGS}) is None


def test_a_protected_path_reached_through_a_symlink_is_denied(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.write_text("{}")
    os.symlink(project / ".claude", tmp_path / "link")
    guard = self_protection_guard([settings], [], tmp_path / "st", env={})
    execution = Execution.create(
        "mcp__fs__write_file", {"path": str(tmp_path / "link" / "settings.json")}, cwd="/"
    )
    assert isinstance(guard(execution), str)


def test_a_huge_input_is_asked_about_in_bounded_work() -> None:
    many = {"paths": [f"/p/src/f{i}" for i in range(100_000)]}
    reason = judged("mcp__fs__write_file", many)
    assert isinstance(reason, Ask) and "more than 256 strings" in reason.reason


def test_a_deep_input_is_judged_to_its_bound() -> None:
    deep: Any = SETTINGS
    for _ in range(7):
        deep = {"inner": deep}
    assert isinstance(judged("mcp__fs__write_file", {"x": deep}), str)


def test_the_secrets_guard_denies_writing_tools_only() -> None:
    write = Execution.create("mcp__fs__write_file", {"path": "/p/.env"}, cwd="/p")
    read = Execution.create("mcp__fs__read_file", {"path": "/p/.env"}, cwd="/p")
    assert (
        SECRETS(write)
        == "protected path: mcp__fs__write_file names /p/.env, which it may change (matches '.env')"
    )
    assert SECRETS(read) is None


_NAME_PART = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_VERB = st.sampled_from(["write", "Write", "edit", "delete", "Delete", "move", "create", "patch"])
_KEY = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10).filter(
    lambda key: (
        key
        not in {
            "content",
            "contents",
            "text",
            "body",
            "data",
            "code",
            "message",
            "description",
            "query",
            "pattern",
            "prompt",
            "replacement",
            "search",
            "diff",
            "patch",
        }
    )
)


@given(server=_NAME_PART, verb=_VERB, tail=_NAME_PART, key=_KEY, depth=st.integers(0, 5))
def test_any_writing_tool_naming_the_settings_anywhere_is_denied(
    server: str, verb: str, tail: str, key: str, depth: int
) -> None:
    value: Any = SETTINGS
    for _ in range(depth):
        value = {key: value} if depth % 2 else [value]
    tool = f"mcp__{server}__{verb}_{tail}"
    assert isinstance(judged(tool, {key: value, "other": "/p/src/x"}), str)


@pytest.mark.parametrize(
    ("host", "event"),
    [
        (
            None,
            {
                "tool_name": "mcp__filesystem__write_file",
                "tool_input": {"path": ".claude/settings.json", "content": "{}"},
            },
        ),
        (
            "cursor",
            {
                "hook_event_name": "preToolUse",
                "tool_name": "Delete",
                "tool_input": {"path": ".claude"},
            },
        ),
    ],
)
def test_the_executable_denies_an_unknown_tool_writing_the_settings(
    tmp_path: Path, host: str | None, event: dict[str, Any]
) -> None:
    sandbox = Sandbox(tmp_path)
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    config = sandbox.write_config({}, self_protection=True)
    raw = {**pre_tool_use(tool="x", cwd=str(project), tool_input={}), **event}
    argv = [*sandbox.command(config), *(["--host", host] if host else [])]
    env = {**sandbox.env, "CLAUDE_PROJECT_DIR": str(project)}
    done = subprocess.run(argv, input=encode(raw), capture_output=True, env=env, timeout=120)
    outcome = Outcome(done.returncode, done.stdout, done.stderr.decode())
    assert outcome.exit_code == 2, outcome
    assert outcome.reason.startswith("[self-protection] "), outcome
    assert f"{event['tool_name']} names " in outcome.reason


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("mcp__shell__run_command", {"command": "rm -f .claude/settings.json"}, "may write"),
        ("mcp__shell__run_command", {"command": "ccbridge uninstall"}, "runs ccbridge itself"),
        (
            "mcp__term__exec",
            {"cmd": "sh", "args": ["-c", "echo > .claude/ccbridge.yaml"]},
            "may write",
        ),
        ("mcp__term__exec", {"script": "cd .claude && rm settings.json"}, "may write"),
    ],
)
def test_a_shell_command_a_tool_takes_is_judged_as_bash(
    tool: str, tool_input: dict[str, Any], expected: str
) -> None:
    reason = judged(tool, tool_input)
    assert isinstance(reason, str) and expected in reason, reason


@pytest.mark.parametrize(
    "tool_input",
    [{"command": "git status"}, {"cmd": "ls", "args": ["-la"]}, {"command": "make test"}],
)
def test_an_ordinary_shell_command_a_tool_takes_passes(tool_input: dict[str, Any]) -> None:
    assert judged("mcp__shell__run_command", tool_input) is None


def test_a_tool_command_no_shell_reads_is_asked_about_not_denied() -> None:
    reason = judged("mcp__shell__run_command", {"command": "echo 'unterminated"})
    assert isinstance(reason, Ask) and "cannot parse command safely" in reason.reason


def test_a_reader_with_a_command_key_is_not_judged_as_a_shell() -> None:
    assert (
        judged("Read", {"file_path": "/p/README", "command": "rm -f .claude/settings.json"}) is None
    )


@pytest.mark.parametrize(
    "uri", ["file:///p/.claude/settings.json", "file://localhost/p/.claude/settings.json",
            "file:///p/.claude/settings%2Ejson"]
)  # fmt: skip
def test_a_file_uri_names_the_path_it_points_to(uri: str) -> None:
    assert isinstance(judged("mcp__fs__write_file", {"uri": uri}), str)


def test_a_file_uri_of_another_host_or_path_passes() -> None:
    assert judged("mcp__fs__write_file", {"uri": "file://server/p/.claude/settings.json"}) is None
    assert judged("mcp__fs__write_file", {"uri": "file:///p/src/app.py"}) is None


@pytest.mark.parametrize(
    ("tool_input", "denied"),
    [
        ({"command": "echo KEY=x > .env"}, True),
        ({"cmd": "tee", "args": [".env"]}, True),
        ({"command": "cat .env"}, False),  # reading a secret is not writing it
        ({"command": "echo 'unterminated > .env"}, False),  # no shell reads it: nothing sure
    ],
)
def test_the_secrets_guard_reads_a_shell_command_a_tool_takes(
    tool_input: dict[str, Any], denied: bool
) -> None:
    reason = SECRETS(Execution.create("mcp__shell__run_command", tool_input, cwd="/p"))
    assert isinstance(reason, str) is denied, reason


@pytest.mark.parametrize("uri", ["file://[", "file:", "file:///%zz", "file://h ost/x"])
def test_a_malformed_file_uri_is_judged_as_text_without_raising(uri: str) -> None:
    assert judged("mcp__fs__write_file", {"uri": uri}) is None


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("mcp__fs__copy_file", {"source": "/tmp/s.json", "destination": "/p/.claude"}, str),
        ("mcp__fs__write_file", {"path": "/p/.claude"}, str),
        ("mcp__fs__write_file", {"path": "/p"}, type(None)),  # two levels above: not reached
        ("mcp__fs__list_directory", {"path": "/p/.claude"}, type(None)),  # a reader-like tool
    ],
)
def test_a_writing_tool_naming_the_directory_of_a_protected_file_is_denied(
    tool: str, tool_input: dict[str, Any], expected: type
) -> None:
    assert isinstance(judged(tool, tool_input), expected)
