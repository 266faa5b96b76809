"""The OpenTelemetry Collector config of docs/fleet.md, checked as a unit: every component the
pipeline names is defined and of a kind the stock Collector has, and the filelog operators
name fields and a time layout that real audit records (written by `ccbridge run`) have."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.sandbox import Sandbox, one_denied_bash_call

DOC = Path(__file__).resolve().parents[2] / "docs" / "fleet.md"
KINDS = {
    "receivers": {"filelog", "otlpjsonfile"},
    "processors": {"resourcedetection", "batch", "resource"},
    "exporters": {"otlphttp", "otlp", "debug"},
}
OPERATORS = {"json_parser": {"parse_to", "timestamp"}, "move": {"from", "to", "if"}}
# Go's reference time in the layout, as Python's strptime directives
GO_LAYOUT = {
    "2006": "%Y",
    "01": "%m",
    "02": "%d",
    "15": "%H",
    "04": "%M",
    "05": "%S",
    ".000": ".%f",
    "Z07:00": "%z",
}


def collector_config() -> dict[str, Any]:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    (block,) = [text for text in blocks if "receivers:" in text]
    data = yaml.safe_load(block)
    assert isinstance(data, dict)
    return data


def strptime_of(layout: str) -> str:
    pattern = re.compile(
        "|".join(re.escape(key) for key in sorted(GO_LAYOUT, key=len, reverse=True))
    )
    return pattern.sub(lambda match: GO_LAYOUT[match.group(0)], layout)


def field(path: str) -> list[str]:
    """`attributes.a` or `attributes["a.b"]` as keys under attributes."""
    rest = path.removeprefix("attributes")
    return [part for part in re.findall(r'\["([^"]+)"\]|\.([\w]+)', rest) for part in part if part]


def test_every_pipeline_component_is_defined_and_stock() -> None:
    config = collector_config()
    for section, kinds in KINDS.items():
        for name in config[section]:
            assert name.split("/")[0] in kinds, name
    (pipeline,) = config["service"]["pipelines"].values()
    for section in KINDS:
        assert pipeline[section], section
        assert set(pipeline[section]) <= set(config[section]), section


@pytest.fixture
def audit_record(tmp_path: Path) -> dict[str, Any]:
    sandbox = Sandbox(tmp_path)
    one_denied_bash_call(sandbox, session="s", prompt_id="p", tool_use_id="t")
    (record,) = sandbox.audit()
    return record


def test_filelog_operators_fit_real_records(audit_record: dict[str, Any]) -> None:
    receiver = collector_config()["receivers"]["filelog/ccbridge"]
    assert any(Path(p).name == "audit.jsonl" for p in receiver["include"])
    parser, *moves = receiver["operators"]
    for operator in receiver["operators"]:
        assert set(operator) - {"type"} <= OPERATORS[operator["type"]], operator
    assert parser["type"] == "json_parser" and parser["parse_to"] == "attributes"
    stamp = parser["timestamp"]
    assert stamp["layout_type"] == "gotime"
    (key,) = field(stamp["parse_from"])
    datetime.strptime(audit_record[key].replace("Z", "+00:00"), strptime_of(stamp["layout"]))
    targets = set()
    for move in moves:
        (source,) = field(move["from"])
        assert source in audit_record, source  # a move of a field ccbridge never writes
        targets.update(field(move["to"]))
    assert {"session.id", "tool_name", "prompt.id"} <= targets


def test_otlpjsonfile_reads_where_the_doc_writes_the_export() -> None:
    receiver = collector_config()["receivers"]["otlpjsonfile/ccbridge"]
    text = DOC.read_text(encoding="utf-8")
    written = re.search(r"--format otlp-json[^\n]*>> (\S+)", text)
    assert written is not None
    assert any(Path(written.group(1)).match(pattern) for pattern in receiver["include"])
