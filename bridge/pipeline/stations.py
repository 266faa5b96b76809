"""The stations of one tool call, as pure functions over listeners the host supplies.

`decide` runs pre-execute, approval and guards (all a hook host like Claude Code needs before
the tool runs); `finish` runs post-execute and the observers on a result. Each returns a trace
of `Step`s.

DSH's execute stage (the tool body and its wrappers) is bridge.pipeline.execute_stage: every
agent ccbridge serves runs its tools itself, so no hook call imports it.
"""

# `_collections_abc`, not `collections.abc`: the hot path, docs/architecture.md.
from _collections_abc import Callable

from bridge.pipeline.decisions import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    PostDecision,
    PreDecision,
    ReplaceContent,
    ReplaceValue,
)
from bridge.pipeline.execution import Execution, ToolResult
from bridge.pipeline.valueclass import Record, field, replace

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Sequence
    from typing import Generic, Literal, TypeVar

    from bridge.pipeline.execute_stage import Wrapper

    F = TypeVar("F")
    # "deferred": the host asks the user itself after we answer (Claude Code's permission prompt).
    Approval = Literal["allowed_once", "rejected", "cancelled", "unavailable", "deferred"]
else:

    class Generic:
        """At run time `Named[...]` only has to be subscriptable (in annotations and aliases)."""

        __slots__ = ()

        def __class_getitem__(cls, _item: object) -> "type":
            return cls

    F = None
    Approval = str


class Named(Record, Generic[F], frozen=True, slots=True):
    """A listener with the name the trace and the audit know it by."""

    name: str
    fn: "F"


PreListener = Callable[[Execution, Callable[[], PreDecision]], PreDecision]
# A guard's answer: None abstains; a reason (a plain string or `Deny(reason)`) denies; `Ask(reason)`
# asks the user (for what only the run would tell). It can never allow.
Guard = Callable[[Execution], str | Deny | Ask | None]
PostListener = Callable[[Execution, ToolResult, Callable[[], PostDecision]], PostDecision]
Observer = Callable[[Execution, ToolResult], None]

ApprovalChannel = Callable[[Execution, Ask], Approval]


class Stations(Record, frozen=True):
    pre_execute: "Sequence[Named[PreListener]]" = ()
    guards: "Sequence[Named[Guard]]" = ()
    wrappers: "Sequence[Named[Wrapper]]" = ()
    post_execute: "Sequence[Named[PostListener]]" = ()
    observers: "Sequence[Named[Observer]]" = ()


class Step(Record, frozen=True, slots=True):
    """One station's word on the call, for the trace."""

    station: str
    name: str
    outcome: str
    detail: str = ""


class Outcome(Record, frozen=True):
    decision: "PreDecision"
    result: "ToolResult | None" = None
    trace: "tuple[Step, ...]" = field(default=())


def describe(error: "BaseException") -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _pre_execute(
    execution: "Execution", listeners: "Sequence[Named[PreListener]]", trace: "list[Step]"
) -> "PreDecision":
    def call(index: int) -> "PreDecision":
        if index == len(listeners):
            return Allow()
        listener = listeners[index]
        handed_on = False

        def next_() -> "PreDecision":
            nonlocal handed_on
            handed_on = True
            return call(index + 1)

        try:
            decision = listener.fn(execution, next_)
        except Exception as error:  # a listener that throws denies: fail closed
            trace.append(Step("pre_execute", listener.name, "error", describe(error)))
            return Deny(f"pre-execute listener {listener.name} failed: {describe(error)}")
        if not isinstance(decision, Allow | Deny | Ask):
            trace.append(Step("pre_execute", listener.name, "error", repr(decision)))
            return Deny(f"pre-execute listener {listener.name} returned {decision!r}")
        if not handed_on:
            trace.append(Step("pre_execute", listener.name, _kind(decision), _reason(decision)))
        return decision

    return call(0)


def _kind(decision: "PreDecision") -> str:
    return type(decision).__name__.lower()


def _reason(decision: "PreDecision") -> str:
    return "" if isinstance(decision, Allow) else decision.reason


def _approve(
    execution: "Execution", ask: "Ask", channel: "ApprovalChannel | None", trace: "list[Step]"
) -> "PreDecision":
    if channel is None:
        answer: Approval = "unavailable"
    else:
        try:
            answer = channel(execution, ask)
        except Exception as error:
            trace.append(Step("approval", "channel", "error", describe(error)))
            answer = "unavailable"
    trace.append(Step("approval", "channel", answer, ask.reason))
    if answer == "allowed_once":
        return Allow()
    if answer == "deferred":
        return ask
    why = f": {ask.reason}" if ask.reason else ""
    if answer == "unavailable":
        return Deny(f"approval required but no approval channel is available{why}")
    return Deny(f"approval {answer}{why}")


def _guard(
    execution: "Execution", guards: "Sequence[Named[Guard]]", trace: "list[Step]"
) -> "tuple[list[str], list[str]]":
    """The guards' word: (every denial, every question), each reason sorted.

    Every guard is consulted, also after one denies: the answer names each cause (`rm -rf ~`
    is both a write to protected files and the deletion of a home directory), and as guards
    can only deny or ask, neither the answer's kind nor its text depends on their order. Each
    reason starts with `[guard name]`, as a sub-hook's does, so whoever reads it (the model,
    the audit, the user at the prompt) can tell who objected."""
    questions: list[str] = []
    denials: list[str] = []
    for guard in guards:
        denial = _one_guard(execution, guard, trace, questions)
        if denial is not None:
            denials.append(denial.reason)
    return sorted(denials), sorted(questions)


