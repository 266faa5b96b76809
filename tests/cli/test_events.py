"""Every CC event ccbridge runs, through the real `ccbridge run` and real sub-hook processes:
CC's meaning of a block per event, fail closed where the event can stop something, told to the
user where it cannot, and never an `allow` passed on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bridge.engine import GOAL_HINT
from bridge.wire.event import BLOCKING_EVENTS, CC_EVENTS, MATCHED_FIELD, SUBHOOK_EVENTS
from tests.support.events import event_json
from tests.support.sandbox import Sandbox

BLOCK = "echo 'not now' >&2; exit 2"
CRASH = "echo boom >&2; exit 1"


# The fields CC sends with every event, as these tests give them.
COMMON = {"session_id": "s", "transcript_path": ""}


def configure(sandbox: Sandbox, name: str, *commands: str, matcher: str | None = None) -> None:
    handlers = [
        {"type": "command", "command": command, "name": f"h{i}"}
        for i, command in enumerate(commands)
    ]
    group: dict[str, Any] = {"hooks": handlers}
    if matcher is not None:
        group["matcher"] = matcher
    sandbox.write_json(sandbox.config, {"hooks": {name: [group]}})


def run(sandbox: Sandbox, stdin: str) -> tuple[int, dict[str, Any], str]:
    done = sandbox.run("run", "--config", str(sandbox.config), stdin=stdin)
    assert "Traceback" not in done.stderr
    out = done.stdout.strip()
    payload = json.loads(out) if out.startswith("{") else ({"text": out} if out else {})
    return done.returncode, payload, done.stderr


def audit(sandbox: Sandbox) -> list[dict[str, Any]]:
    lines = (sandbox.state / "audit.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_the_events_ccbridge_runs_are_cc_events_with_a_known_matcher_field() -> None:
    assert SUBHOOK_EVENTS <= CC_EVENTS
    assert BLOCKING_EVENTS <= SUBHOOK_EVENTS
    assert set(MATCHED_FIELD) == SUBHOOK_EVENTS


@pytest.mark.parametrize("hook", [BLOCK, 'echo \'{"decision":"block","reason":"not now"}\''])
def test_a_user_prompt_block_blocks_the_prompt_naming_the_hook(sandbox: Sandbox, hook: str) -> None:
    configure(sandbox, "UserPromptSubmit", hook, "exit 0")
    code, payload, _ = run(sandbox, event_json("UserPromptSubmit", None, **COMMON, prompt="hi"))
    assert (code, payload) == (0, {"decision": "block", "reason": "[h0] not now"})


def test_a_crashing_user_prompt_hook_blocks_the_prompt(sandbox: Sandbox) -> None:
    configure(sandbox, "UserPromptSubmit", CRASH)
    code, payload, _ = run(sandbox, event_json("UserPromptSubmit", None, **COMMON, prompt="hi"))
    assert code == 0 and payload["decision"] == "block"
    assert payload["reason"] == "[h0] failed: exited with code 1: boom"


def test_user_prompt_context_plain_or_json_reaches_the_model(sandbox: Sandbox) -> None:
    json_context = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "B"}}
    )
    configure(sandbox, "UserPromptSubmit", "echo A", f"echo '{json_context}'", matcher="nothing")
    code, payload, _ = run(sandbox, event_json("UserPromptSubmit", None, **COMMON, prompt="hi"))
    # CC ignores matchers on UserPromptSubmit: the group runs.
    assert (code, payload) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": "A\n\nB",
            }
        },
    )


def test_a_stop_block_keeps_claude_working(sandbox: Sandbox) -> None:
    configure(sandbox, "Stop", 'echo \'{"decision":"block","reason":"tests fail"}\'')
    for active in (False, True):  # a hook's own block counts every time
        code, payload, _ = run(sandbox, event_json("Stop", None, **COMMON, stop_hook_active=active))
        assert (code, payload) == (0, {"decision": "block", "reason": "[h0] tests fail"})


def test_a_failing_stop_hook_blocks_once_never_in_a_loop(sandbox: Sandbox) -> None:
    configure(sandbox, "Stop", CRASH)
    code, payload, _ = run(sandbox, event_json("Stop", None, **COMMON, stop_hook_active=False))
    assert (code, payload["decision"]) == (0, "block")
    assert "[h0] failed" in payload["reason"]
    code, payload, _ = run(sandbox, event_json("Stop", None, **COMMON, stop_hook_active=True))
    assert (code, "decision" in payload) == (0, False)
    assert "[h0] failed" in payload["systemMessage"]


def test_subagent_stop_matches_the_agent_type(sandbox: Sandbox) -> None:
    configure(sandbox, "SubagentStop", BLOCK, matcher="reviewer")
    code, payload, _ = run(
        sandbox, event_json("SubagentStop", None, **COMMON, agent_type="reviewer")
    )
    assert (code, payload.get("decision")) == (0, "block")
    code, payload, _ = run(
        sandbox, event_json("SubagentStop", None, **COMMON, agent_type="explorer")
    )
    assert (code, payload) == (0, {})


def test_session_start_context_by_source_and_failures_only_told(sandbox: Sandbox) -> None:
    configure(sandbox, "SessionStart", "echo 'project notes'", CRASH, matcher="startup")
    code, payload, _ = run(sandbox, event_json("SessionStart", None, **COMMON, source="startup"))
    assert code == 0 and "decision" not in payload
    assert payload["hookSpecificOutput"] == {
        "hookEventName": "SessionStart",
        "additionalContext": "project notes",
    }
    assert "[h1] failed: exited with code 1: boom" in payload["systemMessage"]
    assert run(sandbox, event_json("SessionStart", None, **COMMON, source="resume"))[:2] == (0, {})


def test_permission_request_allow_is_never_passed_on(sandbox: Sandbox) -> None:
    allow = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow"},
            }
        }
    )
    configure(sandbox, "PermissionRequest", f"echo '{allow}'", matcher="Bash")
    request = event_json(
        "PermissionRequest", None, **COMMON, tool_name="Bash", tool_input={"command": "ls"}
    )
    code, payload, _ = run(sandbox, request)
    assert (code, payload) == (0, {})  # CC shows its own dialog
    [record] = audit(sandbox)
    assert "allow downgraded to no opinion" in json.dumps(record)


@pytest.mark.parametrize(
    "hook",
    [
        CRASH,
        BLOCK,
        "echo '"
        + json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": "not now"},
                }
            }
        )
        + "'",
    ],
)
def test_permission_request_deny_or_failure_denies(sandbox: Sandbox, hook: str) -> None:
    configure(sandbox, "PermissionRequest", hook)
    request = event_json(
        "PermissionRequest", None, **COMMON, tool_name="Bash", tool_input={"command": "ls"}
    )
    code, payload, _ = run(sandbox, request)
    decision = payload["hookSpecificOutput"]["decision"]
    assert (code, decision["behavior"]) == (0, "deny")
    assert decision["message"].startswith("[h0] ")
    [record] = audit(sandbox)
    assert record["final"]["decision"] == "deny"


def test_pre_compact_block_is_exit_2_and_instructions_pass_as_text(sandbox: Sandbox) -> None:
    configure(sandbox, "PreCompact", BLOCK, matcher="auto")
    code, payload, stderr = run(sandbox, event_json("PreCompact", None, **COMMON, trigger="auto"))
    assert (code, payload["decision"]) == (2, "block")
    assert "[h0] not now" in stderr
    assert run(sandbox, event_json("PreCompact", None, **COMMON, trigger="manual"))[:2] == (0, {})
    configure(sandbox, "PreCompact", "echo 'keep the test names'")
    assert run(sandbox, event_json("PreCompact", None, **COMMON, trigger="manual"))[:2] == (
        0,
        {"text": "keep the test names"},
    )


@pytest.mark.parametrize(
    ("name", "fields"),
    [("Notification", {"notification_type": "idle_prompt"}), ("SessionEnd", {"reason": "other"})],
)
def test_events_that_stop_nothing_run_their_hooks_and_tell_failures(
    sandbox: Sandbox, tmp_path: Path, name: str, fields: dict[str, Any]
) -> None:
    mark = tmp_path / "ran"
    configure(sandbox, name, f"touch {mark}", BLOCK)
    code, payload, _ = run(sandbox, event_json(name, None, **COMMON, **fields))
    assert mark.exists()
    assert code == 0 and "decision" not in payload
    assert "[h1] not now" in payload["systemMessage"]


def test_a_config_error_blocks_a_prompt_with_the_reason(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "hooks: [\n")
    code, payload, _ = run(sandbox, event_json("UserPromptSubmit", None, **COMMON, prompt="hi"))
    assert (code, payload["decision"]) == (0, "block")
    assert "ccbridge config error" in payload["reason"]


def test_sub_hooks_run_alongside_goals_and_a_blocked_prompt_is_no_turn(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """In-process, with the goal module's entry point watched: it sees the prompt after the
    sub-hooks, and not at all when a sub-hook refused the prompt."""
    from bridge.config.build import compile_sources
    from bridge.config.compiled import Source
    from bridge.engine import Machine, handle
    from bridge.goal import cc
    from bridge.subhooks.verdict import HookRun
    from bridge.wire.event import parse_event

    seen: list[str] = []
    monkeypatch.setattr(cc, "on_user_prompt", lambda raw, _settings: seen.append(raw["prompt"]))
    path = tmp_path / "ccbridge.yaml"
    text = (
        "goals: {enabled: true}\n"
        "hooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: x}]\n"
    )
    config = compile_sources([Source(path, text.encode(), (str(path), 0, 0, ""))], "k")
    prompt = parse_event(event_json("UserPromptSubmit", None, **COMMON, prompt="hi").encode())
    env = {"CCBRIDGE_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path)}

    def answer_with(run: HookRun) -> dict[str, Any]:
        machine = Machine(env=env, runner=lambda hooks, *_: [run for _ in hooks])
        return handle(prompt, config, machine).answer.payload

    said = answer_with(HookRun(0, stdout=b"A\n"))
    assert said["hookSpecificOutput"]["additionalContext"] == "A\n\n" + GOAL_HINT and seen == ["hi"]
    said = answer_with(HookRun(2, stderr=b"no"))
    assert said["decision"] == "block" and seen == ["hi"]
