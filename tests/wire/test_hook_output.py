"""Reading a sub-hook's answer as Claude Code reads it."""

from __future__ import annotations

import orjson
import pytest

from bridge.subhooks.verdict import HookRun
from bridge.wire.hook_output import read_run


def pre(payload: object, exit_code: int = 0, stderr: bytes = b"") -> HookRun:
    out = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    return HookRun(exit_code=exit_code, stdout=out, stderr=stderr)


def specific(**fields: object) -> dict[str, object]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}


@pytest.mark.parametrize(
    ("run", "kind", "reason"),
    [
        (pre(specific(permissionDecision="deny", permissionDecisionReason="no")), "deny", "no"),
        (pre(specific(permissionDecision="ask")), "ask", ""),
        (pre(specific(permissionDecision="allow")), "allow", ""),
        (pre(specific(permissionDecision="defer")), "defer", ""),
        (pre({"decision": "block", "reason": "old"}), "deny", "old"),
        (pre({"decision": "approve"}), "allow", ""),
        (pre(b""), "none", ""),
        (pre(b"  \n"), "none", ""),
        (pre(b"plain words"), "none", ""),
        (pre({}), "none", ""),
        (pre(b"", exit_code=2, stderr=b"stop it\n"), "deny", "stop it"),
        (pre(b"", exit_code=2), "deny", "exited with code 2"),
        (
            pre(specific(permissionDecision="deny", permissionDecisionReason="json"), 2, b"err"),
            "deny",
            "json",
        ),
        (pre({"continue": False, "stopReason": "halt"}), "deny", "halt"),
    ],
)
def test_decisions(run: HookRun, kind: str, reason: str) -> None:
    verdict = read_run("PreToolUse", run)
    assert (verdict.kind, verdict.reason) == (kind, reason)


@pytest.mark.parametrize(
    ("run", "fragment"),
    [
        (pre(b"{oops"), "malformed JSON"),
        (pre(b"{}", exit_code=1, stderr=b"Traceback"), "exited with code 1: Traceback"),
        (pre(b"", exit_code=127), "exited with code 127"),
        (pre({"hookSpecificOutput": {"hookEventName": "PostToolUse"}}), "expected 'PreToolUse'"),
        (pre({"hookSpecificOutput": {"permissionDecision": "deny"}}), "hookEventName is None"),
        (pre(specific(permissionDecision="yes")), "not one of"),
        (pre(specific(permissionDecision="deny", permissionDecisionReason=3)), "must be a string"),
        (pre({"decision": "maybe"}), "decision must be"),
        (pre({"continue": "no"}), "continue must be a boolean"),
        (pre(specific(updatedInput=[1])), "updatedInput must be an object"),
        (pre({"hookSpecificOutput": "x"}), "must be an object"),
        (HookRun(exit_code=None, error="timed out after 1s"), "timed out"),
    ],
)
def test_failures(run: HookRun, fragment: str) -> None:
    verdict = read_run("PreToolUse", run)
    assert verdict.kind == "failure"
    assert fragment in verdict.reason


def test_extras_are_carried() -> None:
    verdict = read_run(
        "PreToolUse",
        pre(
            {
                "systemMessage": "hello user",
                **specific(
                    permissionDecision="allow",
                    additionalContext="ctx",
                    updatedInput={"command": "x"},
                    someFutureField=1,
                ),
                "anotherNewField": True,
            }
        ),
    )
    assert verdict.kind == "allow"
    assert (verdict.context, verdict.system_message) == ("ctx", "hello user")
    assert verdict.updated_input == {"command": "x"}


def test_post_tool_use_block_and_context() -> None:
    run = pre(
        {
            "decision": "block",
            "reason": "bad",
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": "c",
                "updatedToolOutput": "forged",
            },
        }
    )
    verdict = read_run("PostToolUse", run)
    assert (verdict.kind, verdict.reason, verdict.context) == ("block", "bad", "c")
    assert verdict.updated_output == "forged"
    assert read_run("PostToolUse", pre(b"", 2, b"no")).kind == "block"
