"""The fold: strictest first, and the same answer, byte for byte, whatever the order."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bridge.subhooks.fold import Judged, fold, input_diff
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import Verdict

KINDS = ["deny", "ask", "allow", "defer", "none", "failure"]


def judged(
    name: str,
    kind: str,
    reason: str = "",
    on_failure: str = "block",
    order: int = 0,
    **extra: object,
) -> Judged:
    hook = HookSpec(
        event="PreToolUse",
        name=name,
        where="test",
        order=order,
        command=name,
        on_failure=on_failure,  # type: ignore[arg-type]
    )
    return Judged(hook, Verdict(kind, reason=reason, **extra))  # type: ignore[arg-type]


verdicts = st.lists(
    st.builds(
        judged,
        name=st.sampled_from(["a", "b", "c", "d"]),
        kind=st.sampled_from(KINDS),
        reason=st.text(max_size=8),
        on_failure=st.sampled_from(["block", "ignore"]),
        order=st.integers(0, 20),
    ),
    max_size=8,
)


@given(verdicts, st.randoms())
def test_order_independent(items: list[Judged], random: object) -> None:
    shuffled = list(items)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    first, second = fold(items, {}), fold(shuffled, {})
    assert (first.rank, first.reason) == (second.rank, second.reason)
    assert first.contexts == second.contexts  # config order, not list order


@given(verdicts)
def test_strictest_wins(items: list[Judged]) -> None:
    kinds = {item.verdict.kind for item in items}
    failing = any(i.verdict.kind == "failure" and i.hook.on_failure == "block" for i in items)
    expected = (
        "deny" if "deny" in kinds or failing else "ask" if kinds & {"ask", "defer"} else "none"
    )
    assert fold(items, {}).rank == expected


@example([judged("yes", "allow", "looks fine")])
@given(verdicts)
def test_allow_never_survives(items: list[Judged]) -> None:
    """An allow weighs nothing: the fold is the fold without it (no rank, no reason of its
    own), and it is recorded as downgraded."""
    folded = fold(items, {})
    without = fold([item for item in items if item.verdict.kind != "allow"], {})
    assert (folded.rank, folded.reason) == (without.rank, without.reason)
    in_config_order = sorted(items, key=lambda item: item.hook.order)
    assert folded.downgraded == tuple(
        item.hook.name for item in in_config_order if item.verdict.kind == "allow"
    )


def test_only_winning_rank_reasons_sorted() -> None:
    items = [
        judged("z", "deny", "zed"),
        judged("a", "ask", "ay"),
        judged("b", "deny", "bee"),
        judged("c", "failure", "exit 1"),
    ]
    assert fold(items, {}).reason == "[b] bee\n\n[c] failed: exit 1\n\n[z] zed"


def test_ignored_failure_is_told_not_denied() -> None:
    folded = fold([judged("opt", "failure", "exited with code 1", on_failure="ignore")], {})
    assert folded.rank == "none"
    assert folded.ignored_failures == ("opt",)
    assert "ignored" in folded.system_messages[0]


def test_rewrites_recorded_with_diff() -> None:
    item = judged("rw", "allow", updated_input={"command": "rm -rf /", "timeout": 5})
    folded = fold([item], {"command": "ls", "description": "list"})
    assert folded.rank == "none"
    assert folded.rewrites[0].diff == {
        "command": {"from": "ls", "to": "rm -rf /"},
        "description": {"from": "list", "to": None},
        "timeout": {"from": None, "to": 5},
    }


def test_contexts_in_config_order_and_capped() -> None:
    items = [
        judged("late", "none", order=2, context="two"),
        judged("early", "none", order=1, context="one"),
    ]
    assert fold(items, {}).contexts == ("one\n\ntwo",)
    huge = [judged("big", "none", context="x" * 20_000)]
    assert len(fold(huge, {}).contexts[0]) == 10_000


def test_input_diff_empty_when_same() -> None:
    assert input_diff({"a": 1}, {"a": 1}) == {}


@pytest.mark.parametrize(
    ("kind", "rank"),
    [("deny", "deny"), ("block", "deny"), ("ask", "ask"), ("defer", "ask"), ("allow", "none")],
)
def test_each_kind_alone_folds_to_its_rank(kind: str, rank: str) -> None:
    assert fold([judged("h", kind, "why")], {}).rank == rank


def test_no_opinion_carries_no_reason_and_no_empty_texts() -> None:
    folded = fold([judged("h", "allow", "looks fine"), judged("i", "none", "ok")], {})
    assert (folded.rank, folded.reason) == ("none", "")
    assert (folded.contexts, folded.system_messages, folded.stop_reason) == ((), (), None)


def test_only_failures_of_ignoring_hooks_are_ignored_failures() -> None:
    items = [
        judged("opt", "deny", "no", on_failure="ignore"),
        judged("strict", "failure", "exit 1"),
        judged("told", "none", order=1, system_message="hello"),
        judged("quiet", "failure", "exit 3", on_failure="ignore", order=2),
    ]
    folded = fold(items, {})
    assert folded.ignored_failures == ("quiet",)
    assert folded.system_messages == (
        "hello\n\nccbridge: [quiet] failed: exit 3 (ignored: onFailure is 'ignore')",
    )


def test_stop_reasons_are_joined_in_order() -> None:
    items = [judged("b", "none", stop_reason="zed"), judged("a", "none", stop_reason="ay")]
    assert fold(items, {}).stop_reason == "ay\n\nzed"


def test_a_rewrite_names_its_hook() -> None:
    folded = fold([judged("rw", "none", updated_input={"command": "x"})], {"command": "ls"})
    assert [rewrite.hook for rewrite in folded.rewrites] == ["rw"]


def test_a_context_of_exactly_the_limit_is_kept_whole() -> None:
    assert fold([judged("h", "none", context="x" * 10_000)], {}).contexts == ("x" * 10_000,)
