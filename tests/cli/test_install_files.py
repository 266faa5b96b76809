"""What install keeps in the state directory is private, and `--help` names every event
install registers."""

from __future__ import annotations

import json
import stat
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bridge.commands import settings_json
from bridge.wire.event import POST_EVENTS
from tests.support.sandbox import Sandbox


def test_the_install_record_is_written_0600(sandbox: Sandbox) -> None:
    assert sandbox.run("install").returncode == 0
    records = list((sandbox.state / "installs").glob("*.json"))
    assert len(records) == 2  # the shared settings file and this machine's local one
    assert {stat.S_IMODE(record.stat().st_mode) for record in records} == {0o600}
    assert sandbox.run("install").returncode == 0  # rewritten: still private
    assert {stat.S_IMODE(record.stat().st_mode) for record in records} == {0o600}


def test_help_names_every_tool_event_install_registers(sandbox: Sandbox) -> None:
    text = " ".join(sandbox.run("--help").stdout.split())
    assert all(event in text for event in ("PreToolUse", *POST_EVENTS)), text


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=4), JSON, min_size=1, max_size=4))
def test_the_settings_layout_is_json_dumps_where_nothing_was_on_one_line(data: Any) -> None:
    like = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert settings_json.dump_settings(data, like.encode()) == like.encode()


def test_install_keeps_a_one_line_array_on_one_line(sandbox: Sandbox) -> None:
    allow = '    "allow": ["Bash(ls)", "Read",  "Edit"]'
    text = '{\n  "permissions": {\n' + allow + '\n  },\n  "model": "opus"\n}\n'
    sandbox.write(sandbox.settings, text)
    assert sandbox.run("install").returncode == 0
    after = sandbox.settings.read_text()
    lines = [line.rstrip(",") for line in after.splitlines()]  # a key may follow it now
    assert allow in lines and json.loads(after)["model"] == "opus"
