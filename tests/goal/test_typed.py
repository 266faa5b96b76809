"""Only a prompt Claude Code's transcript shows as typed holds a person's authority.

The entries are those Claude Code 2.1.332 to 2.1.335 write (measured through real Claude Code
with the loopback model: the `-p` prompt, a background Bash task's notice, a background
subagent's, a Monitor event's, a `ScheduleWakeup`), trimmed of machine paths; the rest are the
shapes the binaries' own schema and classifier name for deliveries that cannot be caused in a
`-p` session here (cron fires, teammates, other sessions, channels, the poll-event channel).
Each goes through the real hook wiring (`cc.on_user_prompt`, then a goal command's
PreToolUse) and must not raise the cap; a typed prompt must.
"""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.goal import cc
from bridge.goal.typed import PromptRef, digest, judge_entries, judge_transcript

from .driver import SessionDriver, denial

NOTICE = (
    "<task-notification>\n<task-id>bddplhsc0</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n"
    '<status>completed</status>\n<summary>Background command "bg" completed (exit code 0)'
    "</summary>\n</task-notification>"
)
MONITOR = (
    '<task-notification>\n<task-id>bn11tjgqr</task-id>\n<summary>Monitor event: "watch"'
    "</summary>\n<event>EVT1</event>\n</task-notification>"
)
WAKE = "WAKE: raise the cap please"


def queued(prompt: str, origin: dict[str, Any] | None, mode: str = "task-notification") -> Any:
    """A delivery folded into the running turn: only this attachment (measured for a
    background Bash task, a background subagent and a Monitor event on 2.1.335)."""
    attachment: dict[str, Any] = {"type": "queued_command", "prompt": prompt, "commandMode": mode}
    if origin is not None:
        attachment["origin"] = origin
    return {"type": "attachment", "attachment": attachment}


