"""`ccbridge doctor` runs the registered command on a harmless event; with a config's own
`audit.path`, that run writes its record where the config says, so a log it cannot write is
named on the command (the answer never waits on the audit, so only stderr says so)."""

from __future__ import annotations

import json

from tests.cli.test_doctor import fake_claude
from tests.support.sandbox import Sandbox


def starts(sandbox: Sandbox) -> list[tuple[str, str]]:
    done = sandbox.run("doctor", "--json")
    assert "Traceback" not in done.stderr, done.stderr
    return [(i["level"], i["message"]) for i in json.loads(done.stdout) if i["topic"] == "starts"]


def test_a_configured_audit_log_the_command_cannot_write_is_named(sandbox: Sandbox) -> None:
    fake_claude(sandbox, "2.1.332")
    blocker = sandbox.write(sandbox.root / "logs", "a file where the log's folder should be\n")
    config = sandbox.home / ".claude" / "ccbridge.yaml"
    sandbox.write(config, f"audit:\n  path: {blocker}/audit.jsonl\n")
    assert sandbox.run("install", "--user").returncode == 0
    found = starts(sandbox)
    assert found and all(level == "fail" for level, _ in found), found
    for _level, message in found:
        assert "answers, but could not write its audit record: " in message
        assert str(blocker) in message
