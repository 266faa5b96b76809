"""The golden files: every case under fixtures/ through the real `ccbridge run` executable.

Re-record on purpose with `scripts/record-golden` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.fixtures import check_case, discover, load_case

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
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
