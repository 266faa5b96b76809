"""The semantic-mutant runner itself: every listed mutant still applies to the tree (checked on
every run of the suite, without judging the list), a snippet that is gone is an error naming
the mutant and the file, and a small list judged in a scratch copy is reported as it is (a
mutant seen only by the spawned `ccbridge` is caught, a harmless one survives) without touching
the working tree."""

from __future__ import annotations

import pytest

from tests.mutation import semantic
from tests.mutation.mutants import MUTANTS
from tests.mutation.semantic import ROOT, Mutant, MutantError

STOP_ANSWER = "tests/test_hookcall_failures.py::test_the_failure_answer_of_each_event[Stop]"
SPAWNED = "tests/test_hookcall.py::test_other_events_get_no_decision"


def test_every_mutant_applies_to_the_tree_and_names_existing_tests() -> None:
    semantic.check(MUTANTS)
    assert len(MUTANTS) >= 12


def gone(find: str = "no such text anywhere") -> Mutant:
    return Mutant("gone", "bridge/main.py", find, "x", (STOP_ANSWER,), "nothing")


def test_a_snippet_that_is_gone_is_an_error_naming_mutant_and_file() -> None:
    with pytest.raises(MutantError, match=r"^mutant gone: snippet not found in bridge/main\.py$"):
        semantic.judge([gone()])  # refused before any scratch copy is made


def test_a_snippet_found_twice_is_an_error() -> None:
    with pytest.raises(MutantError, match=r"^mutant gone: snippet found \d+ times in bridge/main"):
        semantic.check([gone("import ")])


def test_tests_that_do_not_exist_are_an_error() -> None:
    mutant = Mutant("lost", "bridge/main.py", "RUN_USAGE = ", "RUN_USAGE=", ("tests/nope.py",), "")
    with pytest.raises(MutantError, match=r"^mutant lost: no test file tests/nope\.py$"):
        semantic.check([mutant])


def test_a_caught_and_a_surviving_mutant_are_reported_as_such() -> None:
    spawned_only = Mutant(  # bridge/__main__.py runs only in the `ccbridge` processes
        "exits-1", "bridge/__main__.py", "sys.exit(main())", "sys.exit(1)", (SPAWNED,), "all"
    )
    harmless = Mutant(
        "comment",
        "bridge/hookcall.py",
        "    # Nothing to stop, or",
        "    # (a changed comment) Nothing to stop, or",
        (STOP_ANSWER,),
        "nothing",
    )
    before = {
        path: (ROOT / path).read_bytes() for path in ("bridge/__main__.py", "bridge/hookcall.py")
    }
    results = semantic.judge([spawned_only, harmless])
    assert [(r.mutant.name, r.outcome, r.caught_by) for r in results] == [
        ("exits-1", "caught", SPAWNED),
        ("comment", "survived", ""),
    ]
    assert {path: (ROOT / path).read_bytes() for path in before} == before
    assert semantic.exit_status(results) == 1
    assert semantic.exit_status(results[:1]) == 0
    shown = semantic.table(results)
    assert "exits-1" in shown and "1 / 2 caught (50%)" in shown
