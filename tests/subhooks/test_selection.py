"""Which handlers run: identical handlers once, with their strictest settings in any order."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.subhooks.fold import Judged, fold
from bridge.subhooks.selection import select
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import Verdict


def copy(order: int, on_failure: str = "block", timeout: float = 20.0, **extra: str) -> HookSpec:
    fields = {"name": "check.sh", "command": "check.sh", "where": f"cfg.yaml:{order}", **extra}
    return HookSpec(
        event="PreToolUse",
        order=order,
        on_failure=on_failure,  # type: ignore[arg-type]
        timeout=timeout,
        **fields,  # type: ignore[arg-type]
    )


copies = st.lists(
    st.tuples(st.sampled_from(["block", "ignore"]), st.sampled_from([0.5, 5.0, 20.0])),
    min_size=1,
    max_size=5,
)


@given(copies, st.data())
def test_identical_handlers_run_once_with_the_strictest_settings(
    settings: list[tuple[str, float]], data: st.DataObject
) -> None:
    hooks = [copy(order, *item) for order, item in enumerate(settings)]
    order = data.draw(st.permutations(range(len(hooks))))
    runs = {
        tuple(hook for hook, hit in select([hooks[i] for i in arrangement], "Bash", {}) if hit)
        for arrangement in (range(len(hooks)), order)
    }
    assert len(runs) == 1, "the copies' order changed what runs"
    (chosen,) = runs.pop()
    blocks = any(on_failure == "block" for on_failure, _ in settings)
    assert chosen.on_failure == ("block" if blocks else "ignore")
    assert chosen.timeout == min(timeout for _, timeout in settings)
    assert chosen.order == 0
    # The failure of the one run folds as the strictest copy says: deny if any copy blocks.
    folded = fold([Judged(chosen, Verdict("failure", reason="exit 1"))], {})
    assert folded.rank == ("deny" if blocks else "none")


def test_an_ignoring_copy_first_does_not_hide_a_blocking_one() -> None:
    hooks = [copy(0, "ignore", 30.0), copy(1, "block", 5.0)]
    assert [(hook.on_failure, hook.timeout, hit) for hook, hit in select(hooks, "Bash", {})] == [
        ("block", 5.0, True),  # the first copy stands for both, with the strictest settings
        ("block", 5.0, False),  # the second, as configured, is listed as not run
    ]


def test_handlers_that_differ_all_run() -> None:
    hooks = [
        copy(0),
        copy(1, command="other.sh"),
        copy(2, if_rule="Bash(git *)"),
        copy(3, shell="bash"),
        copy(4, matcher="Write", command="four.sh"),
        copy(5, matcher="Bash", command="five.sh"),
    ]
    hits = [hit for _hook, hit in select(hooks, "Bash", {"command": "git status"})]
    assert hits == [True, True, True, True, False, True]
    hits = [hit for _hook, hit in select(hooks, "Bash", {"command": "echo hi"})]
    assert hits == [True, True, False, True, False, True]


def test_the_merged_copy_is_first_in_config_order_and_named_by_the_least_name() -> None:
    late = copy(7, where="a.yaml:1")
    early = copy(2, where="b.yaml:9")
    ((chosen, hit), _) = select([late, early], "Bash", {})
    assert (hit, chosen.order, chosen.where) == (True, 2, "a.yaml:1")


@pytest.mark.parametrize("args", [None, ("a", "b c")])
def test_a_spec_survives_the_compiled_config_cache(args: tuple[str, ...] | None) -> None:
    spec = copy(3, "ignore", 2.5, if_rule="Bash(git *)", args=args)  # type: ignore[arg-type]
    assert HookSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec
