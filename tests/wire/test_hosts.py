"""Other agents' envelopes and answers (bridge.wire.hosts): each host's documented payload is
judged as the CC call it is, and every deny is one the host honours."""

from __future__ import annotations

import json
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.pipeline import Allow
from bridge.wire import HOSTS, answer
from bridge.wire.event import EventError, parse_event
from bridge.wire.hosts import answer as in_dialect
from bridge.wire.hosts import detect
from bridge.wire.hosts.codex import patch_files

SCRIPT = Path(sysconfig.get_path("scripts")) / "ccbridge"
OTHERS = [host for host in HOSTS if host != "claude-code"]

CURSOR = {
    "conversation_id": "c1",
    "generation_id": "g1",
    "cursor_version": "2.3.35",
    "workspace_roots": ["/w"],
    "hook_event_name": "preToolUse",
    "tool_name": "Shell",
    "tool_input": {"command": "ls", "working_directory": "/w"},
    "tool_use_id": "t1",
    "cwd": "/w",
}
GROK = {
    "hookEventName": "pre_tool_use",
    "sessionId": "s",
    "cwd": "/w",
    "workspaceRoot": "/w",
    "toolName": "run_terminal_command",
    "toolUseId": "call_1",
    "toolInput": {"command": "ls"},
    "toolInputTruncated": False,
}
GEMINI = {
    "session_id": "s",
    "cwd": "/w",
    "hook_event_name": "BeforeTool",
    "timestamp": "2026-12-01T00:00:00.000Z",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "ls", "description": "list"},
}
CODEX = {
    "session_id": "s",
    "turn_id": "t",
    "cwd": "/w",
    "hook_event_name": "PreToolUse",
    "model": "gpt-5",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
    "tool_use_id": "call_1",
}
# Measured: what the real clients sent a hook (tests/e2e/test_agents_matrix.py drives them),
# Copilot CLI 1.0.102 for a camelCase `preToolUse` hook, Qwen Code 0.24.4 for `PreToolUse`.
COPILOT = {
    "sessionId": "2f6d2875-96e5-4f94-b675-8031cb717935",
    "timestamp": 1796307818622,
    "cwd": "/w",
    "toolName": "bash",
    "toolArgs": {"command": "ls", "description": "x"},
}
QWEN = {
    "session_id": "b09c4c57-5c89-484a-b73e-acd2d0d9150c",
    "transcript_path": "/w/.qwen/chats/b09c4c57.jsonl",
    "cwd": "/w",
    "hook_event_name": "PreToolUse",
    "timestamp": "2026-12-03T14:22:48.551Z",
    "permission_mode": "yolo",
    "prompt_id": "b09c4c57-5c89-484a-b73e-acd2d0d9150c########0",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "ls", "description": "x"},
    "tool_use_id": "toolu_1796307768539_wykjg5zxj",
    "tool_call_id": "call_1",
}
# What ccbridge's opencode plugin sends: opencode 1.18.33's tool.execute.before input and args.
OPENCODE = {
    "hook_event_name": "tool.execute.before",
    "tool": "bash",
    "sessionID": "ses_dc3a18720ffeqFMHpP2mZQ77cy",
    "callID": "call_2",
    "args": {"command": "ls", "description": "x"},
    "cwd": "/w",
}
# The `tool_call` payload of a PreToolUse hook file, as Cline 3.0.65 sent it (measured with the
# real client; `clineVersion` is empty unless $CLINE_VERSION is set).
CLINE = {
    "clineVersion": "",
    "timestamp": "2026-12-03T17:36:06.095Z",
    "taskId": "conv_1796319365514_09zhwuf",
    "sessionContext": {"rootSessionId": "1796319365192_ulzae"},
    "workspaceRoots": ["/w"],
    "workspaceInfo": {"rootPath": "/w", "hint": "w"},
    "userId": "unknown",
    "agent_id": "agent_1796319365422_agt5hi",
    "parent_agent_id": None,
    "hookName": "tool_call",
    "iteration": 1,
    "tool_call": {"id": "call_1", "name": "run_commands", "input": {"commands": ["ls"]}},
    "preToolUse": {"toolName": "run_commands", "parameters": {"commands": '["ls"]'}},
}
CC = {"session_id": "s", "cwd": "/w", "hook_event_name": "PreToolUse", "tool_name": "Bash",
      "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}  # fmt: skip
ENVELOPES: dict[str, dict[str, Any]] = {
    "cursor": CURSOR,
    "grok": GROK,
    "gemini": GEMINI,
    "codex": CODEX,
    "copilot": COPILOT,
    "qwen": QWEN,
    "opencode": OPENCODE,
    "cline": CLINE,
    "claude-code": CC,
}
SHELL_KEYS = {
    "cursor": ("tool_input", "command"),
    "grok": ("toolInput", "command"),
    "gemini": ("tool_input", "command"),
    "codex": ("tool_input", "command"),
    "copilot": ("toolArgs", "command"),
    "qwen": ("tool_input", "command"),
    "opencode": ("args", "command"),
    "cline": ("tool_call", "input", "commands"),
    "claude-code": ("tool_input", "command"),
}
# Qwen's envelope is CC's but for its tool names: only `--host qwen` (its registration) tells.
NAMED_ONLY = {"qwen"}


def with_command(host: str, command: str) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(json.dumps(ENVELOPES[host]))
    *outer, key = SHELL_KEYS[host]
    place = raw
    for step in outer:
        place = place[step]
    place[key] = [command] if host == "cline" else command
    return raw


def encode(value: dict[str, Any]) -> bytes:
    return json.dumps(value).encode()


@pytest.mark.parametrize("host", list(ENVELOPES))
def test_each_envelope_is_told_by_its_fields(host: str) -> None:
    named = host if host in NAMED_ONLY else None
    assert named or detect(ENVELOPES[host]) == host
    event = parse_event(encode(ENVELOPES[host]), named)
    assert (event.host, event.name, event.tool_name) == (host, "PreToolUse", "Bash")


@given(command=st.text(min_size=1))
def test_a_shell_call_keeps_its_command_on_every_host(command: str) -> None:
    for host in SHELL_KEYS:
        raw = with_command(host, command)
        event = parse_event(encode(raw), host if host in NAMED_ONLY else None)
        assert event.tool_name == "Bash" and event.tool_input["command"] == command, host
        assert json.loads(event.data)["tool_name"] == "Bash"  # what sub-hooks get: CC's event


def test_cursor_s_own_shell_event_is_a_bash_call() -> None:
    raw = {**CURSOR, "hook_event_name": "beforeShellExecution", "command": "rm -rf x"}
    del raw["tool_name"], raw["tool_input"]
    event = parse_event(encode(raw))
    assert (event.tool_name, event.tool_input, event.session_id) == (
        "Bash",
        {"command": "rm -rf x"},
        "c1",
    )


def test_relative_paths_are_made_absolute_against_the_cwd() -> None:
    raw = {**GROK, "toolName": "search_replace", "toolInput": {"file_path": "a/b.py"}}
    event = parse_event(encode(raw))
    assert (event.tool_name, event.tool_input["file_path"]) == ("Edit", "/w/a/b.py")


def test_mcp_tools_get_cc_s_names() -> None:
    gemini = {
        **GEMINI,
        "tool_name": "query",
        "mcp_context": {"server_name": "db", "tool_name": "q"},
    }
    assert parse_event(encode(gemini)).tool_name == "mcp__db__q"
    assert parse_event(encode({**GROK, "toolName": "linear__save_issue"})).tool_name == (
        "mcp__linear__save_issue"
    )


def test_a_one_file_patch_is_an_edit_of_that_file() -> None:
    patch = "*** Begin Patch\n*** Update File: src/x.py\n@@\n-a\n+b\n*** End Patch"
    raw = {**CODEX, "tool_name": "apply_patch", "tool_input": {"command": patch}}
    event = parse_event(encode(raw))
    assert (event.tool_name, event.tool_input["file_path"]) == ("Edit", "/w/src/x.py")
    two = patch.replace("*** End Patch", "*** Add File: y.py\n+c\n*** End Patch")
    assert patch_files(two) == ["src/x.py", "y.py"]
    raw["tool_input"] = {"command": two}
    assert parse_event(encode(raw)).tool_name == "apply_patch"


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({**GROK, "toolInputTruncated": True}, "truncated"),
        ({**GEMINI, "hook_event_name": "BeforeModel"}, "'BeforeModel' is not one"),
        ({**CURSOR, "hook_event_name": "beforeTabFileRead"}, "'beforeTabFileRead'"),
        ({"toolName": "bash", "toolInput": "{}", "cwd": "/w"}, "toolInput"),
    ],
)
def test_what_cannot_be_judged_is_refused_naming_what_was_seen(
    raw: dict[str, Any], needle: str
) -> None:
    with pytest.raises(EventError, match=needle):
        parse_event(encode(raw))


