"""A goal change is judged at PreToolUse and applied only at the PostToolUse (or
PostToolUseFailure) of that same call: once, while its turn is open, before it expires, for the
very command judged, and only if the goal is still at the revision it was judged against."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from typing import Any

from bridge.goal import cc
from bridge.goal.errors import Code
from bridge.goal.keeper import GoalKeeper
from bridge.goal.model import Phase
from bridge.goal.request import parse_goal_command
from bridge.goal.settings import GoalSettings
from bridge.goal.store import GoalStore
from tests.support.events import event as shared_event

from .driver import SessionDriver, denial, refused

CREATE = "ccbridge goal create --objective 'make the tests pass' --max-rounds 5"


event = partial(shared_event, session_id="session-1")


def pre(session: SessionDriver, command: str, tool_use_id: str) -> str | None:
    return cc.on_pre_tool_use(
        event(
            "PreToolUse", command, tool_use_id=tool_use_id, transcript_path=str(session.transcript)
        ),
        session.settings,
    )


def post(
    session: SessionDriver, command: str, tool_use_id: str, name: str = "PostToolUse"
) -> dict[str, Any] | None:
    context = cc.on_post_tool_use(event(name, command, tool_use_id=tool_use_id), session.settings)
    if context is None:
        return None
    outcome: dict[str, Any] = json.loads(context[context.index("{") :])
    return outcome


def test_a_judged_change_that_never_ran_is_never_applied(session: SessionDriver) -> None:
    session.prompt()
    assert pre(session, CREATE, "t1") is None  # allowed by ccbridge; then CC refuses the call
    assert session.goal() is None
    session.stop()  # the turn ends; a later turn does not revive the change
    session.prompt()
    outcome = post(session, CREATE, "t1")
    assert outcome is not None and outcome["error"]["code"] == "expired"
    assert session.goal() is None


def test_the_change_is_applied_once(session: SessionDriver) -> None:
    session.prompt()
    assert pre(session, CREATE, "t1") is None
    applied = post(session, CREATE, "t1", "PostToolUseFailure")
    assert applied is not None and applied["ok"] is True
    assert applied["goal"]["objective"] == "make the tests pass"
    goal = session.goal()
    assert goal is not None and goal.revision == 1
    assert post(session, CREATE, "t1") is None  # a duplicated or replayed event
    assert post(session, CREATE, "t2") is None  # a call nothing was judged for
    assert session.goal() == goal


def test_an_expired_change_is_not_applied(session: SessionDriver) -> None:
    session.prompt()
    now = [1000.0]
    with GoalStore.open(session.settings.db_path) as store:
        keeper = GoalKeeper(store, session.settings, timer=lambda: now[0])
        request = parse_goal_command(CREATE)
        assert request is not None and request != "get"
        judged = keeper.judge(
            "session-1",
            request,
            agent_id=None,
            tool_use_id="t1",
            command=CREATE,
            typed=lambda _prompt: None,  # the transcript shows the prompt typed
        )
        assert judged["ok"] is True and judged["status"] == "pending"
        now[0] += session.settings.pending_ttl_s + 1
        outcome = keeper.commit("session-1", "t1", CREATE)
    assert outcome is not None and outcome["error"]["code"] == "expired"
    assert session.goal() is None


def test_concurrent_calls_keep_compare_and_set(session: SessionDriver) -> None:
    session.prompt()
    session.create()
    goal = session.goal()
    assert goal is not None
    edits = [
        f"ccbridge goal update --id {goal.id} --revision 1 --action edit --objective 'v{n}'"
        for n in (1, 2)
    ]
    assert pre(session, edits[0], "a") is None
    assert pre(session, edits[1], "b") is None  # both judged against revision 1
    first, second = post(session, edits[1], "b"), post(session, edits[0], "a")
    assert first is not None and first["ok"] is True
    assert second is not None and second["error"]["code"] == "stale_revision"
    current = session.goal()
    assert current is not None and (current.revision, current.objective) == (2, "v2")


def test_a_refused_command_is_denied_with_the_same_reasons(session: SessionDriver) -> None:
    session.prompt()
    session.create()
    session.stop()  # round 1: automatic, no human
    goal = session.goal()
    assert goal is not None
    edit = (
        f"ccbridge goal update --id {goal.id} --revision {goal.revision} --action edit "
        "--max-rounds 99"
    )
    error = denial(pre(session, edit, "t9"))
    assert (error["code"], error["required"]) == ("forbidden", ["direct-human"])
    assert post(session, edit, "t9") is None  # nothing was judged for it


def test_a_process_below_the_bash_tool_changes_nothing(settings: GoalSettings) -> None:
    honest = SessionDriver(settings, "session-1")
    honest.prompt()
    honest.create(max_rounds=2)
    before = honest.goal()
    assert before is not None and before.phase is Phase.ACTIVE
    forged = SessionDriver(
        replace(settings, provenance=lambda: "process 42 is Claude Code's Bash tool"), "session-1"
    )
    for host_event in (forged.prompt, forged.stop):
        with refused(Code.NOT_HOST):
            host_event()
    assert denial(forged.create())["code"] == "not_host"
    # A forged PostToolUse cannot apply a change judged for an honest call either.
    complete = f"ccbridge goal update --id {before.id} --revision 1 --action complete"
    assert pre(honest, complete, "t5") is None
    with refused(Code.NOT_HOST):
        cc.on_post_tool_use(event("PostToolUse", complete, tool_use_id="t5"), forged.settings)
    assert honest.goal() == before
    with GoalStore.open(settings.db_path) as store, store.read() as tx:
        assert tx.rounds_since_human("session-1") == 0
