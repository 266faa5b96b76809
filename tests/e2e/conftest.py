"""Fixtures for the end-to-end suite: the real Claude Code binaries, one test per pinned version,
and recording of measured outcomes for the generated matrix table."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from . import matrix_table
from .harness import claude_binary, claude_cache, pinned_versions

_recorded = pytest.StashKey[bool]()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cc_version" in metafunc.fixturenames:
        metafunc.parametrize("cc_version", pinned_versions())


@pytest.fixture
def claude(cc_version: str) -> Path:
    """The cached binary of the version under test. Missing: skipped locally, failed in CI."""
    binary = claude_binary(cc_version)
    if binary is None:
        message = (
            f"Claude Code {cc_version} is not in {claude_cache()}: the package registry could "
            "not be reached or it was never fetched; run scripts/fetch-claude"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


@pytest.fixture
def record_outcome(request: pytest.FixtureRequest) -> matrix_table.RecordOutcome:
    """Store what a matrix test observed, for docs/e2e-matrix.md. Call it before asserting, so
    the table shows what really happened even where an expectation fails."""

    def record(measurement: matrix_table.Measurement) -> None:
        matrix_table.record(measurement)
        request.config.stash[_recorded] = True

    return record


def pytest_sessionfinish(session: pytest.Session) -> None:
    if session.config.stash.get(_recorded, False):
        matrix_table.write_table()
