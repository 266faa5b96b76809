"""Point 1: whatever arrives on stdin, `ccbridge run` answers 0 or 2, never with a traceback;
anything it cannot judge as a PreToolUse event is a deny with a reason, and fields it does not
know change nothing."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bridge.wire.event import MAX_DEPTH, TOOL_EVENTS, deeper_than

from .support import Outcome, Sandbox, encode, examples, matching, pre_tool_use

FORBIDDEN = "FORBIDDEN"
KNOWN = (
    "hook_event_name",
    "tool_name",
    "tool_input",
    "session_id",
    "cwd",
    "tool_use_id",
    "agent_id",
)

# Mostly the gate itself; the others must also answer 0 or 2 without a traceback.
EVENT_NAMES = ["PreToolUse"] * 6 + [
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "UserPromptSubmit",
    "Stop",
    "SomeFutureEvent",
]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
commands = st.text(max_size=60) | st.sampled_from([FORBIDDEN, f"rm -rf / # {FORBIDDEN}", "ls"])
extra_fields = st.dictionaries(
    st.text(min_size=1, max_size=12).filter(lambda key: key not in KNOWN),
    json_values | st.text(max_size=20),
    max_size=6,
)


def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@st.composite
def valid_events(draw: st.DrawFn) -> dict[str, Any]:
    event = pre_tool_use(draw(commands), tool=draw(st.sampled_from(["Bash", "Write"])))
    event["hook_event_name"] = draw(st.sampled_from(EVENT_NAMES))
    if event["hook_event_name"] == "PostToolUse":
        event["tool_response"] = draw(json_values)
    if draw(st.booleans()):
        event["permission_mode"] = draw(
            st.sampled_from(
                ["default", "plan", "acceptEdits", "bypassPermissions", "yolo", "", "AUTO"]
            )
        )
    return event


@st.composite
def wrong_types(draw: st.DrawFn) -> bytes:
    """A valid event with one field, known or not, replaced by any JSON value, or removed."""
    event = draw(valid_events())
    field = draw(st.sampled_from([*KNOWN, "permission_mode", "transcript_path", "effort"]))
    if draw(st.booleans()):
        event.pop(field, None)
    else:
        event[field] = draw(json_values)
    return encode(event)


@st.composite
def truncated(draw: st.DrawFn) -> bytes:
    data = encode(draw(valid_events()))
    return data[: draw(st.integers(0, len(data) - 1))]


@st.composite
def deeply_nested(draw: st.DrawFn) -> bytes:
    event = draw(valid_events())
    depth = draw(
        st.integers(1, 2 * MAX_DEPTH)
        | st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3)
        | st.integers(1000, 1100)
    )
    where = draw(st.sampled_from(["tool_input", "extra"]))
    if where == "tool_input":
        event["tool_input"]["x"] = nested(depth)
    else:
        event["extra"] = nested(depth)
    return encode(event)


@st.composite
def huge_strings(draw: st.DrawFn) -> bytes:
    event = draw(valid_events())
    size = draw(st.integers(10_000, 2_000_000))
    event["tool_input"]["content" if draw(st.booleans()) else "blob"] = "x" * size
    return encode(event)


any_stdin = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(str.encode),
    json_values.map(encode),
    truncated(),
    wrong_types(),
    deeply_nested(),
    huge_strings(),
    valid_events().map(encode),
    st.builds(lambda event, extra: encode({**event, **extra}), valid_events(), extra_fields),
)


def judgeable(data: bytes) -> dict[str, Any] | None:
    """The PreToolUse event in `data` if ccbridge must judge it, else None (it must deny).

    Written from the protocol, not from ccbridge's code: one JSON object, a hook_event_name
    string, tool_name and tool_input for tool events, the id-like fields strings if present,
    nesting within the documented cap, and a cwd, if any, that is a directory a process can be
    started in.
    """
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(raw, dict) or deeper_than(raw, MAX_DEPTH):
        return None
    name = raw.get("hook_event_name")
    if not isinstance(name, str) or not name:
        return None
    if name in TOOL_EVENTS and not (
        isinstance(raw.get("tool_name"), str)
        and raw["tool_name"]
        and isinstance(raw.get("tool_input"), dict)
    ):
        return None
    for key in ("session_id", "cwd", "tool_use_id", "agent_id"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            return None
    cwd = raw.get("cwd")
    if cwd and not os.path.isdir(cwd):
        return None  # no sub-hook can be started there (a NUL byte, gone): failing closed is right
    return raw


def config(sandbox: Sandbox) -> Path:
    """Every tool goes through one sub-hook that denies only what names FORBIDDEN."""
    rule = sandbox.script(
        "forbid.sh", f"grep -q {FORBIDDEN} && {{ echo 'forbidden word' >&2; exit 2; }}\nexit 0"
    )
    return sandbox.config(matching([{"type": "command", "command": str(rule)}], matcher="*"))


def check(outcome: Outcome, data: bytes) -> None:
    assert outcome.exit_code in (0, 2), outcome
    assert "Traceback" not in outcome.stderr
    assert "could not write the audit record" not in outcome.stderr  # every decision audited
    raw = judgeable(data)
    if raw is None:
        assert outcome.exit_code == 2
        assert outcome.decision == "deny"
        assert outcome.reason, outcome
        assert "internal error" not in outcome.reason  # a clear reason, not our own crash
        return
    if raw["hook_event_name"] != "PreToolUse":
        return
    forbidden = FORBIDDEN.encode() in data
    assert outcome.decision == ("deny" if forbidden else "none"), (outcome, data[:300])
    assert outcome.exit_code == (2 if forbidden else 0)
    if forbidden:
        assert "forbidden word" in outcome.reason


@examples(1.0)
@given(data=any_stdin)
def test_any_stdin_in_process(sandbox: Sandbox, data: bytes) -> None:
    before = len(sandbox.audit())
    check(sandbox.run(config(sandbox), data), data)
    assert len(sandbox.audit()) == before + 1


@examples(0.15)
@given(data=any_stdin)
def test_any_stdin_through_the_executable(sandbox: Sandbox, data: bytes) -> None:
    check(sandbox.cli(config(sandbox), data), data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"null",
        b"[]",
        b'"PreToolUse"',
        b"{",
        b"\xff\xfe\x00",
        b'{"hook_event_name":"PreToolUse"}',
        b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}',
        b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"cwd":7}',
        encode(pre_tool_use(extra=nested(MAX_DEPTH + 1))),
        encode(pre_tool_use(cwd="/tmp/\0")),
    ],
)
def test_known_bad_stdin_through_the_executable(sandbox: Sandbox, data: bytes) -> None:
    outcome = sandbox.cli(config(sandbox), data)
    assert (outcome.exit_code, outcome.decision) == (2, "deny")
    assert outcome.reason
    assert "internal error" not in outcome.reason
    assert "Traceback" not in outcome.stderr


@examples(0.5)
@given(event=valid_events(), extra=extra_fields)
def test_unknown_fields_change_nothing(
    sandbox: Sandbox, event: dict[str, Any], extra: dict[str, Any]
) -> None:
    assume(FORBIDDEN not in json.dumps(extra))
    plain = sandbox.run(config(sandbox), encode(event))
    extended = sandbox.run(config(sandbox), encode({**event, **extra}))
    assert (extended.exit_code, extended.stdout) == (plain.exit_code, plain.stdout)


def test_a_deep_hook_answer_is_a_failure_not_a_lost_audit(sandbox: Sandbox) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {"command": nested(MAX_DEPTH)},
        }
    }
    (sandbox.hooks / "deep.json").write_text(json.dumps(answer))
    hook = sandbox.script("deep.sh", f"cat {sandbox.hooks / 'deep.json'}")
    outcome = sandbox.run(
        sandbox.config(matching([{"type": "command", "command": str(hook)}])),
        encode(pre_tool_use()),
    )
    assert outcome.decision == "deny"
    assert f"nested deeper than the {MAX_DEPTH}-level cap" in outcome.reason
    assert "could not write the audit record" not in outcome.stderr


def test_a_closed_stdin_is_a_deny_not_a_traceback(sandbox: Sandbox) -> None:
    done = subprocess.run(
        sandbox.command(config(sandbox)),
        stdin=None,
        capture_output=True,
        env=sandbox.env,
        preexec_fn=lambda: os.close(0),
        timeout=120,
        check=False,
    )
    assert b"Traceback" not in done.stderr
    assert done.returncode == 2
    assert b'"permissionDecision":"deny"' in done.stdout


def test_a_host_that_stops_reading_still_gets_the_exit_code(sandbox: Sandbox) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the answer's write fails with EPIPE
    try:
        done = subprocess.run(
            sandbox.command(config(sandbox)),
            input=b"not json",
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=sandbox.env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert b"Traceback" not in done.stderr
    assert done.returncode == 2
    assert sandbox.audit()[-1]["final"]["decision"] == "deny"
