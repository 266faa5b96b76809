"""ccbridge's answer to Gemini CLI when a UserPromptSubmit (Gemini's BeforeAgent) is refused,
through the real `ccbridge run --host gemini`: exit 2 and `decision: deny` with the reason, the
answer the real Gemini CLI blocks the turn on (tests/e2e/test_gemini_block_e2e.py measured it);
an empty answer there would let the prompt through."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.sandbox import CCBRIDGE, Sandbox

REASON = "prompt-blocked-4e1"


def before_agent(sandbox: Sandbox, hooks: dict[str, object]) -> subprocess.CompletedProcess[bytes]:
    config = sandbox.write_config(hooks)
    event = {
        "session_id": "s",
        "cwd": str(sandbox.project),
        "hook_event_name": "BeforeAgent",
        "timestamp": "2026-12-01T00:00:00.000Z",
        "prompt": "Do the task.",
    }
    return subprocess.run(
        [str(CCBRIDGE), "run", "--host", "gemini", "--config", str(config)],
        input=json.dumps(event).encode(),
        capture_output=True,
        env=sandbox.env,
        timeout=120,
        check=False,
    )


def test_a_refused_prompt_is_exit_2_and_a_deny_with_the_reason(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    blocker = {"type": "command", "command": f"echo {REASON} >&2; exit 2", "name": "wall"}
    done = before_agent(sandbox, {"UserPromptSubmit": [{"hooks": [blocker]}]})
    assert done.returncode == 2, done.stderr
    answer = json.loads(done.stdout)
    assert answer["decision"] == "deny" and answer["reason"] == f"[wall] {REASON}", answer
    assert REASON in done.stderr.decode()


def test_a_prompt_nothing_refuses_gets_no_decision(tmp_path: Path) -> None:
    done = before_agent(Sandbox(tmp_path), {})
    assert done.returncode == 0, done.stderr
    assert "decision" not in (json.loads(done.stdout) if done.stdout.strip() else {})
