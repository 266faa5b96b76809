"""The agents' section of docs/e2e-matrix.md and the CC table share the file: each writer keeps
the other's part."""

from __future__ import annotations

from pathlib import Path

from . import agents_table, matrix_table
from .harness import pinned_versions

NEWEST = pinned_versions()[0]


def test_each_table_keeps_the_other(tmp_path: Path) -> None:
    table = tmp_path / "matrix.md"
    cc_results, agent_results = tmp_path / "cc", tmp_path / "agents"
    matrix_table.record(
        # the newest pinned version: its plain column comes first
        matrix_table.Measurement("deny", "sub-hook denies", 0, "plain", NEWEST, "blocked"),
        cc_results,
    )
    agents_table.record(
        agents_table.Measurement("codex", "9.9.9", "crash", "crashes", 0, "plain", "ran", 1.0),
        agent_results,
    )
    matrix_table.write_table(cc_results, table)
    agents_table.write_section(agent_results, table)
    first = table.read_text()
    assert "| sub-hook denies | blocked |" in first and "| crashes | ran | not measured |" in first
    matrix_table.write_table(cc_results, table)  # the CC suite re-renders its table
    assert table.read_text() == first
    agents_table.write_section(agent_results, table)  # and the agents' suite its section
    assert table.read_text() == first
