"""What install keeps in the state directory is private, and `--help` names every event
install registers."""

from __future__ import annotations

import stat

from bridge.commands.install import TOOL_EVENTS
from tests.support.sandbox import Sandbox


def test_the_install_record_is_written_0600(sandbox: Sandbox) -> None:
    assert sandbox.run("install").returncode == 0
    records = list((sandbox.state / "installs").glob("*.json"))
    assert len(records) == 1
    assert stat.S_IMODE(records[0].stat().st_mode) == 0o600
    assert sandbox.run("install").returncode == 0  # rewritten: still private
    assert stat.S_IMODE(records[0].stat().st_mode) == 0o600


def test_help_names_every_tool_event_install_registers(sandbox: Sandbox) -> None:
    text = " ".join(sandbox.run("--help").stdout.split())
    assert all(event in text for event in TOOL_EVENTS), text
