"""Hypothesis profiles for the whole suite.

`ci` (the default) keeps every property test well inside CI's budget on 2 cores; `long` is for
a run by hand: `pytest --hypothesis-profile=long` or `HYPOTHESIS_PROFILE=long pytest`. Tests
that start real processes scale their example count down from the profile's
(`tests/robustness/support.examples`), so one switch drives every test.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

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
