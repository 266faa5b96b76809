"""What ccbridge prints back to Claude Code, per event, checked in-process against the CC hook
protocol (so mutation testing sees these answers): the JSON fields CC reads, the exit code
(2 blocks, never 1), stderr (what CC shows for an exit-2 block) and plain-text stdout."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bridge.pipeline import Allow, Ask, Deny
from bridge.wire import answer
from bridge.wire.answer import Answer


def printed(result: Answer) -> Any:
    """The JSON CC parses from stdout: exactly one document on one line."""
    assert result.stdout.endswith(b"\n")
    assert result.stdout.count(b"\n") == 1
    return json.loads(result.stdout)


# --- PreToolUse ---------------------------------------------------------------------------


def test_a_pre_tool_use_deny_is_the_permission_decision_and_exit_2() -> None:
    result = answer.pre_tool_use(Deny("no rm -rf"))
    assert printed(result) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no rm -rf",
        }
    }
    assert result.exit_code == 2
    assert result.stderr == "no rm -rf"  # older CC versions read only exit 2 and stderr
    assert (result.decision, result.reason) == ("deny", "no rm -rf")


def test_deny_is_the_pre_tool_use_deny() -> None:
    assert answer.deny("why") == answer.pre_tool_use(Deny("why"))


def test_a_pre_tool_use_ask_asks_with_exit_0() -> None:
    result = answer.pre_tool_use(Ask("check this"))
    assert printed(result) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "check this",
        }
    }
    assert (result.exit_code, result.stderr) == (0, "")
    assert (result.decision, result.reason) == ("ask", "check this")


def test_an_allow_without_anything_to_say_prints_nothing() -> None:
    """ccbridge never emits `allow`: no opinion is an empty stdout and exit 0."""
    result = answer.pre_tool_use(Allow())
    assert result.stdout == b""
    assert (result.exit_code, result.stderr, result.text) == (0, "", "")
    assert (result.decision, result.reason) == ("none", "")


def test_an_allow_with_context_carries_only_the_context() -> None:
    result = answer.pre_tool_use(Allow(), contexts=["one", "two"])
    assert printed(result) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "one\n\ntwo"}
    }
    assert result.exit_code == 0
    assert result.decision == "none"


def test_a_deny_keeps_its_context_system_message_and_stop() -> None:
    result = answer.pre_tool_use(
        Deny("no"), contexts=["c"], system_messages=["m1", "m2"], stop_reason="halt"
    )
    assert printed(result) == {
        "systemMessage": "m1\n\nm2",
        "continue": False,
        "stopReason": "halt",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
            "additionalContext": "c",
        },
    }
    assert result.exit_code == 2


def test_no_system_message_or_stop_means_no_such_keys() -> None:
    result = answer.pre_tool_use(Ask("a"), system_messages=[], stop_reason="")
    assert set(printed(result)) == {"hookSpecificOutput"}


# --- PostToolUse / PostToolUseFailure -----------------------------------------------------


@pytest.mark.parametrize("event", ["PostToolUse", "PostToolUseFailure"])
def test_a_post_tool_use_block_is_top_level_feedback_with_exit_0(event: str) -> None:
    """The tool already ran: `decision: block` feeds the reason back; exit 2 would only add
    stderr noise, so the exit stays 0."""
    result = answer.post_tool_use(event, "the output leaked a key")
    assert printed(result) == {"decision": "block", "reason": "the output leaked a key"}
    assert (result.exit_code, result.stderr) == (0, "")
    assert (result.decision, result.reason) == ("block", "the output leaked a key")


def test_a_post_tool_use_context_names_its_event() -> None:
    result = answer.post_tool_use(
        "PostToolUseFailure", None, contexts=["a", "b"], system_messages=["m"], stop_reason="s"
    )
    assert printed(result) == {
        "systemMessage": "m",
        "continue": False,
        "stopReason": "s",
        "hookSpecificOutput": {
            "hookEventName": "PostToolUseFailure",
            "additionalContext": "a\n\nb",
        },
    }
    assert result.decision == "none"


def test_a_post_tool_use_with_nothing_to_say_prints_nothing() -> None:
    result = answer.post_tool_use("PostToolUse", None)
    assert result.stdout == b""
    assert result.exit_code == 0


def test_an_empty_block_reason_still_blocks() -> None:
    result = answer.post_tool_use("PostToolUse", "")
    assert printed(result) == {"decision": "block", "reason": ""}


# --- PermissionRequest --------------------------------------------------------------------


def test_a_permission_request_deny_is_a_deny_behaviour() -> None:
    result = answer.permission_request("not here", system_messages=["m"], stop_reason="s")
    assert printed(result) == {
        "systemMessage": "m",
        "continue": False,
        "stopReason": "s",
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "not here"},
        },
    }
    assert result.exit_code == 0
    assert (result.decision, result.reason) == ("deny", "not here")


def test_a_permission_request_without_deny_leaves_the_dialog_to_cc() -> None:
    result = answer.permission_request(None)
    assert result.stdout == b""
    assert (result.decision, result.reason) == ("none", "")


def test_a_permission_request_decision_without_behaviour_reads_as_none() -> None:
    result = Answer({"hookSpecificOutput": {"decision": {}}})
    assert (result.decision, result.reason) == ("none", "")


# --- the other events ---------------------------------------------------------------------


@pytest.mark.parametrize("event", ["UserPromptSubmit", "Stop", "SubagentStop"])
def test_a_lifecycle_block_is_top_level_with_exit_0(event: str) -> None:
    result = answer.lifecycle(event, "keep going", contexts=["ignored"], system_messages=["m"])
    assert printed(result) == {"systemMessage": "m", "decision": "block", "reason": "keep going"}
    assert (result.exit_code, result.stderr, result.text) == (0, "", "")
    assert (result.decision, result.reason) == ("block", "keep going")


def test_a_pre_compact_block_needs_exit_2() -> None:
    """CC blocks a compaction only on exit 2, showing stderr."""
    result = answer.lifecycle("PreCompact", "not now")
    assert printed(result) == {"decision": "block", "reason": "not now"}
    assert (result.exit_code, result.stderr) == (2, "not now")


def test_pre_compact_context_is_plain_text_instructions() -> None:
    result = answer.lifecycle("PreCompact", None, contexts=["keep the plan", "and the todo"])
    assert result.stdout == b"keep the plan\n\nand the todo\n"
    assert result.exit_code == 0
    assert (result.decision, result.reason) == ("none", "")  # what the audit records


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "SubagentStart"])
def test_context_events_pass_additional_context(event: str) -> None:
    result = answer.lifecycle(event, None, contexts=["x", "y"], stop_reason="s")
    assert printed(result) == {
        "continue": False,
        "stopReason": "s",
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": "x\n\ny"},
    }
    assert result.exit_code == 0


@pytest.mark.parametrize("event", ["Stop", "SubagentStop", "Notification", "SessionEnd"])
def test_events_without_context_drop_it(event: str) -> None:
    """CC does not read additionalContext there: printing it would be an invalid answer."""
    assert answer.lifecycle(event, None, contexts=["x"]).stdout == b""


def test_a_lifecycle_answer_without_context_prints_nothing() -> None:
    assert answer.lifecycle("SessionStart", None).stdout == b""
    assert answer.lifecycle("PreCompact", None).stdout == b""


# --- two answers to one event -------------------------------------------------------------


def test_merged_joins_messages_and_contexts_and_keeps_the_stricter_exit() -> None:
    """The engine merges the sub-hooks' undecided answer with the goal module's."""
    ours = answer.lifecycle("UserPromptSubmit", None, contexts=["c1"], system_messages=["m1"])
    goal = answer.lifecycle("UserPromptSubmit", None, contexts=["c2"], system_messages=["m2"])
    assert printed(answer.merged(ours, goal)) == {
        "systemMessage": "m1\n\nm2",
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "c1\n\nc2",
        },
    }
    compact = answer.merged(
        answer.lifecycle("PreCompact", None), answer.lifecycle("PreCompact", "no")
    )
    assert (compact.exit_code, compact.stderr) == (2, "no")
    first_blocks = answer.merged(
        answer.lifecycle("PreCompact", "no"), answer.lifecycle("Stop", None)
    )
    assert (first_blocks.exit_code, first_blocks.stderr) == (2, "no")


def test_merged_takes_the_second_decision_and_stderr() -> None:
    ours = answer.lifecycle("Stop", None, contexts=[], system_messages=["m1"])
    result = answer.merged(ours, answer.lifecycle("Stop", "the goal is not met"))
    assert printed(result) == {
        "systemMessage": "m1",
        "decision": "block",
        "reason": "the goal is not met",
    }
    assert (result.decision, result.exit_code) == ("block", 0)
    assert answer.merged(answer.deny("a"), answer.deny("b")).stderr == "b"


def test_merged_with_one_side_silent_keeps_the_other_unchanged() -> None:
    one = answer.lifecycle("SessionStart", None, contexts=["c"], system_messages=["m"])
    silent = answer.lifecycle("SessionStart", None)
    assert printed(answer.merged(one, silent)) == printed(one)
    assert printed(answer.merged(silent, one)) == printed(one)
    assert answer.merged(silent, silent).stdout == b""
