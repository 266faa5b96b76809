"""bench/cc_calls.py runs end to end in its quick mode through real Claude Code.

No figure is asserted (timings are the bench's business): what is checked is that every case
ran its session whole (the script fails a session whose calls did not all run), and that the
table has a row per case with a wall and a CPU figure, each case judged against its baseline.
The peers are left out (they come from the npm registry and a checkout, not from this repo).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e import harness
from tests.support.sandbox import CCBRIDGE

BENCH = Path(__file__).resolve().parents[2] / "bench" / "cc_calls.py"
CASES = {
    "no hooks": "-",
    "user hook": "no hooks",
    "user hook + sandbox": "user hook",
    "ccbridge --no-sandbox": "user hook",
    "ccbridge (wall)": "user hook + sandbox",
}

pytestmark = pytest.mark.e2e


def test_a_quick_run_measures_every_case(tmp_path: Path) -> None:
    version = harness.pinned_versions()[0]
    if harness.claude_binary(version) is None:
        pytest.skip(f"no Claude Code {version} binary (scripts/fetch-clients)")
    out = tmp_path / "cc-calls.md"
    options = ["--quick", "--no-peers", "--versions", version, "--ccbridge", str(CCBRIDGE)]
    done = subprocess.run(
        [sys.executable, str(BENCH), *options, "--out", str(out)],
        # the bench finds the binary as this process did, not in the test's own home
        env={**os.environ, "CCBRIDGE_CLAUDE_CACHE": str(harness.claude_cache())},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = out.read_text()
    assert f"- Claude Code: {version}" in text and "- Load average at start: " in text
    figure = r"[+-]?\d+\.\d ms"
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] in CASES:
            rows[cells[0]] = cells
    assert set(rows) == set(CASES), text
    for name, cells in rows.items():
        assert cells[1] == CASES[name]
        assert re.fullmatch(figure, cells[2]), cells
        if CASES[name] != "-":  # the added wall and CPU time over the baseline
            assert re.fullmatch(figure, cells[3]) and re.fullmatch(figure, cells[4]), cells
