from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bridge.goal.activation import ProcessIdentity
from bridge.goal.settings import GoalSettings

from .driver import FakeProcess, SessionDriver, Timestamps


@pytest.fixture
def clock() -> Callable[[], str]:
    return Timestamps()


@pytest.fixture
def process() -> FakeProcess:
    return FakeProcess(ProcessIdentity(pid=4242, start_time=1000, boot_id="boot-a"))


@pytest.fixture
def settings(tmp_path: Path, process: FakeProcess) -> GoalSettings:
    return GoalSettings(state_dir=tmp_path / "state", identity=process, stop_block_cap=8)


@pytest.fixture
def session(settings: GoalSettings) -> SessionDriver:
    return SessionDriver(settings, "session-1")
