"""The exact decision, reason and trace of each station path (the trace is what the audit
records as the call's steps), in-process so mutation testing sees every message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import pytest

from bridge.pipeline import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    Execution,
    Guard,
    Named,
    ReplaceContent,
    ReplaceValue,
    Stations,
    ToolResult,
    decide,
    freeze,
    thaw,
)
from bridge.pipeline.execute_stage import CancelSignal, run_tool
from bridge.pipeline.stations import Step, finish

CALL = Execution.create("echo", {"text": "hi"})


def echo(execution: Execution, signal: CancelSignal) -> ToolResult:
    return ToolResult(content="hi", value={"v": 1})


def failing(execution: Execution, signal: CancelSignal) -> ToolResult:
    return ToolResult(content="bad", is_error=True, code="E")


def raising(*_args: Any) -> Any:
    raise ValueError("broken")


def raising_silently(*_args: Any) -> Any:
    raise KeyError()


def pre(name: str, fn: Any) -> Named[Any]:
    return Named(name, fn)


def test_pre_execute_steps_name_only_the_deciding_listener() -> None:
    stations = Stations(
        pre_execute=(
            pre("passes", lambda _e, next_: next_()),
            pre("denies", lambda _e, _n: Deny("no")),
            pre("never", lambda _e, _n: Allow()),
        )
    )
    outcome = decide(CALL, stations)
    assert outcome.decision == Deny("no")
    assert outcome.trace == (Step("pre_execute", "denies", "deny", "no"),)


def test_an_allow_without_listeners_is_an_empty_trace() -> None:
    outcome = decide(CALL, Stations())
    assert (outcome.decision, outcome.trace) == (Allow(), ())
    allowing = decide(CALL, Stations(pre_execute=(pre("ok", lambda _e, _n: Allow()),)))
    assert allowing.trace == (Step("pre_execute", "ok", "allow", ""),)


def test_a_throwing_pre_listener_denies_with_its_error() -> None:
    outcome = decide(CALL, Stations(pre_execute=(pre("p", raising),)))
    assert outcome.decision == Deny("pre-execute listener p failed: ValueError: broken")
    assert outcome.trace == (Step("pre_execute", "p", "error", "ValueError: broken"),)
    silent = decide(CALL, Stations(pre_execute=(pre("p", raising_silently),)))
    assert silent.decision == Deny("pre-execute listener p failed: KeyError")


def test_a_pre_listener_returning_garbage_denies_naming_it() -> None:
    outcome = decide(CALL, Stations(pre_execute=(pre("p", lambda _e, _n: "yes"),)))
    assert outcome.decision == Deny("pre-execute listener p returned 'yes'")
    assert outcome.trace == (Step("pre_execute", "p", "error", "'yes'"),)


def asking(reason: str) -> Stations:
    return Stations(pre_execute=(pre("q", lambda _e, _n: Ask(reason)),))


@pytest.mark.parametrize(
    ("channel", "decision", "outcome"),
    [
        (None, Deny("approval required but no approval channel is available: why"), "unavailable"),
        (lambda _e, _a: "allowed_once", Allow(), "allowed_once"),
        (lambda _e, _a: "deferred", Ask("why"), "deferred"),
        (lambda _e, _a: "rejected", Deny("approval rejected: why"), "rejected"),
        (lambda _e, _a: "cancelled", Deny("approval cancelled: why"), "cancelled"),
    ],
)
def test_approval_answers_and_their_steps(channel: Any, decision: Any, outcome: str) -> None:
    result = decide(CALL, asking("why"), channel)
    assert result.decision == decision
    assert result.trace == (
        Step("pre_execute", "q", "ask", "why"),
        Step("approval", "channel", outcome, "why"),
    )


def test_a_throwing_channel_is_unavailable_and_a_bare_ask_has_no_colon() -> None:
    result = decide(CALL, asking(""), raising)
    assert result.decision == Deny("approval required but no approval channel is available")
    assert result.trace == (
        Step("pre_execute", "q", "ask", ""),
        Step("approval", "channel", "error", "ValueError: broken"),
        Step("approval", "channel", "unavailable", ""),
    )
    rejected = decide(CALL, asking(""), lambda _e, _a: "rejected")
    assert rejected.decision == Deny("approval rejected")


def test_guards_abstain_object_and_fail_with_their_name() -> None:
    result = decide(
        CALL,
        Stations(guards=(Named("quiet", lambda _e: None), Named("picky", lambda _e: "too big"))),
    )
    assert result.decision == Deny("[picky] too big")
    assert result.trace == (
        Step("guard", "quiet", "abstain", ""),
        Step("guard", "picky", "deny", "too big"),
    )
    empty = decide(CALL, Stations(guards=(Named("mute", lambda _e: ""),)))
    assert empty.decision == Deny("[mute] objected")
    assert empty.trace == (Step("guard", "mute", "deny", "objected"),)
    broken = decide(CALL, Stations(guards=(Named("g", raising), Named("later", lambda _e: "x"))))
    assert broken.decision == Deny("[g] failed: ValueError: broken\n\n[later] x")
    assert broken.trace == (
        Step("guard", "g", "error", "ValueError: broken"),
        Step("guard", "later", "deny", "x"),
    )


def test_a_guard_may_ask_and_every_other_guard_still_runs() -> None:
    """`Ask(reason)` is a guard's question; a later guard's denial still wins (deny > ask)."""
    unsure: Named[Guard] = Named("unsure", lambda _e: Ask("cannot tell what $X is"))
    typed: Named[Guard] = Named("typed", lambda _e: Deny("never"))
    deferred = decide(CALL, Stations(guards=(unsure,)), lambda _e, _a: "deferred")
    assert deferred.decision == Ask("[unsure] cannot tell what $X is")
    assert deferred.trace == (
        Step("guard", "unsure", "ask", "cannot tell what $X is"),
        Step("approval", "channel", "deferred", "[unsure] cannot tell what $X is"),
    )
    denied = decide(CALL, Stations(guards=(unsure, typed)), lambda _e, _a: "deferred")
    assert denied.decision == Deny("[typed] never")
    assert [step.outcome for step in denied.trace] == ["ask", "deny"]
    # no channel (`approval: none`): the question is a denial that says what was asked
    assert decide(CALL, Stations(guards=(unsure,))).decision == Deny(
        "approval required but no approval channel is available: [unsure] cannot tell what $X is"
    )
    assert decide(CALL, Stations(guards=(unsure,)), lambda _e, _a: "allowed_once").decision == (
        Allow()
    )


def test_guards_questions_join_a_deferred_question_sorted_and_allow_is_refused() -> None:
    second: Named[Guard] = Named("b", lambda _e: Ask("second"))
    first: Named[Guard] = Named("a", lambda _e: Ask(""))
    stations = Stations(pre_execute=asking("hook?").pre_execute, guards=(second, first))
    both = decide(CALL, stations, lambda _e, _a: "deferred")
    assert both.decision == Ask("hook?\n\n[a] asked\n\n[b] second")
    # a guard that allows, which the type forbids, to see the pipeline refuse it
    lax: Named[Guard] = Named("lax", lambda _e: Allow())  # type: ignore[arg-type, return-value]
    allowing = decide(CALL, Stations(guards=(lax,)))
    assert allowing.decision == Deny("[lax] returned Allow(), but a guard can only deny or ask")
    assert allowing.trace == (Step("guard", "lax", "error", "returned Allow()"),)


def test_run_tool_traces_the_body_and_a_deferred_ask_denies() -> None:
    ok = run_tool(CALL, Stations(), {"echo": echo})
    assert ok.result == ToolResult(content="hi", value={"v": 1})
    assert ok.trace == (Step("execute", "echo", "ok", ""),)
    bad = run_tool(CALL, Stations(), {"echo": failing})
    assert bad.trace == (Step("execute", "echo", "error", ""),)
    deferred = run_tool(CALL, asking("why"), {"echo": echo}, lambda _e, _a: "deferred")
    assert deferred.decision == Deny("approval was deferred but this host cannot ask: why")
    assert deferred.result == ToolResult(
        content="Error: approval was deferred but this host cannot ask: why",
        is_error=True,
        code="DENIED",
        post_result=True,
    )


def test_an_unknown_or_raising_tool_is_an_error_result() -> None:
    unknown = run_tool(CALL, Stations(), {})
    assert unknown.result == ToolResult(
        content='Error: unknown tool "echo"', is_error=True, code="UNKNOWN_TOOL"
    )
    assert unknown.trace == (Step("execute", "echo", "unknown", ""),)
    broken = run_tool(CALL, Stations(), {"echo": raising})
    assert broken.result == ToolResult(
        content="Error: ValueError: broken", is_error=True, code="TOOL_ERROR"
    )
    assert broken.trace == (Step("execute", "echo", "error", "ValueError: broken"),)


def test_wrappers_run_in_order_around_the_body() -> None:
    seen: list[str] = []

    def wrapper(name: str) -> Named[Any]:
        def wrap(
            execution: Execution, signal: CancelSignal, inner: Callable[[CancelSignal], ToolResult]
        ) -> ToolResult:
            seen.append(name)
            return inner(signal)

        return Named(name, wrap)

    result = run_tool(CALL, Stations(wrappers=(wrapper("a"), wrapper("b"))), {"echo": echo})
    assert seen == ["a", "b"]
    assert result.result == ToolResult(content="hi", value={"v": 1})


RESULT = ToolResult(content="hi", value={"v": 1}, context=("c0",))


def post(*listeners: Any) -> Stations:
    return Stations(post_execute=tuple(Named(f"p{i}", fn) for i, fn in enumerate(listeners)))


def test_post_decisions_apply_with_their_context_and_steps() -> None:
    final, trace = finish(CALL, RESULT, post(lambda _e, _r, _n: Block("leak", ("c1",))))
    assert final == ToolResult(
        content="Error: leak", value={"v": 1}, is_error=True, code="BLOCKED", context=("c0", "c1")
    )
    assert trace == (Step("post_execute", "p0", "block", "leak"),)
    final, trace = finish(CALL, RESULT, post(lambda _e, _r, _n: ReplaceContent("new", ("c1",))))
    assert final == ToolResult(content="new", value={"v": 1}, context=("c0", "c1"))
    assert trace == (Step("post_execute", "p0", "replacecontent", ""),)
    final, _ = finish(CALL, RESULT, post(lambda _e, _r, _n: ReplaceValue(2, ("c1",))))
    assert final == ToolResult(content="hi", value=2, context=("c0", "c1"))
    error = ToolResult(content="bad", is_error=True)
    final, _ = finish(CALL, error, post(lambda _e, _r, _n: ReplaceValue(2, ("c1",))))
    assert final == ToolResult(content="bad", is_error=True, context=("c1",))
    final, trace = finish(CALL, RESULT, post(lambda _e, _r, _n: Accept(("c1",))))
    assert final == ToolResult(content="hi", value={"v": 1}, context=("c0", "c1"))
    assert trace == (Step("post_execute", "p0", "accept", ""),)


def test_post_listeners_chain_and_each_that_answers_is_traced() -> None:
    final, trace = finish(
        CALL, RESULT, post(lambda _e, _r, next_: next_(), lambda _e, _r, _n: Block("x"))
    )
    assert final.code == "BLOCKED"
    assert trace == (
        Step("post_execute", "p1", "block", "x"),
        Step("post_execute", "p0", "block", "x"),
    )
    final, trace = finish(CALL, RESULT, post(lambda _e, _r, next_: next_()))
    assert final == RESULT
    assert trace == (Step("post_execute", "p0", "accept", ""),)


def test_a_failing_post_listener_blocks_naming_it() -> None:
    final, trace = finish(CALL, RESULT, post(raising))
    assert final.content == "Error: post-execute listener p0 failed: ValueError: broken"
    assert trace == (Step("post_execute", "p0", "error", "ValueError: broken"),)
    final, trace = finish(CALL, RESULT, post(lambda _e, _r, _n: "fine"))
    assert final.content == "Error: post-execute listener p0 returned 'fine'"
    assert trace == (Step("post_execute", "p0", "error", "'fine'"),)


def test_observers_see_the_final_result_and_their_failures_are_traced() -> None:
    seen: list[ToolResult] = []
    stations = Stations(
        post_execute=(Named("p", lambda _e, _r, _n: ReplaceContent("new")),),
        observers=(Named("bad", raising), Named("good", lambda _e, r: seen.append(r))),
    )
    final, trace = finish(CALL, RESULT, stations)
    assert seen == [final]
    assert final.content == "new"
    assert trace == (
        Step("post_execute", "p", "replacecontent", ""),
        Step("observer", "bad", "error", "ValueError: broken"),
        Step("observer", "good", "ok", ""),
    )


def test_a_cancel_signal_starts_uncancelled() -> None:
    signal = CancelSignal()
    assert signal.cancelled is False
    signal.cancel()
    assert signal.cancelled is True


def test_freeze_makes_lists_tuples_at_every_depth_and_thaw_undoes_it() -> None:
    data = {"a": [1, {"b": [2, (3,)]}], "c": "text"}
    frozen = freeze(data)  # called here, not at import: mutation testing sees it
    assert frozen["a"] == (1, {"b": (2, (3,))})
    with pytest.raises(TypeError):
        frozen["a"][1]["b"] = ()
    assert thaw(frozen) == {"a": [1, {"b": [2, [3]]}], "c": "text"}


def test_every_station_is_handed_the_call_itself() -> None:
    """Listeners judge the call they are given: each must see this execution (and the approval
    channel the question asked, a wrapper the signal)."""
    seen: list[tuple[str, Any]] = []
    question = Ask("sure?")

    def look(name: str, answer: Any) -> Any:
        def listener(execution: Execution, *rest: Any) -> Any:
            seen.append((name, execution))
            return answer(*rest)

        return listener

    def wrap(
        execution: Execution, signal: CancelSignal, inner: Callable[[CancelSignal], ToolResult]
    ) -> ToolResult:
        seen.append(("wrapper", execution))
        seen.append(("signal", isinstance(signal, CancelSignal)))
        return inner(signal)

    def channel(execution: Execution, ask: Ask) -> Literal["allowed_once"]:
        seen.append(("channel", execution))
        seen.append(("question", ask))
        return "allowed_once"

    stations = Stations(
        pre_execute=(
            Named("pass", look("pre", lambda next_: next_())),
            Named("ask", look("pre2", lambda _n: question)),
        ),
        guards=(Named("g", look("guard", lambda: None)),),
        wrappers=(Named("w", wrap),),
        post_execute=(Named("p", look("post", lambda _r, _n: Accept())),),
        observers=(Named("o", look("observer", lambda _r: None)),),
    )
    outcome = run_tool(CALL, stations, {"echo": lambda execution, _s: echo(execution, _s)}, channel)
    assert outcome.decision == Allow()
    assert seen == [
        ("pre", CALL),
        ("pre2", CALL),
        ("channel", CALL),
        ("question", question),
        ("guard", CALL),
        ("wrapper", CALL),
        ("signal", True),
        ("post", CALL),
        ("observer", CALL),
    ]
