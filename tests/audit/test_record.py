"""The audit record of one call (bridge.audit.record.build), in-process and field by field, with
a fixed clock so the time stamp and duration are known exactly."""

from __future__ import annotations

import hashlib
import time
import types
from typing import Any

import pytest

from bridge import __version__
from bridge.audit import record as audit_record
from bridge.config.compiled import CompiledConfig
from bridge.engine import Report
from bridge.pipeline import Step
from bridge.subhooks.fold import Folded, Rewrite, SubhookRecord
from bridge.subhooks.spec import HookSpec
from bridge.subhooks.verdict import HookRun
from bridge.wire.event import HookEvent
from tests.support.events import hook

# 1_700_000_001 is 2023-11-14 22:13:21 UTC. The fractions are exact in binary: 1/16 s is 62 ms
# (written with three digits), 1023/1024 s is 999 ms (truncated, never rounded up to 1000).
CLOCKS = {1_700_000_001 + 1 / 16: ".062Z", 1_700_000_001 + 1023 / 1024: ".999Z"}
STARTED, ENDED = 100.0, 100.01234  # 12.34 ms, rounded to 12.3


@pytest.fixture(autouse=True, params=list(CLOCKS))
def clock(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """The time stamp that the clock set here makes the record carry."""
    now = request.param
    fake = types.SimpleNamespace(
        strftime=time.strftime,
        gmtime=lambda seconds=None: time.gmtime(int(now) if seconds is None else seconds),
        time=lambda: now,
        monotonic=lambda: ENDED,
    )
    monkeypatch.setattr(audit_record, "time", fake)
    return "2023-11-14T22:13:21" + CLOCKS[now]


def build(report: Report | None = None, **options: Any) -> dict[str, Any]:
    options.setdefault("event_name", "PreToolUse")
    options.setdefault("error", None)
    options.setdefault("final", {"decision": "allow"})
    return audit_record.build(report, started=STARTED, **options)


def test_the_input_digest_is_sha256_of_compact_sorted_json() -> None:
    expected = hashlib.sha256(b'{"a":1,"b":[2,{"c":"d","e":null}]}').hexdigest()
    tool_input = {"b": [2, {"e": None, "c": "d"}], "a": 1}
    assert audit_record.input_digest(tool_input) == f"sha256:{expected}"


def test_a_record_without_a_report(clock: str) -> None:
    raw = {
        "session_id": "s1",
        "tool_use_id": "t1",
        "tool_name": "Bash",
        "agent_id": "a1",
        "tool_input": {"command": "ls"},
    }
    assert build(raw=raw, event_name="PreToolUse") == {
        "ts": clock,
        "event": "PreToolUse",
        "session": "s1",
        "tool_use_id": "t1",
        "tool": "Bash",
        "agent_id": "a1",
        "version": __version__,
        "protection": "tripwire",  # no report, no config judged: the lesser claim
        "final": {"decision": "allow"},
        "duration_ms": 12.3,
        "input_digest": "sha256:" + hashlib.sha256(b'{"command":"ls"}').hexdigest(),
    }


def test_fields_that_are_not_strings_are_recorded_as_null() -> None:
    raw = {"session_id": 1, "tool_use_id": [], "tool_name": 7, "agent_id": {}, "tool_input": "x"}
    record = build(raw=raw, event_name="Stop", final={})
    assert (record["session"], record["tool_use_id"], record["tool"], record["agent_id"]) == (
        None,
        None,
        None,
        None,
    )
    assert "input_digest" not in record  # tool_input was not an object
    assert set(record) == {
        *("ts", "event", "session", "tool_use_id", "tool", "agent_id", "version", "final"),
        "duration_ms",
        "protection",
    }


def test_no_report_and_no_event_gives_an_empty_identity() -> None:
    record = build(event_name=None, error="stdin was empty", final={"exit": 2})
    assert record["event"] is None and record["error"] == "stdin was empty"
    assert (record["session"], record["tool"], record["final"]) == (None, None, {"exit": 2})
    assert "crash_log" not in record and "input_digest" not in record


def test_the_error_and_crash_log_are_kept_and_redacted() -> None:
    record = build(error="RuntimeError: password=hunter22", crash_log="/state/crashes/c.txt")
    assert record["error"] == "RuntimeError: password=[REDACTED]"
    assert record["crash_log"] == "/state/crashes/c.txt"


def test_every_string_in_the_record_is_redacted() -> None:
    raw = {"session_id": "token=abcdefgh", "tool_input": {"password": "hunter22"}}
    record = build(raw=raw, final={"reason": "uses ghp_" + "a" * 30})
    assert record["session"] == "token=[REDACTED]"
    assert record["final"] == {"reason": "uses [REDACTED]"}
    # The digest is of the input as it came, secret included: it identifies the call.
    digest = hashlib.sha256(b'{"password":"hunter22"}').hexdigest()
    assert record["input_digest"] == f"sha256:{digest}"


def named(name: str) -> HookSpec:
    """A sub-hook with a name and a place in a config file, and nothing to run."""
    return hook(name=name, where=f"/c.yaml:{name}", timeout=20.0)


def report(**changes: Any) -> Report:
    event = HookEvent(
        name="PreToolUse",
        raw={"session_id": "from-report", "tool_name": "Edit", "tool_input": {"file_path": "f"}},
        data=b"",
    )
    fields: dict[str, Any] = {
        "event": event,
        "config": CompiledConfig(files=("/a.yaml", "/b.yaml"), digest="cfg-digest"),
        "subhooks": [
            SubhookRecord(
                named("ran"),
                True,
                HookRun(exit_code=2, duration_ms=1.5),
                verdict="deny",
                reason="no",
                action="denies",
            ),
            SubhookRecord(named("skipped"), False),
        ],
        "steps": (
            Step("pre_execute", "sub-hooks", "deny", "no"),
            Step("decide", "final", "deny"),
        ),
        "folded": Folded(
            "deny",
            downgraded=("down",),
            rewrites=(Rewrite("rewriter", {"file_path": "g"}),),
            ignored_failures=("flaky",),
        ),
        "notes": ["a note"],
    }
    return Report(**{**fields, **changes})


def test_a_record_from_a_report() -> None:
    record = build(report())
    assert record["session"] == "from-report" and record["tool"] == "Edit"  # the event's raw
    assert record["input_digest"] == "sha256:" + hashlib.sha256(b'{"file_path":"f"}').hexdigest()
    assert record["config_digest"] == "cfg-digest"
    assert record["config_files"] == ["/a.yaml", "/b.yaml"]
    assert record["subhooks"] == [  # only the sub-hooks that matched
        {
            "name": "ran",
            "where": "/c.yaml:ran",
            "matched": True,
            "duration_ms": 1.5,
            "exit_code": 2,
            "error": None,
            "verdict": "deny",
            "reason": "no",
            "action": "denies",
        }
    ]
    assert record["steps"] == [
        {"station": "pre_execute", "name": "sub-hooks", "outcome": "deny", "detail": "no"},
        {"station": "decide", "name": "final", "outcome": "deny", "detail": ""},
    ]
    assert record["downgrades"] == ["down"]
    assert record["rewrites"] == [{"hook": "rewriter", "diff": {"file_path": "g"}}]
    assert record["ignored_failures"] == ["flaky"]
    assert record["notes"] == ["a note"]


def test_raw_given_wins_over_the_reports_event() -> None:
    record = build(report(), raw={"session_id": "given"})
    assert record["session"] == "given" and record["tool"] is None
    assert "input_digest" not in record


def test_a_report_without_folding_or_notes() -> None:
    record = build(report(folded=None, notes=[], subhooks=[], steps=()))
    for absent in ("downgrades", "rewrites", "ignored_failures", "notes"):
        assert absent not in record
    assert (record["subhooks"], record["steps"]) == ([], [])
    assert record["config_digest"] == "cfg-digest"


@pytest.mark.parametrize("level", ["wall", "tripwire"])
def test_the_protection_level_of_the_config_is_in_every_record(level: str) -> None:
    config = CompiledConfig(files=("/a.yaml",), digest="d", protection=level)
    record = build(report(config=config), event_name="PreToolUse")
    assert record["protection"] == level