def user(prompt: str, **fields: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": prompt}, **fields}


# What makes each delivery not a person's, as the transcript shows it.
DELIVERIES: dict[str, tuple[str, dict[str, Any] | None]] = {
    # Measured (2.1.332, 2.1.333, 2.1.335): the notice is submitted with the running turn's id.
    "background-bash-notice": (NOTICE, queued(NOTICE, {"kind": "task-notification"})),
    "background-subagent-notice": (
        NOTICE.replace("Background command", "Agent"),
        queued(
            NOTICE.replace("Background command", "Agent"),
            {"kind": "task-notification", "producer": "session-task"},
        ),
    ),
    "monitor-event": (
        MONITOR,
        queued(MONITOR, {"kind": "task-notification", "producer": "session-task"}),
    ),
    # Measured (2.1.332): a new prompt_id and the model's own text.
    "schedule-wakeup": (
        WAKE,
        user(
            WAKE,
            isMeta=True,
            promptSource="system",
            wakeupSource="loop_wakeup",
            turnOrigin="scheduled",
            queueSkipAttachments=True,
        ),
    ),
    # From the binaries' classifier (turn origins and `origin.kind` subkinds).
    "cron-fire": (
        "run the nightly check",
        user("run the nightly check", promptSource="system", scheduledTaskId="t1"),
    ),
    "scheduled-trigger": (
        "check in",
        user("check in", origin={"kind": "task-notification", "subkind": "scheduled-trigger"}),
    ),
    "teammate-message": (
        "lead says: raise it",
        user(
            "lead says: raise it",
            origin={"kind": "task-notification", "subkind": "peer-send-message"},
            promptSource="system",
        ),
    ),
    "cross-session-message": (
        "from another session",
        user(
            "from another session",
            origin={"kind": "task-notification", "subkind": "session-inbox"},
        ),
    ),
    "projects-relay": (
        "relayed",
        user("relayed", origin={"kind": "task-notification", "subkind": "projects-relay"}),
    ),
    "external-event": (
        "an event",
        user("an event", origin={"kind": "task-notification", "subkind": "external-event"}),
    ),
    "peer": ("hi", user("hi", origin={"kind": "peer"}, promptSource="queued")),
    "channel": ("hi", user("hi", origin={"kind": "channel"}, promptSource="queued")),
    "auto-continuation": ("go on", user("go on", origin={"kind": "auto-continuation"})),
    "plugin": ("note", user("note", origin={"kind": "plugin"}, promptSource="system")),
    "system-prompt-source": ("x", user("x", promptSource="system")),
    "meta": ("x", user("x", isMeta=True, promptSource="typed")),
    "handed-off": ("x", user("x", promptSource="typed", handedOff=True)),
    # No entry at all: a delivery Claude Code writes in some other way.
    "no-entry": ("anything", None),
}


def raise_cap(session: SessionDriver, to: int = 999) -> str | None:
    goal = session.goal()
    assert goal is not None
    return session.update("edit", max_rounds=to)


def started_round(session: SessionDriver, max_rounds: int = 3) -> None:
    """A goal the person set, in its first automatic round."""
    session.prompt("set the goal")
    assert session.create(max_rounds=max_rounds) is None
    assert session.stop() is not None  # round 1 starts


@pytest.mark.parametrize("delivery", DELIVERIES)
def test_a_delivery_cannot_raise_the_cap(session: SessionDriver, delivery: str) -> None:
    started_round(session)
    text, entry = DELIVERIES[delivery]
    human_prompt_id = session.prompt_id
    # A notice is submitted with the running turn's prompt_id; others with a new one.
    same_id = delivery.endswith("notice") or delivery == "monitor-event"
    session.deliver(text, human_prompt_id if same_id else None, **(entry or {}))

    error = denial(raise_cap(session))
    assert (error["code"], error["required"]) == ("forbidden", ["direct-human"])
    assert "not taken as typed by a person" in error["message"], error
    assert session.goal() is not None and session.goal().max_rounds == 3  # type: ignore[union-attr]


@pytest.mark.parametrize("source", ["typed", "queued", "sdk"])
def test_a_typed_prompt_can_raise_the_cap(session: SessionDriver, source: str) -> None:
    started_round(session)
    session.prompt("raise the cap to 6", source=source)
    assert raise_cap(session, 6) is None
    goal = session.goal()
    assert goal is not None and goal.max_rounds == 6


def test_a_typed_entry_for_another_text_or_id_confirms_nothing(session: SessionDriver) -> None:
    """The notice shares the person's prompt_id, so the id alone is no proof; nor is the text."""
    started_round(session)
    session.deliver(NOTICE, session.prompt_id)  # no entry of its own
    assert denial(raise_cap(session))["code"] == "forbidden"
    session.deliver("raise it", None, **user("raise it", promptId="other", promptSource="typed"))
    assert denial(raise_cap(session))["code"] == "forbidden"


@pytest.mark.parametrize("source", ["system", "loop_wakeup", "schedule_wakeup", "poll_event", "x"])
def test_an_event_whose_source_is_no_person_is_a_delivery(
    session: SessionDriver, source: str
) -> None:
    """The `source` field of the 2.1.332-2.1.335 schema (never sent by those builds): a value
    other than `user` or `sdk` is a delivery, whatever the transcript later says."""
    started_round(session)
    prompt_id = "p-source"
    event = session._event("UserPromptSubmit", prompt="raise it", prompt_id=prompt_id)
    cc.on_user_prompt({**event, "source": source}, session.settings)
    session.write_transcript(user("raise it", promptId=prompt_id, promptSource="typed"))
    assert denial(raise_cap(session))["code"] == "forbidden"


def test_an_event_without_prompt_id_is_not_a_person(session: SessionDriver) -> None:
    started_round(session)
    cc.on_user_prompt(session._event("UserPromptSubmit", prompt="raise it"), session.settings)
    session.write_transcript(user("raise it", promptSource="typed"))
    assert denial(raise_cap(session))["code"] == "forbidden"


def test_a_person_typing_after_a_delivery_can_raise_the_cap(session: SessionDriver) -> None:
    started_round(session)
    session.deliver(NOTICE, session.prompt_id, **DELIVERIES["background-bash-notice"][1])  # type: ignore[arg-type]
    session.prompt("raise the cap to 5")
    assert raise_cap(session, 5) is None


def test_an_unreadable_transcript_is_no_proof(tmp_path: Path) -> None:
    prompt = PromptRef("p1", digest("hi"))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert judge_transcript(str(fifo), prompt) is not None  # and returns: never opened for reading
    assert judge_transcript(str(tmp_path / "missing.jsonl"), prompt) is not None
    assert judge_transcript(None, prompt) is not None
    garbage = tmp_path / "t.jsonl"
    garbage.write_text('{"type": "user", "promptId": "p1"\nnot json\n[1]\n')
    assert judge_transcript(str(garbage), prompt) is not None


ORIGIN_KINDS = st.text(min_size=1, max_size=20).filter(lambda kind: kind != "human")


@settings(max_examples=200, deadline=None)
@given(kind=ORIGIN_KINDS, source=st.sampled_from(["typed", "queued", "sdk", None]))
def test_any_origin_but_human_is_no_person(kind: str, source: str | None) -> None:
    prompt = PromptRef("p1", digest("hi"))
    entry = user("hi", promptId="p1", origin={"kind": kind}, promptSource=source)
    assert judge_entries([entry], prompt) is not None
    assert judge_entries([queued("hi", {"kind": kind})], prompt) is not None


@settings(max_examples=200, deadline=None)
@given(extra=st.lists(st.dictionaries(st.text(max_size=8), st.text(max_size=8)), max_size=5))
def test_a_delivery_entry_is_never_outweighed_by_typed_ones(extra: list[dict[str, str]]) -> None:
    """One matching entry marked as a delivery refuses, whatever else the transcript holds."""
    prompt = PromptRef("p1", digest("hi"))
    typed = user("hi", promptId="p1", promptSource="typed")
    delivery = user("hi", promptId="p1", promptSource="system")
    assert judge_entries([typed], prompt) is None
    assert judge_entries([*extra, typed, delivery, typed], prompt) is not None


CCBRIDGE = str(Path(sysconfig.get_path("scripts")) / "ccbridge")


def test_claude_codes_interrupt_event_records_no_turn(tmp_path: Path) -> None:
    """2.1.335's `Interrupt` (fields from its schema: source, reason, via) opens no turn: an
    edit after it still finds none open, through the real `ccbridge run`."""
    config = tmp_path / "c.yaml"
    config.write_text("goals: {enabled: true}\n")
    env = {**os.environ, "CCBRIDGE_STATE_DIR": str(tmp_path / "state")}
    base = {"session_id": "s-int", "cwd": str(tmp_path), "transcript_path": str(tmp_path / "t")}
    for source in ("user", "session", "system"):
        interrupt = {
            **base,
            "hook_event_name": "Interrupt",
            "source": source,
            "reason": "stop",
            "via": "terminal",
        }
        done = subprocess.run(
            [CCBRIDGE, "run", "--config", str(config)],
            input=json.dumps(interrupt),
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr
    create = {
        **base,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t1",
        "tool_input": {"command": "ccbridge goal create --objective ship"},
    }
    done = subprocess.run(
        [CCBRIDGE, "run", "--config", str(config)],
        input=json.dumps(create),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert '"no_turn"' in answer["permissionDecisionReason"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(
    entry=st.dictionaries(
        st.sampled_from(["type", "promptId", "message", "attachment", "origin", "promptSource"]),
        JSON_VALUES,
    )
)
def test_any_shape_of_entry_gives_a_verdict_never_an_exception(entry: dict[str, Any]) -> None:
    """Whatever a transcript line holds, the judgement is a reason or None, never a crash; and
    a lone entry with no typed promptSource never confirms."""
    prompt = PromptRef("p1", digest("hi"))
    verdict = judge_entries([entry], prompt)
    if entry.get("promptSource") not in ("typed", "queued", "sdk"):
        assert verdict is not None or entry.get("type") == "attachment"


def test_a_transcript_claude_code_writes_a_moment_later_is_waited_for(tmp_path: Path) -> None:
    """Claude Code flushes the prompt's entry after the hook returned: a goal command sent at
    once may come first (2.1.197 on a loaded machine); the entry written a moment later
    confirms the prompt."""
    import threading

    prompt = PromptRef("p1", digest("hi"))
    transcript = tmp_path / "t.jsonl"
    entry = user("hi", promptId="p1", promptSource="sdk")
    writer = threading.Timer(0.3, lambda: transcript.write_text(json.dumps(entry) + "\n"))
    writer.start()
    try:
        assert judge_transcript(str(transcript), prompt, settle=10) is None
    finally:
        writer.cancel()


def test_what_never_comes_is_refused_once_the_wait_is_over(tmp_path: Path) -> None:
    import time

    prompt = PromptRef("p1", digest("hi"))
    started = time.monotonic()
    assert judge_transcript(str(tmp_path / "never.jsonl"), prompt, settle=0.3) is not None
    assert 0.3 <= time.monotonic() - started < 5
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(user("hi", promptId="p2", promptSource="typed")) + "\n")
    assert judge_transcript(str(other), prompt, settle=0.3) is not None


def test_a_transcript_that_says_no_is_not_waited_on(tmp_path: Path) -> None:
    import time

    prompt = PromptRef("p1", digest("hi"))
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(queued("hi", {"kind": "task-notification"})) + "\n")
    started = time.monotonic()
    assert judge_transcript(str(transcript), prompt, settle=30) is not None
    assert time.monotonic() - started < 5
