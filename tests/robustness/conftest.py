"""The sandbox every robustness test runs ccbridge in (profiles: tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sandbox import Sandbox


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)
