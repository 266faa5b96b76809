"""Reading one hook event from stdin (bridge.wire.event), in-process so mutation testing sees
every rule: what is refused and with which message, the size and depth caps at their edges, and
the fields a HookEvent hands on."""

from __future__ import annotations

import io
from typing import Any

import pytest

from bridge.wire.event import (
    MAX_EVENT_BYTES,
    MAX_JSON_DEPTH,
    EventError,
    HookEvent,
    deeper_than,
    parse_event,
    read_event,
)

PRE = b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}'


def refusal(data: bytes) -> str:
    with pytest.raises(EventError) as caught:
        parse_event(data)
    return str(caught.value)


def lists(depth: int) -> Any:
    """`depth` levels of nested lists: [[...[]...]]."""
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def dicts(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


# --- deeper_than: the nesting of JSON data against a cap, counted by hand -----------------------


@pytest.mark.parametrize("value", [None, 1, "text", 2.5, True])
def test_a_scalar_nests_no_level(value: Any) -> None:
    assert not deeper_than(value, 0)


@pytest.mark.parametrize("make", [lists, dicts])
@pytest.mark.parametrize("depth", [2, 3, 7])
def test_nesting_is_compared_with_the_limit_exactly(make: Any, depth: int) -> None:
    value = make(depth)
    assert deeper_than(value, depth - 1)
    assert not deeper_than(value, depth)
    assert not deeper_than(value, depth + 1)


def test_the_deep_branch_is_found_after_shallow_siblings() -> None:
    # Depth 4, reached only through the last item of the last item.
    value = [1, [], {"a": 1}, [2, [], {"b": [3]}]]
    assert deeper_than(value, 4) is False
    assert deeper_than(value, 3) is True
    # The values of a dict are walked, not its keys.
    assert deeper_than({"x": 1, "y": [[[]]]}, 3) is True
    assert deeper_than({"x": 1, "y": [[[]]]}, 4) is False


def test_many_shallow_siblings_are_not_deep() -> None:
    assert not deeper_than([[] for _ in range(500)], 2)
    assert deeper_than([[] for _ in range(500)] + [[[]]], 2)


# --- read_event: the size cap --------------------------------------------------------------------


def padded(size: int) -> bytes:
    """A valid PreToolUse event of exactly `size` bytes (spaces after the object)."""
    assert size >= len(PRE)
    return PRE + b" " * (size - len(PRE))


def test_an_event_of_exactly_the_cap_is_read() -> None:
    event = read_event(io.BytesIO(padded(200)), limit=200)
    assert event.tool_name == "Bash" and event.data == padded(200)


def test_an_event_one_byte_over_the_cap_is_refused_without_reading_on() -> None:
    stream = io.BytesIO(padded(201) + b" " * 1000)
    with pytest.raises(EventError) as caught:
        read_event(stream, limit=200)
    assert str(caught.value) == "hook event on stdin is larger than the 200-byte cap"
    assert stream.tell() == 201  # the cap plus the one byte that proves it is exceeded


def test_the_default_cap_is_sixteen_mebibytes() -> None:
    assert MAX_EVENT_BYTES == 16 * 1024 * 1024
    assert read_event(io.BytesIO(padded(MAX_EVENT_BYTES))).name == "PreToolUse"
    with pytest.raises(EventError, match=f"larger than the {MAX_EVENT_BYTES}-byte cap"):
        read_event(io.BytesIO(padded(MAX_EVENT_BYTES + 1)))


# --- parse_event: each refusal and its message ---------------------------------------------


@pytest.mark.parametrize("data", [b"", b"  \n\t "])
def test_empty_stdin(data: bytes) -> None:
    assert refusal(data) == "stdin was empty: expected one hook event as a JSON object"


@pytest.mark.parametrize(
    ("data", "where"),
    [(b'{"a": }', "line 1 column 7"), (b'{\n  "a": x}', "line 2 column 8")],
)
def test_invalid_json_names_where(data: bytes, where: str) -> None:
    assert refusal(data) == f"stdin is not valid JSON (error at {where})"


@pytest.mark.parametrize(("data", "kind"), [(b"[]", "list"), (b'"x"', "str"), (b"3", "int")])
def test_not_an_object(data: bytes, kind: str) -> None:
    assert refusal(data) == f"hook event must be a JSON object, got {kind}"


@pytest.mark.parametrize("open_close", [(b"[", b"]"), (b'{"k":', b"}")])
def test_the_depth_cap_counts_the_event_object_itself(open_close: tuple[bytes, bytes]) -> None:
    """The event object is level 1: 199 containers inside it make 200 levels (read), 200 make
    201 (refused), whether they are arrays or objects."""
    opening, closing = open_close

    def event(inner: int) -> bytes:
        return b'{"hook_event_name":"Stop","x":' + opening * inner + b"1" + closing * inner + b"}"

    assert parse_event(event(MAX_JSON_DEPTH - 1)).name == "Stop"
    assert refusal(event(MAX_JSON_DEPTH)) == "hook event is nested deeper than the 200-level cap"


def test_many_brackets_that_do_not_nest_are_read() -> None:
    data = b'{"hook_event_name":"Stop","x":[' + b",".join([b"[]", b"{}"] * 300) + b"]}"
    assert parse_event(data).raw["x"][0] == []


@pytest.mark.parametrize(
    "data",
    [
        b"{}",
        b'{"hook_event_name":""}',
        b'{"hook_event_name":3}',
        b'{"hook_event_name":null}',
    ],
)
def test_the_event_needs_a_name(data: bytes) -> None:
    assert refusal(data) == "hook event has no hook_event_name string"


@pytest.mark.parametrize(
    "name", ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"]
)
def test_a_tool_event_needs_a_tool_name_and_input(name: str) -> None:
    head = b'{"hook_event_name":"' + name.encode() + b'"'
    for tool in (b"", b',"tool_name":""', b',"tool_name":["Bash"]'):
        data = head + tool + b',"tool_input":{}}'
        assert refusal(data) == f"{name} event has no tool_name string"
    for tool_input in (b"", b',"tool_input":null', b',"tool_input":"ls"', b',"tool_input":[]'):
        data = head + b',"tool_name":"Bash"' + tool_input + b"}"
        assert refusal(data) == f"{name} event has no tool_input object"
    event = parse_event(head + b',"tool_name":"Bash","tool_input":{"command":"ls"}}')
    assert (event.tool_name, dict(event.tool_input)) == ("Bash", {"command": "ls"})


def test_other_events_need_no_tool() -> None:
    for name in ("Stop", "UserPromptSubmit", "SessionStart", "Setup"):
        assert parse_event(b'{"hook_event_name":"' + name.encode() + b'"}').name == name


@pytest.mark.parametrize("key", ["session_id", "cwd", "tool_use_id", "agent_id"])
def test_identity_fields_must_be_strings_when_present(key: str) -> None:
    head = b'{"hook_event_name":"Stop","' + key.encode() + b'":'
    for wrong in (b"1", b"[]", b"{}", b"true"):
        assert refusal(head + wrong + b"}") == f"hook event field {key} must be a string"
    assert parse_event(head + b"null}").raw[key] is None
    assert parse_event(head + b'"x"}').raw[key] == "x"


def test_the_event_keeps_its_name_data_and_every_field() -> None:
    data = PRE[:-1] + b',"extra":{"n":[1,2]},"session_id":"s1"}'
    event = parse_event(data)
    assert event.name == "PreToolUse"
    assert event.data is data
    assert event.raw == {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "extra": {"n": [1, 2]},
        "session_id": "s1",
    }


# --- HookEvent's fields --------------------------------------------------------------------------


def hook_event(name: str, **raw: Any) -> HookEvent:
    return HookEvent(name=name, raw={"hook_event_name": name, **raw}, data=b"")


def test_text_fields_are_strings_or_empty() -> None:
    full = hook_event(
        "PreToolUse", session_id="s", cwd="/w", tool_name="Bash", tool_use_id="t", tool_input={}
    )
    assert (full.session_id, full.cwd, full.tool_name, full.tool_use_id) == ("s", "/w", "Bash", "t")
    empty = hook_event("Stop")
    assert (empty.session_id, empty.cwd, empty.tool_name, empty.tool_use_id) == ("", "", "", "")
    odd = hook_event("Stop", session_id=1, cwd=None, tool_name=["x"], tool_use_id=2.5)
    assert (odd.session_id, odd.cwd, odd.tool_name, odd.tool_use_id) == ("", "", "", "")


def test_tool_input_is_a_mapping_or_empty() -> None:
    assert hook_event("PreToolUse", tool_input={"a": 1}).tool_input == {"a": 1}
    assert hook_event("PreToolUse", tool_input=["a"]).tool_input == {}
    assert hook_event("PreToolUse").tool_input == {}


def test_agent_id_is_a_non_empty_string_or_none() -> None:
    assert hook_event("Stop", agent_id="a1").agent_id == "a1"
    assert hook_event("Stop", agent_id="").agent_id is None
    assert hook_event("Stop", agent_id=7).agent_id is None
    assert hook_event("Stop").agent_id is None


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("PreToolUse", "tool_name"),
        ("PermissionRequest", "tool_name"),
        ("SessionStart", "source"),
        ("SessionEnd", "reason"),
        ("SubagentStop", "agent_type"),
        ("PreCompact", "trigger"),
        ("Notification", "notification_type"),
        ("Setup", "tool_name"),  # an event ccbridge does not run hooks for: the tool name
    ],
)
def test_the_subject_is_the_field_cc_matches(name: str, field: str) -> None:
    others = {key: "other" for key in ("tool_name", "source", "reason", "agent_type", "trigger")}
    assert hook_event(name, **{**others, field: "wanted"}).subject == "wanted"
    assert hook_event(name).subject == ""
    assert hook_event(name, **{field: 5}).subject == ""


@pytest.mark.parametrize("name", ["UserPromptSubmit", "Stop"])
def test_events_without_matchers_have_no_subject(name: str) -> None:
    assert hook_event(name, tool_name="Bash").subject is None
