"""A hook configured for an event ccbridge is not registered for never runs (Claude Code never
sends ccbridge that event): `check` and `doctor` say which events, and `install` run again
registers them."""

from __future__ import annotations

import json

from tests.support.sandbox import Sandbox

SESSION_START = (
    "  SessionStart:\n    - hooks:\n        - {type: command, command: 'true', name: notes}\n"
)
PRE_TOOL_USE = (
    "  PreToolUse:\n    - hooks:\n        - {type: command, command: 'true', name: pre}\n"
)


def test_a_hook_added_after_install_is_reported_until_install_runs_again(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "hooks:\n" + PRE_TOOL_USE)
    assert sandbox.run("install").returncode == 0
    sandbox.write(sandbox.config, "hooks:\n" + PRE_TOOL_USE + SESSION_START)
    checked = sandbox.run("check")
    assert checked.returncode == 0, checked.stdout
    assert "SessionStart hooks (" in checked.stdout and "never run" in checked.stdout
    assert f"{sandbox.config}:" in checked.stdout  # where the hook is
    found = json.loads(sandbox.run("doctor", "--json").stdout)
    events = [f for f in found if f["topic"] == "events"]
    assert len(events) == 1 and events[0]["level"] == "fail"
    assert events[0]["message"].startswith("SessionStart hooks (")
    assert sandbox.run("install").returncode == 0
    assert "never run" not in sandbox.run("check").stdout
    found = json.loads(sandbox.run("doctor", "--json").stdout)
    assert not [f for f in found if f["topic"] == "events"]


def test_the_audit_summary_says_which_configured_events_are_never_sent(sandbox: Sandbox) -> None:
    sandbox.write(sandbox.config, "hooks:\n" + PRE_TOOL_USE)
    assert sandbox.run("install").returncode == 0
    assert "never run" not in sandbox.run("audit", "--summary").stdout
    sandbox.write(sandbox.config, "hooks:\n" + PRE_TOOL_USE + SESSION_START)
    for mode in ("--summary", "--gaps"):
        said = sandbox.run("audit", mode).stdout
        assert "not in the log, as SessionStart hooks (" in said and "never run" in said, said


def test_a_managed_registration_counts_for_check_and_doctor(sandbox: Sandbox) -> None:
    # install --managed registers the tool events only: a SessionStart hook never runs
    assert sandbox.run("install", "--managed").returncode == 0  # the sandbox's managed folder
    sandbox.write(sandbox.config, "hooks:\n" + PRE_TOOL_USE + SESSION_START)
    checked = sandbox.run("check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SessionStart hooks (" in checked.stdout and "never run" in checked.stdout
    assert "PreToolUse hooks (" not in checked.stdout
    found = json.loads(sandbox.run("doctor", "--json").stdout)
    events = [f["message"] for f in found if f["topic"] == "events"]
    assert len(events) == 1 and events[0].startswith("SessionStart hooks ("), events
    assert "SessionStart" in sandbox.run("audit", "--summary").stdout
