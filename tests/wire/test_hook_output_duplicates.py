"""A sub-hook's answer that names a key twice with different values is ambiguous (Claude Code
reads the last value, another reader the first): every reading is judged and the strictest
stands. The law, for any object with keys given twice at any level: ccbridge's verdict is at
least as strict as the verdict of each reading (one value taken for each key)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.subhooks.verdict import Verdict
from bridge.wire import duplicate_keys
from bridge.wire.hook_output import MAX_READINGS, read_json, strictness


class Pairs(list):  # type: ignore[type-arg]
    """A JSON object as written, keys in order and possibly repeated."""


def encode(value: Any) -> str:
    if isinstance(value, Pairs):
        return "{" + ",".join(f"{json.dumps(k)}:{encode(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(encode(item) for item in value) + "]"
    return json.dumps(value)


def readings(value: Any) -> list[Any]:
    """Every plain value `value` can be read as: one of the values of each key (the oracle)."""
    if isinstance(value, Pairs):
        values: dict[str, list[Any]] = {}
        for key, item in value:
            values.setdefault(key, []).extend(readings(item))
        keys = list(values)
        return [
            dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values.values())
        ]
    if isinstance(value, list):
        return [list(combo) for combo in itertools.product(*map(readings, value))]
    return [value]


def verdict_of(event_name: str, text: str) -> Verdict:
    try:
        return read_json(event_name, text.encode())
    except ValueError as error:
        return Verdict("failure", reason=str(error))


EVENTS = ["PreToolUse", "PermissionRequest", "Stop", "PostToolUse", "UserPromptSubmit"]
texts = st.sampled_from(["x", "why", ""])


def pairs(entries: st.SearchStrategy[tuple[str, Any]]) -> st.SearchStrategy[Pairs]:
    return st.lists(entries, max_size=4).map(Pairs)


def answers(event_name: str) -> st.SearchStrategy[Pairs]:
    behaviour = pairs(
        st.tuples(st.just("behavior"), st.sampled_from(["allow", "deny", "ask"]))
        | st.tuples(st.just("message"), texts)
    )
    specific = pairs(
        st.tuples(st.just("hookEventName"), st.sampled_from([event_name, event_name, "Stop"]))
        | st.tuples(
            st.just("permissionDecision"), st.sampled_from(["allow", "deny", "ask", "defer"])
        )
        | st.tuples(st.just("permissionDecisionReason"), texts)
        | st.tuples(st.just("additionalContext"), texts)
        | st.tuples(st.just("decision"), behaviour)
        | st.tuples(st.just("updatedInput"), pairs(st.tuples(st.just("command"), texts)))
    )
    return pairs(
        st.tuples(st.just("hookSpecificOutput"), specific)
        | st.tuples(st.just("decision"), st.sampled_from(["approve", "block"]))
        | st.tuples(st.just("continue"), st.booleans())
        | st.tuples(st.sampled_from(["reason", "stopReason", "systemMessage"]), texts)
    )


@given(data=st.data(), event_name=st.sampled_from(EVENTS))
def test_the_verdict_is_at_least_as_strict_as_every_reading(
    data: st.DataObject, event_name: str
) -> None:
    answer = data.draw(answers(event_name))
    verdict = verdict_of(event_name, encode(answer))
    each = [verdict_of(event_name, json.dumps(reading)) for reading in readings(answer)]
    assert strictness(verdict) >= max(map(strictness, each)), (answer, verdict, each)
    # unambiguous, or every reading the same: that one verdict
    if all(other == each[0] for other in each):
        assert verdict == each[0]


def test_a_deny_then_an_allow_of_the_same_key_is_a_deny_that_says_so() -> None:
    text = (
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
        '"permissionDecisionReason":"x","permissionDecision":"allow"}}'
    )
    assert json.loads(text)["hookSpecificOutput"]["permissionDecision"] == "allow"  # the last
    verdict = read_json("PreToolUse", text.encode())
    assert verdict.kind == "deny"
    assert verdict.reason == (
        "ambiguous output (keys given twice with different values: permissionDecision), "
        "read as the strictest reading, deny: x"
    )


@pytest.mark.parametrize(
    ("event_name", "text", "kind"),
    [
        ("Stop", '{"decision":"block","decision":"approve","reason":"r"}', "block"),
        ("PreToolUse", '{"continue":true,"continue":false}', "deny"),
        (
            "PermissionRequest",
            '{"hookSpecificOutput":{"hookEventName":"PermissionRequest",'
            '"decision":{"behavior":"deny","behavior":"allow"}}}',
            "deny",
        ),
        # A whole object given twice, each looking harmless but one hiding a key given twice.
        (
            "PreToolUse",
            '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
            '"permissionDecision":"allow"},"hookSpecificOutput":{"hookEventName":"PreToolUse",'
            '"permissionDecision":"allow"}}',
            "deny",
        ),
    ],
)
def test_the_strictest_reading_at_any_level(event_name: str, text: str, kind: str) -> None:
    verdict = read_json(event_name, text.encode())
    assert verdict.kind == kind
    assert verdict.reason.startswith("ambiguous output")


def test_readings_that_rewrite_the_input_differently_are_refused() -> None:
    text = (
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":'
        '{"command":"ls","command":"rm -rf /"}}}'
    )
    with pytest.raises(ValueError, match="change the tool's input differently"):
        read_json("PreToolUse", text.encode())


def test_a_key_repeated_with_the_same_value_is_not_ambiguous() -> None:
    text = b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","hookEventName":"PreToolUse"}}'
    assert read_json("PreToolUse", text) == Verdict("none")
    value, ambiguous = duplicate_keys.loads_keeping_duplicates(text)
    assert type(value["hookSpecificOutput"]) is dict and not ambiguous


def test_more_readings_than_the_cap_is_a_deny() -> None:
    keys = ",".join(f'"k{n}":1,"k{n}":2' for n in range(7))  # 2**7 readings
    verdict = read_json("PreToolUse", ("{" + keys + "}").encode())
    assert MAX_READINGS < 2**7
    assert verdict.kind == "deny" and "more than 64 readings" in verdict.reason
