"""docs/guarantees.md is read one claim at a time: each table row is short enough to read in
one go and names beside its claim the tests that prove it."""

from __future__ import annotations

import re

from tests.support import REPO

PAGE = REPO / "docs" / "guarantees.md"
LONGEST = 1000  # characters: past this a row holds several claims and should be split
TEST = re.compile(r"`[^`]*(?:test_[a-z0-9_]+|tests/[^`]+)[^`]*`")


def rows(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every table row but a header and its rule."""
    lines = text.splitlines()
    return [
        (number, line)
        for number, line in enumerate(lines, 1)
        if line.startswith("|")
        and not set(line) <= set("|- ")
        and not (number < len(lines) and set(lines[number]) <= set("|- "))
    ]


def too_long(text: str) -> list[str]:
    return [f"line {n}: {len(line)} characters" for n, line in rows(text) if len(line) > LONGEST]


def without_a_test(text: str) -> list[str]:
    """Rows whose last cell names no test (a `test_…` name or a `tests/…` path)."""
    return [
        f"line {n}" for n, line in rows(text) if not TEST.search(line.rstrip(" |").split(" | ")[-1])
    ]


def test_no_row_of_the_guarantees_is_longer_than_a_claim() -> None:
    assert too_long(PAGE.read_text(encoding="utf-8")) == []


def test_every_row_of_the_guarantees_names_its_tests() -> None:
    assert without_a_test(PAGE.read_text(encoding="utf-8")) == []


def test_a_long_row_and_a_row_without_tests_are_found() -> None:
    page = (
        "| Guarantee | Test |\n| --- | --- |\n"
        f"| {'a claim, ' * 120}| `test_x` |\n"
        "| a claim | none yet |\n"
        "| a claim | `tests/test_layout.py` |\n"
    )
    assert too_long(page) == ["line 3: 1094 characters"]
    assert without_a_test(page) == ["line 4"]
