"""How the real Gemini CLI takes a block on BeforeAgent (ccbridge's UserPromptSubmit): measured
with ccbridge registered as `ccbridge install --host gemini` registers it, and with plain hooks
giving each answer a hook could give. ccbridge answers a block with `decision: deny` and exit 2
(bridge/wire/hosts/gemini.py); Gemini blocks the turn on it (the model is never asked, the reason
is shown), as it does on exit 0 with `decision: block` or `deny`; an empty answer lets the turn
run. On AfterAgent (Stop) a block makes Gemini go on with another turn, as a Stop block does in
Claude Code."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml

from bridge.commands import agents

from .agents import AgentRun, client_binary, clients_cache, pinned, run_gemini
from .harness import ccbridge_executable

REASON = "prompt-blocked-4e1"
VERSIONS = pinned("gemini-cli")


def gemini(version: str) -> Path:
    binary = client_binary("gemini-cli", version)
    if binary is None:
        pytest.skip(f"Gemini CLI {version} is not in {clients_cache()}: run scripts/fetch-clients")
    return binary


def hook(tmp_path: Path, answer: str, code: int) -> dict[str, object]:
    script = tmp_path / "hook.sh"
    script.write_text(
        f"#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' {shlex.quote(answer)}\nexit {code}\n"
    )
    script.chmod(0o755)
    return {"type": "command", "command": str(script), "name": "h"}


def turn(binary: Path, tmp_path: Path, handler: dict[str, object], env: dict[str, str]) -> AgentRun:
    project = tmp_path / "project"
    project.mkdir()
    hooks = {"BeforeAgent": [{"hooks": [handler]}]}
    return run_gemini(binary, project, hooks, [f"touch {project / 'marker'}"], env=env)


@pytest.mark.e2e
@pytest.mark.parametrize("version", VERSIONS)
def test_ccbridge_s_block_stops_the_turn(tmp_path: Path, version: str) -> None:
    binary = gemini(version)
    config = tmp_path / "ccbridge.yaml"
    blocker = {"type": "command", "command": f"echo {REASON} >&2; exit 2", "name": "wall"}
    config.write_text(yaml.safe_dump({"hooks": {"UserPromptSubmit": [{"hooks": [blocker]}]}}))
    env = {
        "CCBRIDGE_CONFIG": str(config),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
    }
    run = agents.command(ccbridge_executable(), "gemini")
    handler = agents.handler(agents.AGENTS["gemini"], run)
    done = turn(binary, tmp_path, handler, env)
    assert done.stub.requests == [], done.stderr[-2000:]  # the model was never asked
    assert not (tmp_path / "project" / "marker").exists()
    assert f"Agent execution blocked: [wall] {REASON}" in done.stderr, done.stderr[-2000:]
    records = [
        json.loads(line) for line in (tmp_path / "state" / "audit.jsonl").read_text().splitlines()
    ]
    assert [record["event"] for record in records] == ["UserPromptSubmit"]


@pytest.mark.e2e
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("answer", "code", "blocks"),
    [
        (json.dumps({"decision": "deny", "reason": REASON}), 2, True),  # what ccbridge gives
        (json.dumps({"decision": "block", "reason": REASON}), 0, True),
        (json.dumps({"decision": "deny", "reason": REASON}), 0, True),
        ("{}", 0, False),
    ],
    ids=["exit-2-deny", "exit-0-block", "exit-0-deny", "exit-0-nothing"],
)
def test_which_answer_blocks_before_agent(
    tmp_path: Path, version: str, answer: str, code: int, blocks: bool
) -> None:
    done = turn(gemini(version), tmp_path, hook(tmp_path, answer, code), {})
    assert (done.stub.requests == []) is blocks, done.stderr[-2000:]
    assert (tmp_path / "project" / "marker").exists() is not blocks
    assert (f"Agent execution blocked: {REASON}" in done.stderr) is blocks
