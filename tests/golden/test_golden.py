"""The golden files: every case under fixtures/ through the real `ccbridge run` executable.

Re-record on purpose with `scripts/record-golden` and review the diff. The recorded files come
from the code, so each run and each recorded file is also checked, every field of the answer,
against an oracle written from the protocol and the README (tests/support/fold_spec.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    actual = outcome.actual
    assert "Traceback" not in actual.stderr
    assert actual.exit_code in (0, 2)
    # The run itself, stderr included, against the protocol: not only against expected.json.
    problems = fold_spec.check(
        fold_spec.CASES[path.name], actual.stdout, actual.exit_code, actual.stderr
    )
    assert not problems, "\n".join(problems)


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


@pytest.mark.parametrize("path", CASES, ids=[path.name for path in CASES])
def test_golden_case_agrees_with_the_oracle(path: Path) -> None:
    """The recorded answer, every field of it: what a re-recording after a bug would write
    must still agree with the protocol."""
    recorded = json.loads((path / "expected.json").read_text(encoding="utf-8"))
    problems = fold_spec.check(
        fold_spec.CASES[path.name], recorded["stdout"], recorded["exit_code"]
    )
    assert not problems, "\n".join(problems)


def test_the_oracle_table_is_read_from_the_case_files() -> None:
    """Every text the oracle says a hook gives is in the case's config or the hook scripts, and
    every hook name in it is a name in the config: the table describes the cases, it is not
    made up beside them."""
    scripts = "".join(path.read_text(encoding="utf-8") for path in (FIXTURES / "_hooks").iterdir())
    for path in CASES:
        config = "".join(
            (path / name).read_text(encoding="utf-8")
            for name in ("config.yaml", "settings.json")
            if (path / name).is_file()
        )
        for hook in fold_spec.CASES[path.name].ran:
            assert re.search(rf"name\W+{re.escape(hook.name)}\b", config), (path.name, hook.name)
            for text in (hook.says, hook.context, hook.plain, hook.message):
                if text is not None and text != fold_spec.LONG:
                    assert text in config or text in scripts, (path.name, text)
