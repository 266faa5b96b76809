"""Every guard is consulted, also after a denial (by a guard, a listener or a sub-hook): the
answer keeps every reason of the winning rank, sorted, so neither its kind nor its text
depends on the order of the guards."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bridge.pipeline import Allow, Ask, Deny, Execution, Named, Stations, decide

CALL = Execution.create("echo", {"text": "hi"}, tool_use_id="t1")
VERDICTS = st.sampled_from(["abstain", "ask", "deny", "raise"])


def guard(kind: str, index: int) -> Named[Any]:
    def judge(execution: Execution) -> Any:
        if kind == "raise":
            raise RuntimeError(f"broken {index}")
        return {"abstain": None, "ask": Ask(f"q{index}"), "deny": Deny(f"no{index}")}[kind]

    return Named(f"g{index}", judge)


def stations(first: str, guards: list[Named[Any]]) -> Stations:
    pre = {"allow": Allow(), "deny": Deny("[hook] pre"), "none": None}[first]
    return Stations(
        pre_execute=[Named("p", lambda execution, next_: pre or next_())], guards=guards
    )


@given(st.lists(VERDICTS, max_size=6), st.sampled_from(["allow", "deny", "none"]), st.data())
def test_every_denial_is_in_the_answer_whatever_the_order(
    kinds: list[str], first: str, data: st.DataObject
) -> None:
    guards = [guard(kind, i) for i, kind in enumerate(kinds)]
    outcome = decide(CALL, stations(first, guards))
    shown = [step for step in outcome.trace if step.station == "guard"]
    assert [step.name for step in shown] == [f"g{i}" for i in range(len(kinds))]
    assert [step.outcome for step in shown] == ["error" if k == "raise" else k for k in kinds]
    denials = [f"[g{i}] no{i}" for i, k in enumerate(kinds) if k == "deny"]
    denials += [
        f"[g{i}] failed: RuntimeError: broken {i}" for i, k in enumerate(kinds) if k == "raise"
    ]
    denials += ["[hook] pre"] if first == "deny" else []
    if denials:
        assert outcome.decision == Deny("\n\n".join(sorted(denials)))
    shuffled = data.draw(st.permutations(guards))
    assert decide(CALL, stations(first, list(shuffled))).decision == outcome.decision
