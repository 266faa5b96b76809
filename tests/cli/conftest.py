"""Every command runs as the real `ccbridge` executable in a sandbox of its own
(tests/support/sandbox.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sandbox import Sandbox


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)
