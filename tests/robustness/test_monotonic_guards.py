"""Point 3: adding a guard never weakens a decision, in the pure pipeline, in the sub-hook fold,
and in a whole ccbridge configuration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.pipeline import (
    Allow,
    Ask,
    Deny,
    Execution,
    Named,
    PreDecision,
    Stations,
    decide,
)
from bridge.subhooks.fold import Judged, fold
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import Verdict
from tests.support.sandbox import Sandbox, encode, matching, pre_tool_use

STRENGTH = {Allow: 0, Ask: 1, Deny: 2}
RANK = {"none": 0, "ask": 1, "deny": 2}


def strength(decision: PreDecision) -> int:
    return STRENGTH[type(decision)]


def listener(kind: str) -> Callable[..., Any]:
    def listen(_execution: Execution, next_: Callable[[], PreDecision]) -> Any:
        if kind == "raise":
            raise RuntimeError("listener bug")
        outcomes: dict[str, Callable[[], Any]] = {
            "pass": next_,
            "allow": Allow,
            "deny": lambda: Deny("no"),
            "ask": lambda: Ask("sure?"),
            "garbage": lambda: 42,
            "override": lambda: (next_(), Allow())[1],
        }
        return outcomes[kind]()

    return listen


def guard(kind: str) -> Callable[[Execution], str | Deny | Ask | None]:
    def check(_execution: Execution) -> str | Deny | Ask | None:
        if kind == "raise":
            raise ValueError("guard bug")
        answers: dict[str, str | Deny | Ask | None] = {
            "abstain": None,
            "object": "not here",
            "empty": "",
            "deny": Deny("typed no"),
            "ask": Ask("cannot tell"),
        }
        return answers[kind]

    return check


def channel(kind: str) -> Callable[..., Any]:
    def approve(*_args: Any) -> Any:
        if kind == "raise":
            raise OSError("no terminal")
        return kind

    return approve


listeners = st.lists(
    st.sampled_from(["pass", "allow", "deny", "ask", "raise", "garbage", "override"]), max_size=5
)
GUARD_KINDS = ["abstain", "object", "empty", "deny", "ask", "raise"]
guards = st.lists(st.sampled_from(GUARD_KINDS), max_size=4)
approvals = st.sampled_from(
    ["allowed_once", "rejected", "cancelled", "unavailable", "deferred", "raise"]
)
EXECUTION = Execution.create("Bash", {"command": "ls"})


def named(kinds: list[str]) -> list[tuple[str, str]]:
    return [(f"g{i}", kind) for i, kind in enumerate(kinds)]


def stations(pre: list[str], checks: list[tuple[str, str]]) -> Stations:
    return Stations(
        pre_execute=[Named(f"l{i}", listener(k)) for i, k in enumerate(pre)],
        guards=[Named(name, guard(kind)) for name, kind in checks],
    )


@given(
    pre=listeners,
    checks=guards,
    approval=approvals,
    added=st.sampled_from(GUARD_KINDS),
    data=st.data(),
)
def test_adding_a_guard_never_weakens_decide(
    pre: list[str], checks: list[str], approval: str, added: str, data: st.DataObject
) -> None:
    before = decide(EXECUTION, stations(pre, named(checks)), channel(approval)).decision
    at = data.draw(st.integers(0, len(checks)))
    more = [*named(checks)[:at], ("added", added), *named(checks)[at:]]
    after = decide(EXECUTION, stations(pre, more), channel(approval)).decision
    assert strength(after) >= strength(before)
    if added not in ("abstain", "ask"):
        assert isinstance(after, Deny)  # a guard that objects or breaks always denies
    if added == "ask":  # a question is answered by the channel, or deferred as a question
        assert not isinstance(after, Allow) or approval == "allowed_once"
    if isinstance(before, Deny):
        assert after == before or added != "abstain"


@given(pre=listeners, checks=guards, approval=approvals, data=st.data())
def test_guard_order_never_changes_the_answer(
    pre: list[str], checks: list[str], approval: str, data: st.DataObject
) -> None:
    shuffled = data.draw(st.permutations(named(checks)))
    first = decide(EXECUTION, stations(pre, named(checks)), channel(approval)).decision
    second = decide(EXECUTION, stations(pre, list(shuffled)), channel(approval)).decision
    assert first == second  # the kind, and the reasons' text too


verdicts = st.builds(
    Verdict,
    kind=st.sampled_from(["deny", "ask", "allow", "defer", "none", "block", "failure"]),
    reason=st.text(max_size=10),
)


def judged(index: int, verdict: Verdict, ignore: bool) -> Judged:
    hook = HookSpec(
        event="PreToolUse",
        name=f"h{index}",
        where="test",
        order=index,
        command=f"h{index}",
        on_failure="ignore" if ignore else "block",
    )
    return Judged(hook, verdict)


@given(
    items=st.lists(st.tuples(verdicts, st.booleans()), max_size=6),
    extra=st.tuples(verdicts, st.booleans()),
)
def test_adding_a_sub_hook_never_weakens_the_fold(
    items: list[tuple[Verdict, bool]], extra: tuple[Verdict, bool]
) -> None:
    base = [judged(i, *item) for i, item in enumerate(items)]
    before = fold(base, {}).rank
    after = fold([*base, judged(len(base), *extra)], {}).rank
    assert RANK[after] >= RANK[before]


GUARDS = {
    "abstain": "def guard(execution):\n    return None\n",
    "object": "def guard(execution):\n    return 'the added guard objects'\n",
    "raise": "def guard(execution):\n    raise RuntimeError('guard bug')\n",
}


@pytest.mark.parametrize("hook_says", ["deny", "ask", "allow", "none"])
@pytest.mark.parametrize("added", sorted(GUARDS))
def test_adding_a_guard_policy_never_weakens_a_config(
    sandbox: Sandbox, hook_says: str, added: str
) -> None:
    body = (
        "exit 0"
        if hook_says == "none"
        else (
            'printf \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
            f'"permissionDecision":"{hook_says}","permissionDecisionReason":"r"}}}}\''
        )
    )
    hooks = matching([{"type": "command", "command": str(sandbox.script("hook.sh", body))}])
    policy = sandbox.root / f"guard_{added}.py"
    policy.write_text(GUARDS[added], encoding="utf-8")
    event = encode(pre_tool_use())
    before = sandbox.call(sandbox.write_config(hooks, name="plain.yaml"), event)
    after = sandbox.call(
        sandbox.write_config(hooks, name="guarded.yaml", policies={"guards": [f"{policy}:guard"]}),
        event,
    )
    assert RANK[after.decision] >= RANK[before.decision]
    if added != "abstain":
        assert (after.exit_code, after.decision) == (2, "deny")
