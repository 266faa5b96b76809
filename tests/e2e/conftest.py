"""Fixtures for the end-to-end suite: the real Claude Code binaries, one test per pinned version,
and recording of measured outcomes for the generated matrix table."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pluggy
import pytest

from tests.support import outer

from . import matrix_table
from .harness import claude_binary, claude_cache, pinned_versions

_recorded = pytest.StashKey[bool]()
_excused = pytest.StashKey[list[str]]()
# Under CI=true an end-to-end test that cannot run fails, whatever the reason, with one way out:
# a runner that forbids the unprivileged user namespaces Claude Code's Bash sandbox needs
# (AppArmor on recent Ubuntu, Docker's default seccomp) says so by setting this variable to 1,
# and the run's summary then says plainly that the sandbox went untested.
NO_USERNS = "CCBRIDGE_CI_NO_USERNS"
# How the sandbox test's skip begins when bubblewrap cannot make namespaces (probed, not assumed).
LACKS_USERNS = "this runner lacks user namespaces"


def _under_ci() -> bool:
    return os.environ.get("CI") == "true"


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    return reason.removeprefix("Skipped: ")


def excused(reason: str) -> bool:
    return outer.ENVIRON.get(NO_USERNS) == "1" and reason.startswith(LACKS_USERNS)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pluggy.Result[pytest.TestReport], None]:
    """Under CI=true no end-to-end test skips: a skip (a missing binary, a missing program, a
    kernel that refuses namespaces) is a failure, unless CI said the runner lacks namespaces."""
    outcome = yield
    report = outcome.get_result()
    if not _under_ci() or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _reason(report)
    if excused(reason):
        item.config.stash.setdefault(_excused, []).append(f"{item.nodeid}: {reason}")
        return
    report.outcome = "failed"
    report.longrepr = f"skipped under CI=true, which must not happen: {reason}" + (
        f" (if this runner cannot have user namespaces, set {NO_USERNS}=1 to say so)"
        if reason.startswith(LACKS_USERNS)
        else ""
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pluggy.Result[pytest.CollectReport], None]:
    """A whole module skipped while it is collected escapes the hook above: under CI=true it
    is a collection error instead."""
    outcome = yield
    report = outcome.get_result()
    if _under_ci() and report.skipped:
        report.outcome = "failed"
        report.longrepr = (
            f"skipped at collection under CI=true, which must not happen: {_reason(report)}"
        )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    excused_here = terminalreporter.config.stash.get(_excused, [])
    if not excused_here:
        return
    terminalreporter.write_sep(
        "=", f"{NO_USERNS}=1: CLAUDE CODE'S SANDBOX WAS NOT TESTED", red=True
    )
    terminalreporter.write_line(
        "CI said this runner lacks user namespaces, so these skipped and the hard boundary "
        "(the sandbox keeping the agent out of ccbridge's state, cache and config) is unproven:"
    )
    for line in excused_here:
        terminalreporter.write_line(f"  {line}")


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
