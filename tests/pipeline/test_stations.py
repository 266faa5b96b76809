"""The DSH stations as a Python host uses them: an in-process tool through every station."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bridge.pipeline import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    Execution,
    Named,
    PostDecision,
    PreDecision,
    ReplaceContent,
    ReplaceValue,
    Stations,
    ToolResult,
    decide,
    thaw,
)
from bridge.pipeline.execute_stage import CancelSignal, run_tool

Next = Callable[[], PreDecision]


def echo_tool(execution: Execution, signal: CancelSignal) -> ToolResult:
    text = str(execution.input["text"])
    return ToolResult(content=text, value={"echoed": text})


def boom_tool(execution: Execution, signal: CancelSignal) -> ToolResult:
    raise RuntimeError("disk on fire")


TOOLS = {"echo": echo_tool, "boom": boom_tool}
CALL = Execution.create("echo", {"text": "hi", "nested": {"list": [1, 2]}}, tool_use_id="t1")


def test_whole_pipeline_with_every_station() -> None:
    seen: list[str] = []

    def pre(execution: Execution, next_: Next) -> PreDecision:
        seen.append("pre")
        return next_()

    def guard(execution: Execution) -> str | None:
        seen.append("guard")
        return None

    def timing(
        execution: Execution, signal: CancelSignal, next_: Callable[[CancelSignal], ToolResult]
    ) -> ToolResult:
        seen.append("wrapper")
        swapped = CancelSignal()
        result = next_(swapped)
        assert not swapped.cancelled
        return result

    def post(
        execution: Execution, result: ToolResult, next_: Callable[[], PostDecision]
    ) -> PostDecision:
        seen.append("post")
        return ReplaceContent(result.content.upper(), context=("shouted",))

    observed: list[ToolResult] = []

    def observer(execution: Execution, result: ToolResult) -> None:
        seen.append("observer")
        observed.append(result)

    stations = Stations(
        pre_execute=[Named("pre", pre)],
        guards=[Named("guard", guard)],
        wrappers=[Named("timing", timing)],
        post_execute=[Named("post", post)],
        observers=[Named("observer", observer)],
    )
    outcome = run_tool(CALL, stations, TOOLS)
    assert seen == ["pre", "guard", "wrapper", "post", "observer"]
    assert outcome.decision == Allow()
    assert outcome.result is not None
    assert outcome.result.content == "HI"
    assert outcome.result.value == {"echoed": "hi"}
    assert outcome.result.context == ("shouted",)
    assert observed == [outcome.result]


def test_first_listener_that_decides_wins() -> None:
    later_ran = []

    def ask(execution: Execution, next_: Next) -> PreDecision:
        return Ask("sure?")

    def deny(execution: Execution, next_: Next) -> PreDecision:
        later_ran.append(True)
        return Deny("never reached")

    outcome = decide(CALL, Stations(pre_execute=[Named("ask", ask), Named("deny", deny)]))
    assert later_ran == []
    assert outcome.decision == Deny("approval required but no approval channel is available: sure?")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("allowed_once", Allow()),
        ("rejected", Deny("approval rejected: sure?")),
        ("cancelled", Deny("approval cancelled: sure?")),
        ("unavailable", Deny("approval required but no approval channel is available: sure?")),
        ("deferred", Ask("sure?")),
    ],
)
def test_approval_answers(answer: Any, expected: PreDecision) -> None:
    stations = Stations(pre_execute=[Named("ask", lambda execution, next_: Ask("sure?"))])
    assert decide(CALL, stations, lambda execution, ask: answer).decision == expected


def test_guard_objection_wins_over_a_deferred_question() -> None:
    stations = Stations(
        pre_execute=[Named("ask", lambda execution, next_: Ask("sure?"))],
        guards=[Named("no", lambda execution: "not this")],
    )
    assert decide(CALL, stations, lambda execution, ask: "deferred").decision == Deny(
        "[no] not this"
    )


def test_guards_run_after_a_deny_and_their_denials_join_it() -> None:
    ran = []
    stations = Stations(
        pre_execute=[Named("d", lambda execution, next_: Deny("[hook] no"))],
        guards=[
            Named("quiet", lambda execution: ran.append(1)),
            Named("g", lambda execution: "not this either"),
        ],
    )
    assert decide(CALL, stations).decision == Deny("[g] not this either\n\n[hook] no")
    assert ran == [1]


@pytest.mark.parametrize("where", ["pre", "guard", "wrapper"])
def test_a_throwing_listener_fails_closed(where: str) -> None:
    def explode(*args: Any) -> Any:
        raise ValueError("kaboom")

    stations = Stations(
        pre_execute=[Named("x", explode)] if where == "pre" else [],
        guards=[Named("x", explode)] if where == "guard" else [],
        wrappers=[Named("x", explode)] if where == "wrapper" else [],
    )
    outcome = run_tool(CALL, stations, TOOLS)
    assert outcome.result is not None and outcome.result.is_error
    assert "kaboom" in outcome.result.content
    if where != "wrapper":
        assert isinstance(outcome.decision, Deny)


def test_denial_is_materialised_and_still_flows_through_post_and_observers() -> None:
    observed: list[ToolResult] = []
    stations = Stations(
        guards=[Named("g", lambda execution: "forbidden")],
        post_execute=[Named("p", lambda execution, result, next_: Accept(("saw it",)))],
        observers=[Named("o", lambda execution, result: observed.append(result))],
    )
    outcome = run_tool(CALL, stations, TOOLS)
    assert outcome.result is not None
    assert outcome.result.content == "Error: [g] forbidden"
    assert outcome.result.post_result and outcome.result.code == "DENIED"
    assert outcome.result.context == ("saw it",)
    assert observed == [outcome.result]


def test_tool_exception_and_unknown_tool_become_error_results() -> None:
    boom = run_tool(Execution.create("boom", {}), Stations(), TOOLS).result
    assert boom is not None and boom.content == "Error: RuntimeError: disk on fire"
    assert boom.code == "TOOL_ERROR"
    unknown = run_tool(Execution.create("nope", {}), Stations(), TOOLS).result
    assert unknown is not None and unknown.code == "UNKNOWN_TOOL"
    assert unknown.content == 'Error: unknown tool "nope"'


def test_post_block_and_replace_value_rules() -> None:
    block = Stations(post_execute=[Named("b", lambda e, r, n: Block("bad output"))])
    result = run_tool(CALL, block, TOOLS).result
    assert result is not None and result.is_error and result.content == "Error: bad output"
    value = Stations(post_execute=[Named("v", lambda e, r, n: ReplaceValue({"new": 1}))])
    assert run_tool(CALL, value, TOOLS).result.value == {"new": 1}  # type: ignore[union-attr]
    on_error = run_tool(Execution.create("boom", {}), value, TOOLS).result
    assert on_error is not None and on_error.value is None  # only successes take a new value


def test_throwing_post_listener_turns_result_into_error_and_observer_failures_are_contained() -> (
    None
):
    def explode(*args: Any) -> Any:
        raise KeyError("x")

    stations = Stations(post_execute=[Named("p", explode)], observers=[Named("o", explode)])
    outcome = run_tool(CALL, stations, TOOLS)
    assert outcome.result is not None and outcome.result.is_error
    assert any(step.station == "observer" and step.outcome == "error" for step in outcome.trace)


def test_input_is_frozen() -> None:
    with pytest.raises(TypeError):
        CALL.input["text"] = "changed"  # type: ignore[index]
    with pytest.raises(TypeError):
        CALL.input["nested"]["list"] = []
    assert thaw(CALL.input) == {"text": "hi", "nested": {"list": [1, 2]}}


def test_listener_returning_garbage_denies() -> None:
    stations = Stations(pre_execute=[Named("bad", lambda e, n: "yes")])  # type: ignore[arg-type,return-value]
    assert isinstance(decide(CALL, stations).decision, Deny)


def test_a_wrapper_can_swap_in_a_cancelled_signal() -> None:
    def polite(execution: Execution, signal: CancelSignal) -> ToolResult:
        return ToolResult(content="stopped early" if signal.cancelled else "ran")

    def deadline(
        execution: Execution, signal: CancelSignal, next_: Callable[[CancelSignal], ToolResult]
    ) -> ToolResult:
        swapped = CancelSignal()
        swapped.cancel()
        return next_(swapped)

    stations = Stations(wrappers=[Named("deadline", deadline)])
    result = run_tool(Execution.create("polite", {}), stations, {"polite": polite}).result
    assert result is not None and result.content == "stopped early"
    assert run_tool(Execution.create("polite", {}), Stations(), {"polite": polite}).result == (
        ToolResult(content="ran")
    )
