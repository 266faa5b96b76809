"""Hypothesis profiles for the whole suite.

`ci` (the default) keeps every property test well inside CI's budget on 2 cores; `long` is for
a run by hand: `pytest --hypothesis-profile=long` or `HYPOTHESIS_PROFILE=long pytest`. Tests
that start real processes scale their example count down from the profile's
(`tests/support/sandbox.examples`), so one switch drives every test.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support import machine

_COMMON = settings(
    deadline=None,  # processes and a shared machine make per-example timing meaningless
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    print_blob=True,
)
settings.register_profile("ci", _COMMON, max_examples=60)
settings.register_profile("long", _COMMON, max_examples=2000)
settings.register_profile("mutation", _COMMON, max_examples=15)  # scripts/mutation: per mutant


def pytest_configure(config: pytest.Config) -> None:
    # Runs when this conftest loads, which may be after hypothesis's own plugin has applied
    # --hypothesis-profile: read the option again so it still wins.
    chosen = config.getoption("hypothesis_profile", None) or os.environ.get("HYPOTHESIS_PROFILE")
    settings.load_profile(chosen or "ci")


def _play_claude_code() -> None:
    """Goal host events count only from a process Claude Code started (bridge/goal/provenance.py
    walks the process tree up to a process that is not a shell, python or ccbridge). The test
    process stands in for Claude Code, so the hooks it starts are host hooks wherever the suite
    runs (under CI's runner the tree above is all shells up to init, which fails closed)."""
    pr_set_name = 15
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_name, b"claude-suite", 0, 0, 0)


_play_claude_code()


_REAL_HOME = Path(os.path.expanduser("~"))


@pytest.fixture(autouse=True)
def _machine_left_as_found() -> Iterator[None]:
    """Tests never change the machine outside their temp dirs (tests/support/machine.py)."""
    before = machine.snapshot(_REAL_HOME)
    yield
    changed = machine.changes(before, machine.snapshot(_REAL_HOME))
    assert not changed, "the test changed the machine outside its temp dirs:\n" + "\n".join(changed)
