from __future__ import annotations

import json
from typing import Any

from tests.support.sandbox import Sandbox


def record(
    ts: str,
    event: str,
    tool: str,
    decision: str,
    tool_use_id: str,
    session: str = "s1",
    subhooks: list[dict[str, Any]] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "ts": ts,
        "event": event,
        "session": session,
        "tool_use_id": tool_use_id,
        "tool": tool,
        "final": {
            "decision": decision,
            "reason": f"why {tool_use_id}",
            "exit_code": 2 if decision == "deny" else 0,
        },
        "subhooks": subhooks or [],
    }
    if error:
        data["error"] = error
    return data


def subhook_entry(name: str, raw: str, ms: float) -> dict[str, Any]:
    return {
        "name": name,
        "where": f"/c.yaml:{len(name)}",
        "matched": True,
        "duration_ms": ms,
        "exit_code": 2 if raw == "deny" else 0,
        "verdict": raw,
        "reason": f"{name} said {raw}",
        "action": "",
    }


RECORDS = [
    record(
        "2026-01-01T10:00:00.000Z",
        "PreToolUse",
        "Bash",
        "deny",
        "t1",
        subhooks=[subhook_entry("no-rm", "deny", 30.0), subhook_entry("lint", "none", 5.0)],
    ),
    record(
        "2026-01-01T10:00:01.000Z",
        "PreToolUse",
        "Bash",
        "none",
        "t2",
        subhooks=[subhook_entry("no-rm", "none", 12.0)],
    ),
    record("2026-01-01T10:00:02.000Z", "PostToolUse", "Bash", "none", "t2"),
    record("2026-01-01T11:00:00.000Z", "PostToolUse", "Write", "none", "t3", session="s2"),
    record(
        "2026-01-01T12:00:00.000Z",
        "PreToolUse",
        "Write",
        "deny",
        "t4",
        session="s2",
        subhooks=[subhook_entry("fmt", "failure", 900.0)],
    ),
]


def write_log(sandbox: Sandbox, records: list[dict[str, Any]]) -> None:
    sandbox.state.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(item) for item in records]
    (sandbox.state / "audit.jsonl").write_text("\n".join(lines[2:]) + "\n{torn\n")
    (sandbox.state / "audit.jsonl.1").write_text("\n".join(lines[:2]) + "\n")


def test_filters(sandbox: Sandbox) -> None:
    write_log(sandbox, RECORDS)

    def ids(*args: str) -> list[str]:
        done = sandbox.run("audit", "--json", *args)
        assert done.returncode == 0, done.stderr
        return [json.loads(line)["tool_use_id"] for line in done.stdout.splitlines()]

    assert ids() == ["t1", "t2", "t2", "t3", "t4"]  # rotated generation first, torn line skipped
    assert ids("--session", "s2") == ["t3", "t4"]
    assert ids("--tool", "Bash", "--decision", "deny") == ["t1"]
    assert ids("--since", "2026-01-01T10:30", "--until", "2026-01-01T11:30:00Z") == ["t3"]
    assert ids("--since", "1h") == []


def test_text_lines(sandbox: Sandbox) -> None:
    write_log(sandbox, RECORDS)
    done = sandbox.run("audit", "--decision", "deny")
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and "PreToolUse  Bash  deny" in lines[0] and "why t1" in lines[0]


def test_summary(sandbox: Sandbox) -> None:
    write_log(sandbox, RECORDS)
    data = json.loads(sandbox.run("audit", "--summary", "--json").stdout)
    assert data["per_tool"] == {"Bash": {"deny": 1, "none": 2}, "Write": {"none": 1, "deny": 1}}
    assert data["per_subhook"]["no-rm"] == {"deny": 1, "none": 1}
    assert [item["what"] for item in data["failures"]] == ["fmt"]
    assert [item["duration_ms"] for item in data["slowest"]] == [900.0, 30.0, 12.0, 5.0]
    text = sandbox.run("audit", "--summary").stdout
    assert "failures: 1" in text and "slowest sub-hooks" in text


def test_gaps_find_tool_calls_the_gate_never_saw(sandbox: Sandbox) -> None:
    write_log(sandbox, RECORDS)
    done = sandbox.run("audit", "--gaps", "--json")
    assert done.returncode == 1
    assert [item["tool_use_id"] for item in json.loads(done.stdout)] == ["t3"]
    clean = sandbox.run("audit", "--gaps", "--session", "s1")
    assert clean.returncode == 0 and "0 tool call(s)" in clean.stdout


def test_records_written_by_run_are_read_back(sandbox: Sandbox) -> None:
    sandbox.write(
        sandbox.config,
        "hooks:\n  PreToolUse:\n    - hooks:\n"
        "        - {type: command, command: exit 2, name: wall}\n",
    )
    stdin = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "session_id": "live",
            "cwd": "/tmp",
            "tool_use_id": "tu1",
        }
    )
    assert sandbox.run("run", stdin=stdin).returncode == 2
    done = sandbox.run("audit", "--session", "live", "--summary", "--json")
    assert json.loads(done.stdout)["per_subhook"] == {"wall": {"deny": 1}}


def test_bad_time_is_a_usage_error(sandbox: Sandbox) -> None:
    done = sandbox.run("audit", "--since", "yesterday")
    assert done.returncode == 2 and "neither an ISO time" in done.stderr
    assert "Traceback" not in done.stderr


def test_corrupt_lines_are_counted_not_hidden(sandbox: Sandbox) -> None:
    write_log(sandbox, RECORDS)  # one torn line
    with (sandbox.state / "audit.jsonl.1").open("a") as handle:
        handle.write('[1, 2]\n\n"a string"\n')  # JSON but not records; the blank line is no loss
    for args in ((), ("--json",), ("--summary",), ("--gaps",)):
        done = sandbox.run("audit", *args)
        assert "skipped 3 corrupt line(s)" in done.stderr, (args, done.stderr)
    write_log(sandbox, RECORDS[:2])
    (sandbox.state / "audit.jsonl").write_text("")
    assert "skipped" not in sandbox.run("audit").stderr
