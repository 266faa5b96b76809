"""ccbridge's own failure on Stop and SubagentStop only tells the user: blocking would keep
Claude working, and a broken ccbridge fails on every call, so the loop would never end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bridge.main import failure_answer

from .test_run_command import Bridge

# The real program, with the engine replaced by one that fails the way a bug would.
CRASHING = (
    sys.executable,
    "-c",
    "import bridge.main as m\n"
    "def judge(*_):\n"
    "    raise RuntimeError('boom')\n"
    "m._judge = judge\n"
    "m.main()\n",
)
STOPS = ("Stop", "SubagentStop")


@pytest.mark.parametrize("event_name", STOPS)
def test_the_failure_answer_on_a_stop_tells_and_does_not_block(event_name: str) -> None:
    answer = failure_answer(event_name, "ccbridge internal error: boom")
    assert answer.exit_code == 0
    assert json.loads(answer.stdout) == {"systemMessage": "ccbridge internal error: boom"}


@pytest.mark.parametrize("event_name", STOPS)
@pytest.mark.parametrize("active", [False, True])
def test_a_crashing_ccbridge_lets_claude_stop(
    tmp_path: Path, event_name: str, active: bool
) -> None:
    event = {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "hook_event_name": event_name,
        "stop_hook_active": active,
        **({"agent_type": "reviewer"} if event_name == "SubagentStop" else {}),
    }
    out, code, stderr = Bridge(tmp_path).run(event, command=CRASHING)
    assert code == 0, stderr
    assert out is not None and "decision" not in out and "continue" not in out
    assert out["systemMessage"].startswith("ccbridge internal error: RuntimeError: boom")
