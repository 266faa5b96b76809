"""Every relative link in the README, CONTRIBUTING and docs/ names a file of the repository, and
none leaves it: a reader of a clone can follow each one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support import REPO

PAGES = sorted(
    [REPO / "README.md", REPO / "CONTRIBUTING.md", *REPO.glob("docs/**/*.md"),
     *REPO.glob("bridge/**/README.md")]
)  # fmt: skip
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def relative_links(page: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if not re.match(r"[a-z]+:", target)  # https:, mailto:
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_relative_link_names_a_file_of_the_repository(page: Path) -> None:
    for target in relative_links(page):
        resolved = (page.parent / target).resolve()
        assert resolved.is_relative_to(REPO), f"{target} leaves the repository"
        assert resolved.exists(), f"{target} does not exist"


def test_the_link_reader_sees_links_and_skips_urls(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("[a](docs/x.md#part) [b](https://e.example/) [c](../y.md) [d](mailto:q)")
    assert relative_links(page) == ["docs/x.md", "../y.md"]