def _joined(reasons: "Sequence[str]") -> str:
    return "\n\n".join(sorted(reasons))


def _one_guard(
    execution: "Execution", guard: "Named[Guard]", trace: "list[Step]", questions: "list[str]"
) -> "Deny | None":
    """One guard's verdict into `trace` (a question into `questions`); its denial, if any."""
    try:
        objection = guard.fn(execution)
    except Exception as error:
        trace.append(Step("guard", guard.name, "error", describe(error)))
        return Deny(f"[{guard.name}] failed: {describe(error)}")
    if objection is None:
        trace.append(Step("guard", guard.name, "abstain"))
    elif isinstance(objection, Ask):
        question = objection.reason or "asked"
        trace.append(Step("guard", guard.name, "ask", question))
        questions.append(f"[{guard.name}] {question}")
    elif isinstance(objection, Allow):  # a guard that tries to allow is a broken guard
        trace.append(Step("guard", guard.name, "error", "returned Allow()"))
        return Deny(f"[{guard.name}] returned Allow(), but a guard can only deny or ask")
    else:
        text = objection.reason if isinstance(objection, Deny) else str(objection)
        reason = text or "objected"
        trace.append(Step("guard", guard.name, "deny", reason))
        return Deny(f"[{guard.name}] {reason}")
    return None


def decide(
    execution: "Execution",
    stations: "Stations",
    approval: "ApprovalChannel | None" = None,
) -> "Outcome":
    """Pre-execute, approval, guards: may this call run?

    The guards run whatever came before: their denials join an earlier one (the reasons of the
    winning rank are all kept, sorted), and on an `Ask` whose approval is deferred to the host
    (had the host approved, they would run next) a guard's objection wins over the pending
    question. A guard's own question goes to the approval channel as a listener's does; when a
    question is already deferred to the host, the guards' reasons join it (one prompt, every
    reason).
    """
    trace: list[Step] = []
    decision = _pre_execute(execution, stations.pre_execute, trace)
    if isinstance(decision, Ask):
        decision = _approve(execution, decision, approval, trace)
    denials, questions = _guard(execution, stations.guards, trace)
    if isinstance(decision, Deny):
        if denials:
            decision = Deny(_joined([decision.reason, *denials]))
    elif denials:
        decision = Deny(_joined(denials))
    elif questions and isinstance(decision, Ask):
        decision = Ask("\n\n".join(r for r in (decision.reason, _joined(questions)) if r))
    elif questions:
        decision = _approve(execution, Ask(_joined(questions)), approval, trace)
    return Outcome(decision=decision, trace=tuple(trace))


def denial_result(reason: str) -> "ToolResult":
    """A denial materialised as a result: the body never ran, the rest of the pipeline sees it."""
    return ToolResult(content=f"Error: {reason}", is_error=True, code="DENIED", post_result=True)


def _apply(result: "ToolResult", decision: "PostDecision") -> "ToolResult":
    context = result.context + decision.context
    if isinstance(decision, Block):
        return replace(
            result,
            content=f"Error: {decision.reason}",
            is_error=True,
            code="BLOCKED",
            context=context,
        )
    if isinstance(decision, ReplaceContent):
        return replace(result, content=decision.content, context=context)
    if isinstance(decision, ReplaceValue) and not result.is_error:
        return replace(result, value=decision.value, context=context)
    return replace(result, context=context)


def _post_execute(
    execution: "Execution",
    result: "ToolResult",
    listeners: "Sequence[Named[PostListener]]",
    trace: "list[Step]",
) -> "ToolResult":
    def call(index: int) -> "PostDecision":
        if index == len(listeners):
            return Accept()
        listener = listeners[index]
        try:
            decision = listener.fn(execution, result, lambda: call(index + 1))
        except Exception as error:  # a post listener that throws turns the result into an error
            trace.append(Step("post_execute", listener.name, "error", describe(error)))
            return Block(f"post-execute listener {listener.name} failed: {describe(error)}")
        if not isinstance(decision, Accept | ReplaceContent | ReplaceValue | Block):
            trace.append(Step("post_execute", listener.name, "error", repr(decision)))
            return Block(f"post-execute listener {listener.name} returned {decision!r}")
        trace.append(
            Step(
                "post_execute",
                listener.name,
                type(decision).__name__.lower(),
                decision.reason if isinstance(decision, Block) else "",
            )
        )
        return decision

    return _apply(result, call(0))


def _observe(
    execution: "Execution",
    result: "ToolResult",
    observers: "Sequence[Named[Observer]]",
    trace: "list[Step]",
) -> None:
    for observer in observers:
        try:
            observer.fn(execution, result)
        except Exception as error:  # contained: an observer can never change the outcome
            trace.append(Step("observer", observer.name, "error", describe(error)))
        else:
            trace.append(Step("observer", observer.name, "ok"))


def finish(
    execution: "Execution", result: "ToolResult", stations: "Stations"
) -> "tuple[ToolResult, tuple[Step, ...]]":
    """Post-execute and observers on a result (a real one or a materialised denial)."""
    trace: list[Step] = []
    final = _post_execute(execution, result, stations.post_execute, trace)
    _observe(execution, final, stations.observers, trace)
    return final, tuple(trace)
