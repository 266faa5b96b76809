"""The benchmark script runs end to end (`--quick`) and writes its results file.

No figure is asserted: timings are the script's business, not a test's. What is checked is
that every section ran in a clean environment of its own, every case answered as it should,
every target got a verdict, and the file says where it ran and which baseline each row uses.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "run.py"
SECTIONS = (
    "## Startup, clean environment, warm cache",
    "## For comparison: the base interpreter",
    "## Sub-hooks that exit at once",
    "## 5 sub-hooks sleeping 0.2 s",
    "## The same policy as a native guard and as a sub-hook process",
    "## Audit append with N existing records",
    "## Goal authority check with N events in the session log",
    "## Peak RSS",
    "## A tool call through the warm path",
)


# What ccbridge says when a sub-hook or the call itself ran out of time: on a machine loaded by
# other work a case can, and that is the load's doing, not the script's or ccbridge's.
LOAD_SHAPED = ("timed out after", "no answer within")


def quick_run(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def failures(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The sections the run reported failed (`!! section failed: why`), one line each."""
    return [line for line in done.stderr.splitlines() if line.startswith("!! ")]


def load_shaped(failed: list[str]) -> bool:
    return bool(failed) and all(any(mark in line for mark in LOAD_SHAPED) for line in failed)


def test_a_quick_run_writes_every_section(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    done = quick_run(out)
    if done.returncode != 0 and load_shaped(failures(done)):
        # Once more, and this one must hold whole: a case that times out again fails the test.
        done = quick_run(out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert failures(done) == []
    text = out.read_text()
    for heading in ("## Machine", "- CPU: ", "- Cores: ", "- Python: ", "- Date (UTC): "):
        assert heading in text
    assert "- .pth files in the clean environment: none" in text  # nothing from elsewhere
    for section in SECTIONS:
        assert section in text, section
    assert "failed" not in text
    assert "not available" not in text  # a section whose code moved fails, it is not skipped
    for baseline in ("python -c pass", "python -I -S -c pass", "json hook"):
        assert f"| {baseline} (" in text, baseline  # each ratio names its baseline
    targets = text.split("## Targets", 1)[1].split("\n## ", 1)[0]
    for row in ("Bash event, default config", "native guards", "64 sub-hook(s)", "Bash"):
        assert row in targets, row
    # The verdicts are printed as well, one line a target, the same as the file's.
    printed = done.stdout.split("\ntargets:\n", 1)[1].split("\nresults written to ", 1)[0]
    verdicts = [re.fullmatch(r"  (PASS|MISS)  (.+)", line) for line in printed.splitlines()]
    assert verdicts and all(verdicts), printed
    filed = [
        re.fullmatch(r"- (PASS|\*\*MISS\*\*): (.+)", line) for line in targets.strip().splitlines()
    ]
    assert all(filed), targets
    assert [(m[1], m[2]) for m in verdicts if m] == [(m[1].strip("*"), m[2]) for m in filed if m]


def test_only_a_timeout_earns_a_second_run() -> None:
    """The retry above forgives the load, nothing else: a wrong answer fails at once."""
    timed_out = "!! bench_instant_hooks failed: expected none/exit 0, got deny/exit 2: "
    assert load_shaped([timed_out + "sub-hook 'exit 0 # 3' timed out after 20s"])
    assert load_shaped(["!! bench_startup failed: ccbridge: no answer within its 54 s deadline"])
    assert not load_shaped([timed_out + "sub-hook 'exit 0 # 3' said deny"])
    assert not load_shaped([timed_out + "timed out after 20s", "!! bench_audit failed: x"])
    assert not load_shaped([])


def test_the_results_file_keeps_its_earlier_figures_after_the_runs_it_rewrites() -> None:
    """bench/run.py rewrites what comes before the runs through Claude Code and keeps the rest:
    the earlier figures the docs point to must come after that heading, or a run drops them."""
    heading = re.search(r'^CC_CALLS = "(.+)"$', BENCH.read_text(encoding="utf-8"), re.MULTILINE)
    assert heading is not None
    text = (BENCH.parent / "RESULTS.md").read_text(encoding="utf-8")
    assert heading[1] in text and "\n## Earlier figures\n" in text
    assert text.index(heading[1]) < text.index("\n## Earlier figures\n")
