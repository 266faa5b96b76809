"""What every test shares: a home and an environment of its own, and the machine left as found
(both autouse), the `sandbox` fixture, and Hypothesis profiles.

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

from tests.support import machine, outer
from tests.support.sandbox import Sandbox

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


# Variables that point ccbridge or Claude Code at a config, a state or cache directory, a home
# of settings: from outside they would reach the real ones, or make a test pass only there.
ISOLATED_PREFIXES = ("CCBRIDGE_", "XDG_", "CLAUDE_")
ISOLATED_NAMES = frozenset({"CLAUDECODE"})


def _isolate(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """$HOME is `root/home`, managed settings go to `root/etc`, and no variable of the outer
    environment that ISOLATED_PREFIXES names is left."""
    home = root / "home"
    home.mkdir()
    for key in list(os.environ):
        if key.startswith(ISOLATED_PREFIXES) or key in ISOLATED_NAMES:
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv(
        "CCBRIDGE_MANAGED_DIR", str(root / "etc" / "claude-code" / "managed-settings.d")
    )
    return home


@pytest.fixture(scope="session", autouse=True)
def _own_environment_for_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The same as below for what is set up once for many tests (a module's sandbox), before
    any of them runs."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield _isolate(monkeypatch, tmp_path_factory.mktemp("session"))


@pytest.fixture(autouse=True)
def _own_home_and_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test has a home of its own in pytest's temp dirs (beside its `tmp_path`, which stays
    empty), managed settings there too (the system's are outside any home), and no CCBRIDGE_*,
    XDG_* or CLAUDE_* variable of the outer environment. A test that writes to `~`, or runs
    ccbridge with `os.environ`, stays in its temp dirs; what must come from outside (the fetched
    clients, CI's switches) is read from tests/support/outer."""
    return _isolate(monkeypatch, tmp_path_factory.mktemp("own"))


@pytest.fixture(autouse=True)
def _machine_left_as_found() -> Iterator[None]:
    """Tests never change the machine outside their temp dirs (tests/support/machine.py)."""
    before = machine.snapshot(outer.HOME)
    yield
    changed = machine.changes(before, machine.snapshot(outer.HOME))
    assert not changed, "the test changed the machine outside its temp dirs:\n" + "\n".join(changed)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    """A private world to run ccbridge in (tests/support/sandbox.py)."""
    return Sandbox(tmp_path)
