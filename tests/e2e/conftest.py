"""Fixtures for the end-to-end suite: the real Claude Code binaries, one test per pinned version,
and recording of measured outcomes for the generated matrix table."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pluggy
import pytest

from . import matrix_table
from .harness import claude_binary, claude_cache, pinned_versions

_recorded = pytest.StashKey[bool]()
# The one reason an end-to-end test may skip in CI: the machine cannot run what it tests (probed,
# not assumed), e.g. a container that forbids the user namespaces Claude Code's sandbox needs.
PLATFORM_LACKS = "this platform lacks "


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """Under CI=true no end-to-end test skips silently: a skip (a missing binary, a missing
    program) is a failure, unless the platform itself lacks what the test needs."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") != "true" or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if not reason.removeprefix("Skipped: ").startswith(PLATFORM_LACKS):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which must not happen: {reason}"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cc_version" in metafunc.fixturenames:
        metafunc.parametrize("cc_version", pinned_versions())


@pytest.fixture
def claude(cc_version: str) -> Path:
    """The cached binary of the version under test. Missing: skipped locally, failed in CI."""
    binary = claude_binary(cc_version)
    if binary is None:
        pytest.skip(
            f"Claude Code {cc_version} is not in {claude_cache()}: the package registry could "
            "not be reached or it was never fetched; run scripts/fetch-clients"
        )
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
    if any("test_agents_matrix" in item.nodeid for item in session.items):
        from . import agents_table

        if agents_table.load():
            agents_table.write_section()
