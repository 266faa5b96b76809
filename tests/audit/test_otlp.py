"""`ccbridge audit --format otlp-json`, decoded with the official OTLP schema
(opentelemetry-proto): a line the Collector's otlpjsonfile receiver could not parse fails here."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from tests.cli.test_audit import RECORDS, write_log
from tests.support.sandbox import Sandbox, one_denied_bash_call

ENV = {
    "CCBRIDGE_OTEL_HOST": "build-17",
    "CCBRIDGE_OTEL_USER": "ada",
    "CCBRIDGE_OTEL_ORG": "acme",
    "CCBRIDGE_OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=prod, team=infra",
}


def plain(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "int_value":
        return value.int_value
    return getattr(value, kind) if kind else None


def attrs(pairs: Any) -> dict[str, Any]:
    return {pair.key: plain(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


def decode(stdout: str) -> list[ExportLogsServiceRequest]:
    requests = []
    for line in stdout.splitlines():
        request = ExportLogsServiceRequest()
        json_format.Parse(line, request)  # strict: an unknown or mistyped field raises
        requests.append(request)
    return requests


def test_each_record_is_one_request_with_a_row_per_subhook(sandbox: Sandbox) -> None:
    write_log(sandbox, RECORDS)
    done = sandbox.run("audit", "--format", "otlp-json", env=ENV)
    assert done.returncode == 0, done.stderr
    requests = decode(done.stdout)
    assert len(requests) == len(RECORDS)
    first = requests[0].resource_logs[0]
    assert attrs(first.resource.attributes) == {
        "service.name": "ccbridge",
        "service.version": attrs(first.resource.attributes)["service.version"],
        "host.name": "build-17",
        "user.name": "ada",
        "organization.id": "acme",
        "deployment.environment": "prod",
        "team": "infra",
    }
    rows = first.scope_logs[0].log_records
    assert [row.event_name for row in rows] == [
        "ccbridge.tool_decision",
        "ccbridge.subhook_decision",
        "ccbridge.subhook_decision",
    ]
    final, deny, quiet = (attrs(row.attributes) for row in rows)
    assert final["session.id"] == "s1" and final["tool_use_id"] == "t1"
    assert final["tool_name"] == "Bash" and final["decision"] == "deny"
    assert final["source"] == "ccbridge" and final["hook_event_name"] == "PreToolUse"
    assert (deny["subhook.name"], deny["decision"], deny["tool_use_id"]) == ("no-rm", "deny", "t1")
    assert (quiet["subhook.name"], quiet["decision"]) == ("lint", "none")
    assert rows[0].body.string_value == "why t1"
    assert rows[0].severity_number == 13 and rows[2].severity_number == 9
    # 2026-01-01T10:00:00.000Z
    assert rows[0].time_unix_nano == 1767261600 * 10**9
    failure = attrs(requests[-1].resource_logs[0].scope_logs[0].log_records[1].attributes)
    assert failure["decision"] == "failure" and failure["subhook.name"] == "fmt"


def test_prompt_id_is_carried_where_the_event_has_one(sandbox: Sandbox) -> None:
    one_denied_bash_call(sandbox, session="live", prompt_id="p-9", tool_use_id="tu1")
    done = sandbox.run("audit", "--format", "otlp-json", "--session", "live", env=ENV)
    (request,) = decode(done.stdout)
    rows = request.resource_logs[0].scope_logs[0].log_records
    assert [attrs(row.attributes)["prompt.id"] for row in rows] == ["p-9", "p-9"]
    assert attrs(rows[1].attributes)["subhook.name"] == "wall"


def test_otlp_json_is_not_mixed_with_the_other_outputs(sandbox: Sandbox) -> None:
    write_log(sandbox, RECORDS)
    done = sandbox.run("audit", "--format", "otlp-json", "--summary")
    assert done.returncode == 2 and "not with --summary" in done.stderr


def test_a_subhook_verdict_is_read_under_its_name_and_under_an_older_log_s_raw() -> None:
    from bridge.audit.otlp import export_request

    subhooks = [{"name": "old", "raw": "deny"}, {"name": "new", "verdict": "ask"}]
    record = {"ts": "2026-01-01T00:00:00.000Z", "event": "PreToolUse", "subhooks": subhooks}
    request = ExportLogsServiceRequest()
    json_format.ParseDict(export_request(record, {}), request)
    rows = request.resource_logs[0].scope_logs[0].log_records[1:]
    assert [attrs(row.attributes)["decision"] for row in rows] == ["deny", "ask"]
