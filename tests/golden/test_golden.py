"""The golden files: every case under fixtures/ through the real `ccbridge run` executable.

Re-record on purpose with `scripts/record-golden` and review the diff. The recorded files come
from the code, so each is also checked against an oracle written from the protocol and the
README (tests/support/fold_spec.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bridge.commands.cases import check_case, discover, load_case
from tests.support import REPO, fold_spec

FIXTURES = REPO / "fixtures"
CASES = discover([FIXTURES])


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("path", CASES, ids=[path.name for path in CASES])
def test_golden_case(path: Path) -> None:
    outcome = check_case(load_case(path))
    assert outcome.passed, "\n".join(outcome.mismatches)
    assert "Traceback" not in outcome.actual.stderr
    assert outcome.actual.exit_code in (0, 2)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("pre-allow-then-deny", "pre-deny-then-allow"),
        ("pre-two-denies-order-a", "pre-two-denies-order-b"),
    ],
)
def test_config_order_does_not_change_the_answer(first: str, second: str) -> None:
    a, b = (check_case(load_case(FIXTURES / name)).actual for name in (first, second))
    assert (a.stdout, a.exit_code) == (b.stdout, b.exit_code)


def test_every_golden_case_is_in_the_oracle() -> None:
    assert sorted(path.name for path in CASES) == sorted(fold_spec.CASES)


def keys_and_values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [part for key, item in value.items() for part in (key, *keys_and_values(item))]
    if isinstance(value, list):
        return [part for item in value for part in keys_and_values(item)]
    return [value]


@pytest.mark.parametrize("path", CASES, ids=[path.name for path in CASES])
def test_golden_case_agrees_with_the_oracle(path: Path) -> None:
    want = fold_spec.expected(fold_spec.CASES[path.name])
    recorded = json.loads((path / "expected.json").read_text(encoding="utf-8"))
    stdout = recorded["stdout"] or {}
    specific = stdout.get("hookSpecificOutput", {})
    permission = specific.get("decision") or {}  # PermissionRequest's answer
    answer = (
        specific.get("permissionDecision")
        or permission.get("behavior")
        or stdout.get("decision")
        or "none"
    )
    assert (answer, recorded["exit_code"]) == (want.answer, want.exit_code)
    # README: these are never emitted, whatever a sub-hook said.
    emitted = keys_and_values(stdout)
    for never in ("allow", "defer", "approve", "updatedInput", "updatedToolOutput"):
        assert never not in emitted
    reason = (
        specific.get("permissionDecisionReason")
        or permission.get("message")
        or stdout.get("reason")
        or ""
    )
    if want.names:  # the winning rank's hooks, each once, as "[name] reason", sorted
        paragraphs = reason.split("\n\n")
        assert paragraphs == sorted(paragraphs)
        assert sorted(re.findall(r"\[([\w-]+)\]", reason)) == sorted(want.names)
    elif want.answer != "none":  # nothing was judged: ccbridge says why in its own name
        assert reason.startswith("ccbridge"), reason
