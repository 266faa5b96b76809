"""DSH's execute stage: the tool's body inside its wrappers, and `run_tool`, the whole pipeline
for a host that runs its own tools.

Kept for the spec (docs/spec/dsh-pipeline.md): every agent ccbridge serves runs its tools itself,
so ccbridge never calls it and no hook call imports this module. It is the one place the stations
stand whole, and the pipeline's laws (a denial becomes an `Error:` result that still flows through
post-execute and the observers; a throwing wrapper fails closed) are tested through it
(tests/pipeline/test_trace.py).
"""

from collections.abc import Callable, Mapping, Sequence

from bridge.pipeline.decisions import Ask, Deny
from bridge.pipeline.execution import Execution, ToolResult
from bridge.pipeline.stations import (
    ApprovalChannel,
    Named,
    Outcome,
    Stations,
    Step,
    decide,
    denial_result,
    describe,
    finish,
)


class CancelSignal:
    """Cooperative cancellation handed down the execute waterfall."""

    __slots__ = ("_cancelled",)

    def __init__(self) -> None:
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._cancelled


Tool = Callable[[Execution, CancelSignal], ToolResult]
Wrapper = Callable[[Execution, CancelSignal, Callable[[CancelSignal], ToolResult]], ToolResult]


def error_result(message: str, code: str) -> ToolResult:
    return ToolResult(content=f"Error: {message}", is_error=True, code=code)


def _execute(
    execution: Execution,
    tools: Mapping[str, Tool],
    wrappers: Sequence[Named[Wrapper]],
    trace: list[Step],
) -> ToolResult:
    body = tools.get(execution.tool_name)
    if body is None:
        trace.append(Step("execute", execution.tool_name, "unknown"))
        return error_result(f'unknown tool "{execution.tool_name}"', "UNKNOWN_TOOL")

    def call(index: int, signal: CancelSignal) -> ToolResult:
        if index == len(wrappers):
            return body(execution, signal)
        return wrappers[index].fn(execution, signal, lambda swapped: call(index + 1, swapped))

    try:
        result = call(0, CancelSignal())
    except Exception as error:
        trace.append(Step("execute", execution.tool_name, "error", describe(error)))
        return error_result(describe(error), "TOOL_ERROR")
    trace.append(Step("execute", execution.tool_name, "error" if result.is_error else "ok"))
    return result


def run_tool(
    execution: Execution,
    stations: Stations,
    tools: Mapping[str, Tool],
    approval: ApprovalChannel | None = None,
) -> Outcome:
    """Every station in order: decide, then the tool (or its denial as a result), then finish."""
    verdict = decide(execution, stations, approval)
    trace = list(verdict.trace)
    decision = verdict.decision
    if isinstance(decision, Ask):  # an in-process host has nobody to defer to
        decision = Deny(f"approval was deferred but this host cannot ask: {decision.reason}")
    if isinstance(decision, Deny):
        result = denial_result(decision.reason)
    else:
        result = _execute(execution, tools, stations.wrappers, trace)
    final, post_trace = finish(execution, result, stations)
    return Outcome(decision=decision, result=final, trace=(*trace, *post_trace))
