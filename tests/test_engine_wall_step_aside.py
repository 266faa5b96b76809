"""The engine's rule for the wall, as a law over the self-protection corpus: with protection
`wall`, a Bash PreToolUse from Claude Code is not judged by self-protection (its sandbox holds
those writes), and every other route is judged exactly as at `tripwire`: a command asking to
leave the sandbox, a skill's inline command, another agent's shell, an MCP tool's command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.config.compiled import CompiledConfig
from bridge.engine import Machine, handle
from bridge.wire.event import parse_event
from tests.guards.protect.test_self_protection_corpus import REFUSED

WORLD: dict[str, Path] = {}
ATTEMPTS = [c for c in REFUSED if "{" not in c]  # those with no placeholder of the corpus world


@pytest.fixture(scope="module", autouse=True)
def world(tmp_path_factory: pytest.TempPathFactory) -> None:
    root = tmp_path_factory.mktemp("law")
    (root / "project" / ".claude").mkdir(parents=True)
    WORLD.update(root=root, project=root / "project")


def verdict(protection: str, command: str, **shape: Any) -> str | None:
    name = shape.pop("event", "PreToolUse")
    tool = shape.pop("tool", "Bash")
    project, root = WORLD["project"], WORLD["root"]
    env = {"HOME": str(root / "home"), "CCBRIDGE_STATE_DIR": str(root / "state")}
    env |= {"CCBRIDGE_CACHE_DIR": str(root / "cache"), "PATH": "/usr/bin:/bin"}
    tool_input = {"command": command, **shape.pop("tool_input", {})}
    raw = {
        "hook_event_name": name,
        "session_id": "s",
        "cwd": str(project),
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "t",
        **shape,
    }
    config = CompiledConfig(
        files=(str(project / ".claude" / "ccbridge.yaml"),), protection=protection
    )
    report = handle(parse_event(json.dumps(raw).encode()), config, Machine(env=env))
    steps = [step for step in report.steps if step.name == "self-protection"]
    return next((step.outcome for step in steps), None)


ROUTES = [
    {"tool_input": {"dangerouslyDisableSandbox": True}},
    {"event": "PreSkillShellCommand"},
    {"turn_id": "turn-1"},  # Codex's envelope
    {"tool": "mcp__shell__run"},
]


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(ATTEMPTS), st.sampled_from(ROUTES))
def test_under_the_wall_only_claude_code_s_sandboxed_bash_steps_aside(
    command: str, route: dict[str, Any]
) -> None:
    assert verdict("wall", command) is None
    tripwire = verdict("tripwire", command)
    assert tripwire is not None and tripwire != "allow"
    assert verdict("wall", command, **json.loads(json.dumps(route))) == verdict(
        "tripwire", command, **json.loads(json.dumps(route))
    )
    assert verdict("wall", command, **json.loads(json.dumps(route))) is not None
