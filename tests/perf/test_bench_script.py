"""The benchmark script runs end to end (`--quick`) and writes its results file.

No figure is asserted: timings are the script's business, not a test's. What is checked is
that every section ran, every case answered as it should, and the file says where it ran.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "run.py"
SECTIONS = (
    "## Startup, empty config (warm cache)",
    "## Sub-hooks that exit at once",
    "## 5 sub-hooks sleeping 0.2 s",
    "## The same policy as a native guard and as a sub-hook process",
    "## Audit append with N existing records",
    "Goal authority check with N events in the session log",  # or "not available yet"
    "## Peak RSS",
)


def test_a_quick_run_writes_every_section(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = out.read_text()
    for heading in ("## Machine", "- CPU: ", "- Cores: ", "- Python: ", "- Date (UTC): "):
        assert heading in text
    for section in SECTIONS:
        assert section in text, section
    assert "failed" not in text
    assert "python3 -c pass" in done.stdout  # the ratios are printed as well
