"""`explain` consults every guard (`every_guard`), also after a denial: the decision is the
one `run` makes, and the trace holds each guard's verdict, those `run` never asks marked."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bridge.pipeline import Allow, Ask, Deny, Execution, Named, Stations, decide
from bridge.pipeline.stations import AFTER_DENY

CALL = Execution.create("echo", {"text": "hi"}, tool_use_id="t1")
VERDICTS = st.sampled_from(["abstain", "ask", "deny", "raise"])


def guard(kind: str, index: int) -> Named[Any]:
    def judge(execution: Execution) -> Any:
        if kind == "raise":
            raise RuntimeError(f"broken {index}")
        return {"abstain": None, "ask": Ask(f"q{index}"), "deny": Deny(f"no{index}")}[kind]

    return Named(f"g{index}", judge)


@given(st.lists(VERDICTS, max_size=6), st.sampled_from(["allow", "deny", "none"]))
def test_every_guard_changes_no_decision_and_shows_each_verdict(
    kinds: list[str], first: str
) -> None:
    pre = {"allow": Allow(), "deny": Deny("pre"), "none": None}[first]
    stations = Stations(
        pre_execute=[Named("p", lambda execution, next_: pre or next_())],
        guards=[guard(kind, i) for i, kind in enumerate(kinds)],
    )
    plain, every = decide(CALL, stations), decide(CALL, stations, every_guard=True)
    assert every.decision == plain.decision
    shown = [step for step in every.trace if step.station == "guard"]
    assert [step.name for step in shown] == [f"g{i}" for i in range(len(kinds))]
    expected = ["error" if kind == "raise" else kind for kind in kinds]
    assert [step.outcome for step in shown] == expected
    asked = [step for step in plain.trace if step.station == "guard"]
    # what run consulted is unmarked and the same; the rest is marked as never asked by run
    assert shown[: len(asked)] == asked
    assert all(step.detail.startswith(AFTER_DENY) for step in shown[len(asked) :])
