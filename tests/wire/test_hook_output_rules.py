"""Claude Code's rules for reading a sub-hook's answer (bridge.wire.hook_output), each rule and
each message exactly, in-process so mutation testing sees them: the PermissionRequest decision
object, `continue: false` per event, the stderr tail, plain-text context, and the refusals."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from bridge.subhooks.verdict import HookRun, Verdict
from bridge.wire.hook_output import read_json, read_run


def run(stdout: Any = b"", exit_code: int = 0, stderr: bytes = b"") -> HookRun:
    out = stdout if isinstance(stdout, bytes) else orjson.dumps(stdout)
    return HookRun(exit_code=exit_code, stdout=out, stderr=stderr)


def refusal(event_name: str, payload: Any) -> str:
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    with pytest.raises(ValueError) as caught:
        read_json(event_name, data)
    return str(caught.value)


def specific(event_name: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event_name, **fields}}


# --- exit codes and plain output -----------------------------------------------------------------


def test_stderr_is_read_as_utf8_with_bad_bytes_replaced() -> None:
    verdict = read_run("PreToolUse", run(exit_code=2, stderr=b"  caf\xc3\xa9 \xff!\n"))
    assert (verdict.kind, verdict.reason) == ("deny", "caf\u00e9 \ufffd!")


def test_a_long_stderr_keeps_its_last_2000_characters() -> None:
    exact = "a" + "b" * 1999
    assert read_run("Stop", run(exit_code=2, stderr=exact.encode())).reason == exact
    longer = "a" * 10 + "b" * 1990 + "c" * 10
    assert len(longer) == 2010
    tail = "b" * 1990 + "c" * 10
    assert read_run("Stop", run(exit_code=2, stderr=longer.encode())).reason == "\u2026" + tail


def test_exit_2_reads_a_json_reason_only_when_there_is_one() -> None:
    # Malformed JSON on stdout: stderr is the reason.
    assert read_run("PreToolUse", run(b"{oops", 2, b"from stderr")) == Verdict(
        "deny", reason="from stderr"
    )
    # Valid JSON without a reason: stderr still is.
    assert read_run("PreToolUse", run({"systemMessage": "hi"}, 2, b"from stderr")) == Verdict(
        "deny", reason="from stderr"
    )
    # Exit 2 on any other event blocks.
    assert read_run("Stop", run({"decision": "block", "reason": "json"}, 2, b"e")) == Verdict(
        "block", reason="json"
    )


def test_another_exit_code_is_a_failure_naming_it() -> None:
    assert read_run("PreToolUse", run(exit_code=1)) == Verdict(
        "failure", reason="exited with code 1"
    )
    assert read_run("PreToolUse", run(b"out only", 3)) == Verdict(
        "failure", reason="exited with code 3: out only"
    )
    assert read_run("PreToolUse", run(b"out", 3, b" err ")) == Verdict(
        "failure", reason="exited with code 3: err"
    )


@pytest.mark.parametrize("event_name", ["UserPromptSubmit", "SessionStart", "PreCompact"])
def test_plain_stdout_is_context_where_cc_takes_it(event_name: str) -> None:
    assert read_run(event_name, run(b" remember this \n")) == Verdict(
        "none", context="remember this"
    )


@pytest.mark.parametrize("event_name", ["PreToolUse", "PostToolUse", "Stop", "Notification"])
def test_plain_stdout_is_ignored_elsewhere(event_name: str) -> None:
    assert read_run(event_name, run(b"remember this")) == Verdict("none")


# --- read_json: refusals --------------------------------------------------------------------------


def test_refusal_messages() -> None:
    assert refusal("PreToolUse", b"[1]") == "JSON output is not an object"
    assert refusal("PreToolUse", {"hookSpecificOutput": []}) == (
        "hookSpecificOutput must be an object"
    )
    assert refusal("PreToolUse", specific("PostToolUse")) == (
        "hookSpecificOutput.hookEventName is 'PostToolUse', expected 'PreToolUse'"
    )
    assert refusal("PreToolUse", {"continue": 1}) == "continue must be a boolean"
    assert refusal("PreToolUse", specific("PreToolUse", updatedInput="x")) == (
        "updatedInput must be an object"
    )
    assert refusal("PreToolUse", {"systemMessage": 3}) == "systemMessage must be a string, got int"
    assert refusal("PreToolUse", {"reason": ["x"]}) == "reason must be a string, got list"


def test_output_nested_past_the_cap_is_refused() -> None:
    def payload(levels: int) -> bytes:  # the object itself is level 1
        return b'{"x":' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"

    assert read_json("Stop", payload(200)) == Verdict("none")
    assert refusal("Stop", payload(201)) == "JSON output is nested deeper than the 200-level cap"


# --- continue: false ------------------------------------------------------------------------------


def test_continue_false_stops_with_its_reason_or_a_default() -> None:
    assert read_json("PreToolUse", orjson.dumps({"continue": False})) == Verdict(
        "deny", reason="a hook asked Claude to stop", stop_reason="a hook asked Claude to stop"
    )
    assert read_json("PostToolUse", orjson.dumps({"continue": False, "stopReason": "s"})) == (
        Verdict("block", reason="s", stop_reason="s")
    )
    assert read_json("PostToolUse", orjson.dumps({"continue": True})) == Verdict("none")


@pytest.mark.parametrize("event_name", ["Stop", "SubagentStop"])
def test_continue_false_is_no_block_where_a_block_means_keep_going(event_name: str) -> None:
    verdict = read_json(event_name, orjson.dumps({"continue": False, "stopReason": "done"}))
    assert verdict == Verdict("none", stop_reason="done")


def test_continue_false_keeps_a_denial_or_block_and_its_reason() -> None:
    denied = specific("PreToolUse", permissionDecision="deny", permissionDecisionReason="no")
    verdict = read_json("PreToolUse", orjson.dumps({**denied, "continue": False}))
    assert (verdict.kind, verdict.reason, verdict.stop_reason) == (
        "deny",
        "no",
        "a hook asked Claude to stop",
    )
    blocked = {"decision": "block", "reason": "bad", "continue": False, "stopReason": "s"}
    verdict = read_json("PostToolUse", orjson.dumps(blocked))
    assert (verdict.kind, verdict.reason, verdict.stop_reason) == ("block", "bad", "s")


# --- decisions per event --------------------------------------------------------------------------


def test_a_legacy_block_elsewhere_has_a_default_reason() -> None:
    assert read_json("UserPromptSubmit", orjson.dumps({"decision": "block"})) == Verdict(
        "block", reason="blocked by a hook"
    )
    assert read_json("UserPromptSubmit", orjson.dumps({"decision": "approve"})) == Verdict("none")
    assert read_json("PostToolUse", orjson.dumps({})) == Verdict("none")


@pytest.mark.parametrize("behavior", ["allow", "deny"])
def test_a_permission_request_decision_object(behavior: Any) -> None:
    decision = {"behavior": behavior, "message": "m", "updatedInput": {"command": "safe"}}
    verdict = read_json(
        "PermissionRequest", orjson.dumps(specific("PermissionRequest", decision=decision))
    )
    assert verdict == Verdict(behavior, reason="m", updated_input={"command": "safe"})


def test_a_permission_request_decision_without_message_or_input() -> None:
    payload = specific("PermissionRequest", decision={"behavior": "deny"}, updatedInput={"a": 1})
    # updatedInput beside the decision is kept when the decision has none of its own.
    assert read_json("PermissionRequest", orjson.dumps(payload)) == Verdict(
        "deny", reason="", updated_input={"a": 1}
    )


@pytest.mark.parametrize(
    "decision",
    ["allow", ["allow"], {}, {"behavior": "ask"}, {"behavior": None}, {"message": "m"}],
)
def test_a_bad_permission_request_decision_is_refused(decision: Any) -> None:
    assert refusal("PermissionRequest", specific("PermissionRequest", decision=decision)) == (
        "hookSpecificOutput.decision must be {behavior: 'allow' or 'deny'}"
    )


def test_a_permission_request_without_a_decision_reads_the_legacy_fields() -> None:
    assert read_json("PermissionRequest", orjson.dumps(specific("PermissionRequest"))) == Verdict(
        "none"
    )
    legacy = {**specific("PermissionRequest", decision=None), "decision": "block", "reason": "r"}
    assert read_json("PermissionRequest", orjson.dumps(legacy)) == Verdict("block", reason="r")


@pytest.mark.parametrize("event_name", ["PostToolUse", "UserPromptSubmit"])
def test_a_decision_object_means_nothing_on_other_events(event_name: str) -> None:
    decision = {"behavior": "deny", "message": "m", "updatedInput": {"command": "other"}}
    payload = specific(event_name, decision=decision, updatedInput={"command": "mine"})
    assert read_json(event_name, orjson.dumps(payload)) == Verdict(
        "none", updated_input={"command": "mine"}
    )


def test_updated_output_falls_back_to_the_mcp_field() -> None:
    mcp = specific("PostToolUse", updatedMCPToolOutput={"content": "m"})
    assert read_json("PostToolUse", orjson.dumps(mcp)).updated_output == {"content": "m"}
    both = specific("PostToolUse", updatedToolOutput="t", updatedMCPToolOutput="m")
    assert read_json("PostToolUse", orjson.dumps(both)).updated_output == "t"
    assert read_json("PostToolUse", orjson.dumps(specific("PostToolUse"))).updated_output is None
