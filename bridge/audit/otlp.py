"""Audit records as OpenTelemetry logs: OTLP/JSON `ExportLogsServiceRequest` lines, the format
the Collector's `otlpjsonfile` receiver reads.

Each audit record becomes one request: a `ccbridge.tool_decision` log record for the final
answer and one `ccbridge.subhook_decision` log record per sub-hook that ran, all keyed the way
Claude Code's own telemetry keys its `claude_code.tool_decision` events (`session.id`,
`tool_use_id`, `prompt.id`, `tool_name`, `decision`, `source`), so a pipeline joins them on
`tool_use_id`. The resource attributes come from ccbridge's own variables (`CCBRIDGE_OTEL_*`)
because Claude Code strips `OTEL_*` from a hook's environment. Only `ccbridge audit` imports
this module, never a hook call.
"""

from __future__ import annotations

import getpass
import json
import socket
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from bridge import __version__
from bridge.audit.log import subhook_verdict

SCOPE = "ccbridge.audit"
FINAL_EVENT = "ccbridge.tool_decision"
SUBHOOK_EVENT = "ccbridge.subhook_decision"
# OpenTelemetry's SeverityNumber values.
SEVERITY_INFO = 9
SEVERITY_WARN = 13
SEVERITY_ERROR = 17
_DENYING = {"deny", "block", "failure"}


def _value(value: Any) -> dict[str, Any]:
    """One OTLP AnyValue in the JSON mapping (64-bit integers as strings)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(item) for item in value]}}
    return {"stringValue": str(value)}


def attributes(pairs: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"key": key, "value": _value(value)} for key, value in pairs.items() if value is not None
    ]


def resource_attributes(env: Mapping[str, str]) -> dict[str, Any]:
    """host, user and org of the machine: CCBRIDGE_OTEL_HOST, CCBRIDGE_OTEL_USER, CCBRIDGE_OTEL_ORG
    (host and user default to the machine's), plus `k=v,k=v` pairs in
    CCBRIDGE_OTEL_RESOURCE_ATTRIBUTES."""
    try:
        user: str | None = getpass.getuser()
    except (KeyError, OSError):
        user = None
    found: dict[str, Any] = {
        "service.name": "ccbridge",
        "service.version": __version__,
        "host.name": env.get("CCBRIDGE_OTEL_HOST") or socket.gethostname(),
        "user.name": env.get("CCBRIDGE_OTEL_USER") or user,
        "organization.id": env.get("CCBRIDGE_OTEL_ORG") or None,
    }
    for pair in env.get("CCBRIDGE_OTEL_RESOURCE_ATTRIBUTES", "").split(","):
        key, sep, value = pair.partition("=")
        if sep and key.strip():
            found[key.strip()] = value.strip()
    return found


def _nanos(ts: Any) -> str:
    try:
        when = datetime.fromisoformat(str(ts).replace("Z", "+00:00"))
    except ValueError:
        return "0"  # unknown time: OTLP's "not set"
    return str(round(when.timestamp() * 1_000_000) * 1000)


def _decision(record: Mapping[str, Any]) -> str:
    final = record.get("final")
    return str(final.get("decision") or "none") if isinstance(final, dict) else "none"


def _reason(record: Mapping[str, Any]) -> str:
    final = record.get("final")
    reason = final.get("reason") if isinstance(final, dict) else None
    return str(reason or record.get("error") or "")


def _keys(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "session.id": record.get("session"),
        "tool_use_id": record.get("tool_use_id"),
        "prompt.id": record.get("prompt_id"),
        "tool_name": record.get("tool"),
        "hook_event_name": record.get("event"),
        "agent_id": record.get("agent_id"),
    }


def log_records(record: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The final answer's log record, then one per sub-hook that ran."""
    when = _nanos(record.get("ts"))
    decision = _decision(record)
    final = {
        **_keys(record),
        "event.name": FINAL_EVENT,
        "decision": decision,
        "source": "ccbridge",
        "duration_ms": record.get("duration_ms"),
        "config_digest": record.get("config_digest"),
        "error": record.get("error"),
    }
    yield {
        "timeUnixNano": when,
        "observedTimeUnixNano": when,
        "severityNumber": SEVERITY_WARN if decision in _DENYING else SEVERITY_INFO,
        "severityText": "WARN" if decision in _DENYING else "INFO",
        "eventName": FINAL_EVENT,
        "body": {"stringValue": _reason(record) or decision},
        "attributes": attributes(final),
    }
    subhooks = record.get("subhooks")
    for item in subhooks if isinstance(subhooks, list) else []:
        if not isinstance(item, dict):
            continue
        verdict = subhook_verdict(item)
        row = {
            **_keys(record),
            "event.name": SUBHOOK_EVENT,
            "decision": verdict,
            "source": "subhook",
            "subhook.name": item.get("name"),
            "subhook.where": item.get("where"),
            "subhook.exit_code": item.get("exit_code"),
            "duration_ms": item.get("duration_ms"),
            "error": item.get("error"),
        }
        yield {
            "timeUnixNano": when,
            "observedTimeUnixNano": when,
            "severityNumber": SEVERITY_ERROR
            if verdict == "failure"
            else SEVERITY_WARN
            if verdict in _DENYING
            else SEVERITY_INFO,
            "severityText": "ERROR"
            if verdict == "failure"
            else "WARN"
            if verdict in _DENYING
            else "INFO",
            "eventName": SUBHOOK_EVENT,
            "body": {"stringValue": str(item.get("reason") or item.get("error") or verdict)},
            "attributes": attributes(row),
        }


def export_request(record: Mapping[str, Any], resource: Mapping[str, Any]) -> dict[str, Any]:
    """One `ExportLogsServiceRequest` (opentelemetry-proto, logs_service.proto) in OTLP/JSON."""
    return {
        "resourceLogs": [
            {
                "resource": {"attributes": attributes(resource)},
                "scopeLogs": [
                    {
                        "scope": {"name": SCOPE, "version": __version__},
                        "logRecords": list(log_records(record)),
                    }
                ],
            }
        ]
    }


def export_line(record: Mapping[str, Any], resource: Mapping[str, Any]) -> str:
    return json.dumps(export_request(record, resource), ensure_ascii=False, separators=(",", ":"))
