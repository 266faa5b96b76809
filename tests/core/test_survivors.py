"""Mutants an earlier review planted that the suite let live (issue 16), each killed here by a
test of the promise it broke. In-process where possible, so mutation testing sees them too."""

from __future__ import annotations

import fcntl
import json
import threading
from pathlib import Path

import pytest

from bridge.audit import log
from bridge.hookcall import failure_answer
from tests.robustness.support import Sandbox, encode, matching, pre_tool_use

ALLOW = (
    'cat >/dev/null; printf \'{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
    '"permissionDecision":"allow","permissionDecisionReason":"fine"}}\''
)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


def test_a_sub_hooks_allow_does_not_skip_native_pre_execute_policies(sandbox: Sandbox) -> None:
    """`allow` is no opinion: the pre-execute policies after the sub-hooks still decide."""
    (sandbox.root / "policy.py").write_text(
        "from bridge.pipeline import Deny\n\n"
        "def pre(execution, next_):\n"
        "    return Deny('the policy says no')\n"
    )
    hooks = matching([{"type": "command", "command": str(sandbox.script("allow.sh", ALLOW))}])
    config = sandbox.config(hooks, policies={"pre_execute": ["policy.py:pre"]})
    outcome = sandbox.run(config, encode(pre_tool_use()))
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "the policy says no" in outcome.reason


@pytest.mark.parametrize("event_name", [None, "PreToolUse"])
def test_ccbridges_own_failure_blocks_with_exit_2(event_name: str | None) -> None:
    answer = failure_answer(event_name, "ccbridge internal error: boom")
    assert answer.exit_code == 2
    assert json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    "settings",
    [
        "home/.claude/settings.json",
        "home/.claude/settings.local.json",
        "project/.claude/settings.json",
        "project/.claude/settings.local.json",
    ],
)
def test_every_cc_settings_file_is_protected(sandbox: Sandbox, settings: str) -> None:
    project = sandbox.root / "project"
    project.mkdir()
    config = sandbox.config({}, self_protection=True)
    event = pre_tool_use(
        tool="Write", cwd=str(project), tool_input={"file_path": str(sandbox.root / settings)}
    )
    outcome = sandbox.run(config, encode(event), {"CLAUDE_PROJECT_DIR": str(project)})
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "self-protection" in outcome.reason


def test_an_audit_writer_waits_for_the_lock(tmp_path: Path) -> None:
    """Deterministic where a race test is not: while someone holds the log's lock, a writer
    appends nothing; once it is released, the record lands."""
    path = tmp_path / "audit.jsonl"
    with open(tmp_path / "audit.jsonl.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        writer = threading.Thread(target=log.append, args=(path, {"n": 1}, 1 << 20, 2))
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive(), "the writer did not wait for the lock"
        assert not path.exists() or path.read_bytes() == b""
    writer.join(timeout=30)  # closing the file released the lock
    assert [record["n"] for record in log.read(path, 2)] == [1]
