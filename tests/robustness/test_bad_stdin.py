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

from tests.support.sandbox import Outcome, Sandbox, encode, examples, matching, pre_tool_use

FORBIDDEN = "FORBIDDEN"
# ccbridge's documented nesting cap (docs/guarantees.md, section 6; the event object is level 1),
# written here, not imported, so that a change to the code's cap is caught.
NESTING_CAP = 200
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
        st.integers(1, 2 * NESTING_CAP)
        | st.integers(NESTING_CAP - 3, NESTING_CAP + 3)
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


def nesting(value: Any) -> int:
    """Levels of nested objects and arrays; the event object itself is level 1 (no recursion:
    hypothesis sends 1100 levels)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, level + 1) for child in children)
    return deepest


def judgeable(data: bytes) -> dict[str, Any] | None:
    """The event in `data`, or None when ccbridge must deny it whatever its kind.

    Written from the protocol (cc-hooks-protocol.md, section 2) and ccbridge's documented caps,
    not from ccbridge's code: stdin holds one JSON object, nested within the cap, whose
    hook_event_name is a string. Without those ccbridge cannot even tell which event it has, so
    the gate's rule applies: deny. Whether a *known* event is well-formed is up to the event
    (see `pre_tool_use_is_judgeable`); for the other events the protocol asks nothing more of
    ccbridge than an exit code of 0 or 2 without a traceback.
    """
    try:
        raw = orjson.loads(data)  # a strict JSON parser, not ccbridge's reader
    except orjson.JSONDecodeError:
        return None
    if not isinstance(raw, dict) or nesting(raw) > NESTING_CAP:
        return None
    name = raw.get("hook_event_name")
    return raw if isinstance(name, str) and name else None


def pre_tool_use_is_judgeable(raw: dict[str, Any]) -> bool:
    """A PreToolUse event ccbridge can judge: a tool_name string and a tool_input object
    (section 2), the id-like common fields strings when present, and a cwd, if any, that a
    sub-hook can be started in (every PreToolUse runs one with this test's config). Anything
    else is a tool call nobody judged: a deny."""
    if not (isinstance(raw.get("tool_name"), str) and raw["tool_name"]):
        return False
    if not isinstance(raw.get("tool_input"), dict):
        return False
    for key in ("session_id", "cwd", "tool_use_id", "agent_id"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            return False
    cwd = raw.get("cwd")
    return not cwd or os.path.isdir(cwd)  # a NUL byte, or gone: no process starts there


def test_the_oracle_asks_for_a_deny_only_where_the_protocol_does() -> None:
    """The oracle itself: a deny for what cannot be judged; for other events with a cwd no
    process starts in (a stored counterexample of the old oracle), no claim."""
    for name in ("UserPromptSubmit", "Stop", "PostToolUse", "SomeFutureEvent"):
        raw = judgeable(encode({**pre_tool_use(cwd="/no/such/dir"), "hook_event_name": name}))
        assert raw is not None and raw["hook_event_name"] == name
    assert not pre_tool_use_is_judgeable(pre_tool_use(cwd="/no/such/dir"))
    assert pre_tool_use_is_judgeable(pre_tool_use())
    assert judgeable(encode(pre_tool_use(extra=nested(NESTING_CAP - 1)))) is not None  # 200
    assert judgeable(encode(pre_tool_use(extra=nested(NESTING_CAP)))) is None  # 201
    for bad in (b"[]", b"{", b'{"hook_event_name": 1}', b'{"hook_event_name": ""}'):
        assert judgeable(bad) is None


def config(sandbox: Sandbox) -> Path:
    """Every tool goes through one sub-hook that denies only what names FORBIDDEN."""
    rule = sandbox.script(
        "forbid.sh", f"grep -q {FORBIDDEN} && {{ echo 'forbidden word' >&2; exit 2; }}\nexit 0"
    )
    return sandbox.write_config(matching([{"type": "command", "command": str(rule)}], matcher="*"))


def check(outcome: Outcome, data: bytes) -> None:
    assert outcome.exit_code in (0, 2), outcome
    assert "Traceback" not in outcome.stderr
    assert "could not write the audit record" not in outcome.stderr  # every decision audited
    raw = judgeable(data)
    if raw is not None and raw["hook_event_name"] != "PreToolUse":
        return
    if raw is None or not pre_tool_use_is_judgeable(raw):
        assert outcome.exit_code == 2
        assert outcome.decision == "deny"
        assert outcome.reason, outcome
        assert "internal error" not in outcome.reason  # a clear reason, not our own crash
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
    check(sandbox.call(config(sandbox), data), data)
    assert len(sandbox.audit()) == before + 1


@examples(0.15)
@given(data=any_stdin)
def test_any_stdin_through_the_executable(sandbox: Sandbox, data: bytes) -> None:
    check(sandbox.call_executable(config(sandbox), data), data)


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
        encode(pre_tool_use(extra=nested(NESTING_CAP + 1))),
        encode(pre_tool_use(cwd="/tmp/\0")),
    ],
)
def test_known_bad_stdin_through_the_executable(sandbox: Sandbox, data: bytes) -> None:
    outcome = sandbox.call_executable(config(sandbox), data)
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
    plain = sandbox.call(config(sandbox), encode(event))
    extended = sandbox.call(config(sandbox), encode({**event, **extra}))
    assert (extended.exit_code, extended.stdout) == (plain.exit_code, plain.stdout)


def test_a_deep_hook_answer_is_a_failure_not_a_lost_audit(sandbox: Sandbox) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {"command": nested(NESTING_CAP)},
        }
    }
    (sandbox.hooks / "deep.json").write_text(json.dumps(answer))
    hook = sandbox.script("deep.sh", f"cat {sandbox.hooks / 'deep.json'}")
    outcome = sandbox.call(
        sandbox.write_config(matching([{"type": "command", "command": str(hook)}])),
        encode(pre_tool_use()),
    )
    assert outcome.decision == "deny"
    assert f"nested deeper than the {NESTING_CAP}-level cap" in outcome.reason
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
