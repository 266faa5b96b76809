"""Corners where a sub-hook's answer could be lost and the call let through, each through the
real `ccbridge run` executable and real sub-hook processes."""

from __future__ import annotations

import json
import resource
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.sandbox import Outcome, Sandbox, encode, matching, pre_tool_use

LATE_DENY = json.dumps(
    {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "late",
        }
    }
)


def _call(sandbox: Sandbox, body: str, **fields: object) -> tuple[Outcome, dict[str, Any]]:
    script = sandbox.script("hook.sh", body)
    handler = {"type": "command", "command": str(script), "name": "h", **fields}
    config = sandbox.write_config(matching([handler]))
    outcome = sandbox.call_executable(config, encode(pre_tool_use("touch marker")))
    [record] = sandbox.audit()
    return outcome, record


def test_a_deny_a_child_writes_after_the_hook_exited_is_a_deny(sandbox: Sandbox) -> None:
    """Real Claude Code (2.1.332, 2.1.335) waits for this answer and denies."""
    body = f"cat >/dev/null; (sleep 0.5; echo '{LATE_DENY}') & exit 0"
    outcome, record = _call(sandbox, body)
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "[h] late" in outcome.reason
    assert record["final"]["decision"] == "deny"


def test_a_stdout_held_open_past_the_hook_s_exit_is_a_failure_at_its_timeout(
    sandbox: Sandbox,
) -> None:
    """Not "no opinion": what holds stdout may still write a deny. The call ends at the hook's
    timeout, denied, with the reason said."""
    started = time.monotonic()
    outcome, _record = _call(sandbox, "cat >/dev/null; sleep 30 & exit 0", timeout=1)
    assert time.monotonic() - started < 20
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "[h] failed: exited, but something it started still held its stdout open" in (
        outcome.reason
    )


def test_a_deny_said_before_stdout_was_held_open_stays_a_deny_when_failures_are_ignored(
    sandbox: Sandbox,
) -> None:
    body = f"cat >/dev/null; echo '{LATE_DENY}'; sleep 30 & exit 0"
    outcome, _record = _call(sandbox, body, timeout=1, onFailure="ignore")
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "[h] late (and it exited, but something it started still held" in outcome.reason


def test_an_answer_giving_a_key_twice_is_read_at_its_strictest(sandbox: Sandbox) -> None:
    """`permissionDecision` deny, then allow: JavaScript (Claude Code) reads the last, allow."""
    answer = (
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
        '"permissionDecisionReason":"x","permissionDecision":"allow"}}'
    )
    outcome, record = _call(sandbox, f"cat >/dev/null; echo '{answer}'")
    assert (outcome.exit_code, outcome.decision) == (2, "deny"), outcome
    assert "[h] ambiguous output (keys given twice with different values: permissionDecision)" in (
        outcome.reason
    )
    [subhook] = record["subhooks"]
    assert subhook["verdict"] == "deny"


def _fsize_limit(limit: int) -> Callable[[], None]:
    def limited() -> None:  # in the child only: the machine and this process keep theirs
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limited


@pytest.mark.parametrize("room", [0, 1, 200])
def test_a_write_cut_short_leaves_no_fragment_in_the_audit_log(sandbox: Sandbox, room: int) -> None:
    """A file size limit in the child stands in for a full disk: the write of the record goes
    in part (`room` bytes) and then fails. The log is rolled back to what it was, the loss is
    said on stderr, and the answer is the same as with room to write."""
    script = sandbox.script("hook.sh", f"cat >/dev/null; echo '{LATE_DENY}'")
    config = sandbox.write_config(matching([{"type": "command", "command": str(script)}]))
    data = encode(pre_tool_use("touch marker"))
    first = sandbox.call_executable(config, data)  # a whole record: the log's previous length
    before = sandbox.audit_path.read_bytes()
    assert first.exit_code == 2 and before.endswith(b"\n")
    done = subprocess.run(
        sandbox.command(config),
        input=data,
        capture_output=True,
        env=sandbox.env,
        timeout=120,
        check=False,
        preexec_fn=_fsize_limit(len(before) + room),
    )
    assert (done.returncode, done.stdout) == (first.exit_code, first.stdout)
    assert sandbox.audit_path.read_bytes() == before
    stderr = done.stderr.decode()
    assert "ccbridge: could not write the audit record: [Errno 27] File too large; the " in (
        stderr
    ), stderr
