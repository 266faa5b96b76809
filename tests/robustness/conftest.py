"""Hypothesis profiles for the robustness suite, and the sandbox every test runs ccbridge in.

`ci` (the default) keeps the whole suite well inside CI's budget on 2 cores; `long` is for a run
by hand: `pytest tests/robustness --hypothesis-profile=long` or `HYPOTHESIS_PROFILE=long`.
Tests that start real processes scale their example count down from the profile's
(`support.examples`), so one switch drives every test.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from .support import Sandbox

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


def pytest_configure(config: pytest.Config) -> None:
    # Also reached when this conftest loads after hypothesis's own plugin has configured.
    chosen = config.getoption("hypothesis_profile", None) or os.environ.get("HYPOTHESIS_PROFILE")
    settings.load_profile(chosen or "ci")


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)
