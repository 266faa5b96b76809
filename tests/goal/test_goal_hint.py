"""With goals on, each prompt tells the model that `ccbridge goal ...` exists (UserPromptSubmit
additionalContext, which Claude Code passes to the model); with goals off, nothing is said."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.events import event
from tests.support.sandbox import Sandbox, encode


@pytest.mark.parametrize("enabled", [True, False])
def test_a_prompt_tells_the_model_of_the_goal_commands(tmp_path: Path, enabled: bool) -> None:
    sandbox = Sandbox(tmp_path)
    config = sandbox.write(tmp_path / "c.yaml", f"goals: {{enabled: {str(enabled).lower()}}}\n")
    prompt = event("UserPromptSubmit", None, prompt="make the tests pass", cwd=str(tmp_path))
    outcome = sandbox.call_executable(config, encode(prompt))
    assert outcome.exit_code == 0, outcome.stderr
    context = outcome.payload.get("hookSpecificOutput", {}).get("additionalContext", "")
    assert ("`ccbridge goal create --objective" in context) is enabled, outcome.payload
    assert outcome.payload.get("decision") != "block"