reasons = st.text(min_size=1).filter(str.strip)


@given(reason=reasons, event_name=st.sampled_from([None, "PreToolUse"]))
def test_every_deny_blocks_on_every_host(reason: str, event_name: str | None) -> None:
    """Exit 2 with the reason on stderr blocks on every host (its docs and source); the JSON
    carries the deny in the host's words, and never an allow."""
    for host in OTHERS:
        for result in (answer.deny(reason), answer.pre_tool_use(ask_of(reason))):
            out = in_dialect(host, result, event_name)
            assert out.exit_code == 2, host
            assert reason in out.stderr, host
            assert "allow" not in json.dumps(out.payload), host
            if host in ("gemini", "grok"):
                assert out.payload["decision"] == "deny" and reason in out.payload["reason"]


def ask_of(reason: str) -> Any:
    from bridge.pipeline import Ask

    return Ask(reason)


@given(reason=reasons)
def test_codex_never_gets_what_it_refuses(reason: str) -> None:
    """Codex makes an answer with these keys invalid, and an invalid answer does not block."""
    from bridge.pipeline import Deny

    result = answer.pre_tool_use(Deny(reason), system_messages=("m",), stop_reason="halt")
    out = in_dialect("codex", result, "PreToolUse")
    assert not {"continue", "stopReason", "suppressOutput"} & set(out.payload)
    assert out.payload["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out.exit_code == 2


def test_cursor_always_gets_json() -> None:
    assert in_dialect("cursor", answer.pre_tool_use(Allow()), "PreToolUse").stdout == b"{}\n"


def run(stdin: bytes, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    config = tmp_path / "ccbridge.yaml"
    config.write_text(
        json.dumps({"policies": {"guards": ["builtin:dangerous_shell", "builtin:protect_paths"]}})
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    return subprocess.run(
        [str(SCRIPT), "run", "--config", str(config), *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("host", OTHERS)
def test_rm_rf_root_is_denied_from_every_host_with_the_guards_on(host: str, tmp_path: Path) -> None:
    """Measured before the adapters: Cursor's and Gemini's `rm -rf /` got no decision, Grok's
    every call a deny for its envelope; Copilot's, Qwen Code's and Cline's got no decision
    (each was CC's or no host's event naming no `Bash` call)."""
    named = ("--host", host) if host in NAMED_ONLY else ()

    def envelope(command: str) -> bytes:
        # The working directory must exist: a call whose cwd is gone is denied for that.
        return encode(with_command(host, command)).replace(
            b'"/w"', json.dumps(str(tmp_path)).encode()
        )

    done = run(envelope("rm -rf /"), tmp_path, *named)
    assert done.returncode == 2, done.stdout
    audit = [
        json.loads(line) for line in (tmp_path / "state" / "audit.jsonl").read_text().splitlines()
    ]
    assert audit[-1]["host"] == host and audit[-1]["tool"] == "Bash"
    assert audit[-1]["final"]["decision"] == "deny"
    # A harmless command from the same host is not denied for its envelope.
    assert run(envelope("ls -l"), tmp_path, *named).returncode == 0


def test_an_explicit_host_is_the_dialect_of_the_answer(tmp_path: Path) -> None:
    raw = {**CC, "tool_input": {"command": "rm -rf /"}}
    done = run(encode(raw), tmp_path, "--host", "grok")
    assert done.returncode == 2
    assert b"grok" in done.stdout  # a CC envelope is no Grok event: refused, naming why


@pytest.mark.parametrize("args", [["--host", "windsurf"], ["--host"], ["--host="]])
def test_an_unknown_host_is_a_deny(args: list[str], tmp_path: Path) -> None:
    done = run(encode(CC), tmp_path, *args)
    assert done.returncode == 2 and b"deny" in done.stdout


KEYS = st.sampled_from(
    [
        *("hook_event_name", "hookEventName", "tool_name", "toolName", "tool_input", "toolInput"),
        *("conversation_id", "cursor_version", "workspace_roots", "turn_id", "cwd", "command"),
        *("file_path", "mcp_context", "toolInputTruncated", "session_id", "sessionId"),
    ]
)
NAMES = st.sampled_from(
    ["PreToolUse", "preToolUse", "pre_tool_use", "BeforeTool", "beforeShellExecution",
     "beforeMCPExecution", "stop", "AfterAgent", "BeforeModel", "Stop", ""]
)  # fmt: skip
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | NAMES,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(KEYS | st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip


@given(raw=st.dictionaries(KEYS, VALUES, max_size=8))
def test_any_envelope_is_judged_or_refused_with_a_reason(raw: dict[str, Any]) -> None:
    """Whatever mix of agents' fields arrives, parsing gives an event or an EventError that
    says why: never another exception (which would be ccbridge's own failure)."""
    try:
        event = parse_event(encode(raw))
    except EventError as error:
        assert str(error)
        return
    assert event.host in HOSTS and isinstance(event.raw, dict)
    assert json.loads(event.data)["hook_event_name"] == event.name


BEGIN, END = "*** Begin Patch\n", "*** End Patch\n"
ADD_SRC = "*** Add File: src/y.py\n+c\n"
TO_SETTINGS = "*** Add File: .claude/settings.json\n+{}\n"


@pytest.mark.parametrize(
    "body",
    [
        ADD_SRC + TO_SETTINGS,  # several files: the call kept its name and no guard judged it
        TO_SETTINGS + ADD_SRC,
        "*** Update File: src/y.py\n*** Move to: .claude/settings.json\n@@\n-a\n+b\n",
        "*** Delete File: src/y.py\n*** Delete File: .claude/settings.json\n",
        "  " + TO_SETTINGS,  # Codex's parser trims the marker lines
        ADD_SRC + "\t" + TO_SETTINGS,
    ],
)
def test_a_patch_reaching_a_protected_file_is_denied_however_many_files_it_touches(
    body: str, tmp_path: Path
) -> None:
    raw = {**CODEX, "cwd": str(tmp_path), "tool_name": "apply_patch"}
    done = run(encode({**raw, "tool_input": {"command": BEGIN + body + END}}), tmp_path)
    assert done.returncode == 2 and b"self-protection" in done.stderr, done
    benign = body.replace(".claude/settings.json", "src/z.py")
    done = run(encode({**raw, "tool_input": {"command": BEGIN + benign + END}}), tmp_path)
    assert done.returncode == 0, done


def test_a_patch_naming_no_file_is_denied(tmp_path: Path) -> None:
    raw = {**CODEX, "cwd": str(tmp_path), "tool_name": "apply_patch"}
    done = run(encode({**raw, "tool_input": {"command": "*** Begin Patch\n"}}), tmp_path)
    assert done.returncode == 2 and b"which files" in done.stderr, done


def test_an_agent_s_tool_name_becomes_claude_code_s() -> None:
    from bridge.wire.hosts import cc_tool_name

    tools = {"bash": "Bash"}
    assert cc_tool_name("bash", tools, "/") == "Bash"
    assert cc_tool_name("github/create_issue", tools, "/") == "mcp__github__create_issue"
    assert cc_tool_name("github_create_issue", tools, "_") == "mcp__github__create_issue"
    assert cc_tool_name("unknowntool", tools, "/") == "unknowntool"
